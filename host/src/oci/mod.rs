//! Tools from a registry: components pulled from any registry that speaks the OCI
//! distribution API into a plugin folder, each recorded with its digest in the
//! folder's `toolhost.lock` (which loading then enforces, `load/lockfile.rs`), and
//! pushed from a checked file in the CNCF Wasm layout (`artifact.rs`), signed and
//! verified as cosign signs and verifies (`sign.rs`). Credentials are found as
//! container tools keep them (`auth.rs`).
//!
//! ```no_run
//! # async fn run() -> Result<(), toolhost::oci::RegistryError> {
//! use toolhost::oci::{RegistryOptions, pull};
//!
//! let pulled = pull("ghcr.io/example/weather:1.2.0", "plugins".as_ref(), &RegistryOptions::default()).await?;
//! println!("{} ({}, {} bytes)", pulled.path.display(), pulled.sha256, pulled.bytes);
//! # Ok(())
//! # }
//! ```

mod artifact;
mod auth;
mod client;
mod error;
mod pull;
mod push;
mod sign;

use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};

pub use error::RegistryError;
pub use pull::{pull, pull_into, pull_locked};
pub use push::push;
pub use sign::{SigningKey, VerifyingKey, generate_key_pair};

use crate::load::DEFAULT_MAX_COMPONENT_BYTES;

/// How to reach registries. Start from `RegistryOptions::default()` and set fields.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RegistryOptions {
    /// Speak plain HTTP to any registry (without it, only to loopback ones).
    pub insecure: bool,
    /// A user name and password, instead of Docker's `config.json`.
    pub credentials: Option<Credentials>,
    /// Docker's `config.json` to read credentials from (default:
    /// `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`); `None` reads none.
    pub docker_config: Option<PathBuf>,
    /// The largest component pulled, in bytes (default 256 MiB, as loading allows).
    pub max_component_bytes: u64,
    /// Keys a pulled artifact must carry a cosign signature of (one is enough); none:
    /// unsigned artifacts are pulled, and recorded as unverified.
    pub keys: Vec<VerifyingKey>,
    /// The key a pushed artifact is signed with, in cosign's format.
    pub signing_key: Option<SigningKey>,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        RegistryOptions {
            insecure: false,
            credentials: None,
            docker_config: auth::docker_config_path(),
            max_component_bytes: DEFAULT_MAX_COMPONENT_BYTES,
            keys: Vec::new(),
            signing_key: None,
        }
    }
}

/// A user name and password for a registry.
#[derive(Clone)]
#[non_exhaustive]
pub struct Credentials {
    /// The user name.
    pub username: String,
    /// The password (or token).
    pub password: String,
}

impl Credentials {
    /// `username` with `password` (or a token).
    pub fn new(username: &str, password: &str) -> Credentials {
        Credentials { username: username.to_string(), password: password.to_string() }
    }
}

impl std::fmt::Debug for Credentials {
    /// Never shows the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("username", &self.username).finish_non_exhaustive()
    }
}

/// A component pulled into a plugin folder (serialised with `path` as text).
#[derive(Debug, Clone, Serialize)]
pub struct Pulled {
    /// Its name: the file is `NAME.wasm`.
    pub name: String,
    /// The file written.
    #[serde(serialize_with = "path_text")]
    pub path: PathBuf,
    /// The reference as asked for.
    pub reference: String,
    /// The digest of the artifact's OCI manifest (pull `repository@digest` for exactly it).
    pub artifact: String,
    /// The SHA-256 of the component's bytes.
    pub sha256: String,
    /// The component's size.
    pub bytes: u64,
    /// Whether a toolhost manifest (`NAME.toml`) came with it.
    pub manifest: bool,
    /// The fingerprints of the keys its signature was verified with (empty: unverified).
    pub signed_by: Vec<String>,
}

/// A component pushed to a registry.
#[derive(Debug, Clone, Serialize)]
pub struct Pushed {
    /// The reference pushed to.
    pub reference: String,
    /// The digest of the artifact's OCI manifest.
    pub artifact: String,
    /// The SHA-256 of the component's bytes (its layer's digest).
    pub sha256: String,
    /// The tools it carries.
    pub tools: Vec<String>,
    /// The fingerprint of the key it was signed with, if it was.
    pub signed_by: Option<String>,
}

/// A path as text (a name that is not UTF-8 shown with replacement characters).
fn path_text<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}
