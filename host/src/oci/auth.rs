//! Credentials for a registry, found the way container tools keep them: given ones
//! first, else the `auths` of Docker's `config.json` (`$DOCKER_CONFIG/config.json`,
//! or `~/.docker/config.json`), else none (anonymous, where the registry allows it).

use std::path::{Path, PathBuf};

use base64::Engine;
use oci_client::secrets::RegistryAuth;
use serde::Deserialize;

use super::{Credentials, RegistryError};
use crate::sys::read_regular_file;

/// The largest `config.json` read.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

#[derive(Deserialize)]
struct DockerConfig {
    #[serde(default)]
    auths: std::collections::HashMap<String, DockerAuth>,
}

#[derive(Deserialize)]
struct DockerAuth {
    /// base64 of `user:password`.
    #[serde(default)]
    auth: Option<String>,
    #[serde(default)]
    username: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default, rename = "identitytoken")]
    identity_token: Option<String>,
}

/// Where Docker's `config.json` is: `$DOCKER_CONFIG/config.json`, else in `~/.docker`.
pub(crate) fn docker_config_path() -> Option<PathBuf> {
    if let Some(folder) = std::env::var_os("DOCKER_CONFIG") {
        return Some(PathBuf::from(folder).join("config.json"));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".docker").join("config.json"))
}

/// The credentials to use for `registry`.
pub(crate) fn for_registry(
    registry: &str,
    given: Option<&Credentials>,
    config: Option<&Path>,
) -> Result<RegistryAuth, RegistryError> {
    if let Some(given) = given {
        return Ok(RegistryAuth::Basic(given.username.clone(), given.password.clone()));
    }
    let Some(path) = config else { return Ok(RegistryAuth::Anonymous) };
    let bytes = match read_regular_file(path, MAX_CONFIG_BYTES) {
        Ok(bytes) => bytes,
        Err(error) if error.is_not_found() => return Ok(RegistryAuth::Anonymous),
        Err(error) => return Err(bad_config(path, error.to_string())),
    };
    let config: DockerConfig = serde_json::from_slice(&bytes).map_err(|e| bad_config(path, e.to_string()))?;
    let Some(entry) = lookup(&config, registry) else { return Ok(RegistryAuth::Anonymous) };
    if let Some(token) = &entry.identity_token {
        return Ok(RegistryAuth::Bearer(token.clone()));
    }
    if let (Some(username), Some(password)) = (&entry.username, &entry.password) {
        return Ok(RegistryAuth::Basic(username.clone(), password.clone()));
    }
    let Some(encoded) = &entry.auth else { return Ok(RegistryAuth::Anonymous) };
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| bad_config(path, format!("the auth of {registry} is not base64 of user:password")))?;
    let (username, password) = decoded
        .split_once(':')
        .ok_or_else(|| bad_config(path, format!("the auth of {registry} has no ':' between user and password")))?;
    Ok(RegistryAuth::Basic(username.to_string(), password.to_string()))
}

/// The entry for `registry`: by its name, or by a URL naming it (Docker Hub's
/// `https://index.docker.io/v1/` among them).
fn lookup<'a>(config: &'a DockerConfig, registry: &str) -> Option<&'a DockerAuth> {
    let hub = matches!(registry, "docker.io" | "index.docker.io" | "registry-1.docker.io");
    config.auths.iter().find_map(|(key, entry)| {
        let host = key.trim_start_matches("https://").trim_start_matches("http://");
        let host = host.split('/').next().unwrap_or(host);
        (host == registry || (hub && host == "index.docker.io")).then_some(entry)
    })
}

fn bad_config(path: &Path, reason: String) -> RegistryError {
    RegistryError::Credentials { path: path.to_path_buf(), reason }
}
