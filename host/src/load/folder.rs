//! The plugin folder: which files in it are components and which describe MCP
//! servers, and what identifies one version of a component (so a reload can tell
//! what changed).

use std::fs;
use std::path::{Path, PathBuf};

use super::{MAX_MANIFEST_BYTES, lockfile, manifest};
use crate::error::LoadError;
use crate::sys::read_regular_file;

/// What marks a plugin file as an MCP server's.
pub(crate) const SERVER_SUFFIX: &str = ".mcp.toml";

/// What marks a plugin file as a REST API's (an OpenAPI document's operations as tools).
pub(crate) const REST_API_SUFFIX: &str = ".openapi.toml";

/// The `*.wasm` entries of a folder, and its `*.mcp.toml` and `*.openapi.toml` ones
/// (plugins served outside the sandbox), each sorted. What
/// each is (a regular file, or not) is checked when it is read.
pub(crate) fn plugin_files(dir: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), LoadError> {
    let entries = fs::read_dir(dir).map_err(|error| LoadError::PluginDir { path: dir.to_path_buf(), error })?;
    let paths: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|e| e.path())).collect();
    let mut components: Vec<PathBuf> =
        paths.iter().filter(|path| path.extension().is_some_and(|ext| ext == "wasm")).cloned().collect();
    let mut servers: Vec<PathBuf> = paths.into_iter().filter(|path| is_server_file(path)).collect();
    components.sort();
    servers.sort();
    Ok((components, servers))
}

/// Whether `path` names an MCP server's file (`NAME.mcp.toml`) or a REST API's
/// (`NAME.openapi.toml`).
pub(crate) fn is_server_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str());
    let ends = |suffix: &str| name.is_some_and(|n| n.len() > suffix.len() && n.ends_with(suffix));
    ends(SERVER_SUFFIX) || ends(REST_API_SUFFIX)
}

/// Whether `path` names a REST API's file (`NAME.openapi.toml`).
pub(crate) fn is_rest_api_file(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(REST_API_SUFFIX))
}

/// The digest of one version of a plugin file (and, for a component, its manifest).
pub(crate) type Version = [u8; 32];

/// The version of an MCP server's or a REST API's file: the hash of its bytes and,
/// for an API whose document is a file, of the document's (`None`: unreadable).
pub(crate) fn server_fingerprint(path: &Path) -> Option<Version> {
    let bytes = read_regular_file(path, MAX_MANIFEST_BYTES).ok()?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(&bytes);
    if is_rest_api_file(path)
        && let Some(document) = local_document(&bytes)
        && let Ok(document) =
            read_regular_file(&path.parent().unwrap_or(Path::new(".")).join(document), MAX_DOCUMENT_BYTES)
    {
        hasher.update(b"document");
        hasher.update(&document);
    }
    Some(*hasher.finalize().as_bytes())
}

/// The largest OpenAPI document read (the largest public ones are a few MB).
pub(crate) const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// The `document` an API file names, when it is a file rather than a URL.
fn local_document(file: &[u8]) -> Option<PathBuf> {
    let table: toml::Table = toml::from_str(std::str::from_utf8(file).ok()?).ok()?;
    let document = table.get("document")?.as_str()?;
    (!document.contains("://")).then(|| PathBuf::from(document))
}

/// What identifies one version of a component: the hash of its bytes, of its
/// manifest's and of the folder's lock file (a changed lock is checked again), so that
/// a rewrite is noticed whatever the file times say. `None` when
/// the component cannot be read (or is not a regular file of at most `max_bytes`).
pub(crate) fn fingerprint(path: &Path, max_bytes: u64) -> Option<Version> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&read_regular_file(path, max_bytes).ok()?);
    if let Ok(manifest) = read_regular_file(&manifest::path_for(path), MAX_MANIFEST_BYTES) {
        hasher.update(b"manifest");
        hasher.update(&manifest);
    }
    if let Ok(lock) = read_regular_file(&lockfile::path_beside(path), MAX_MANIFEST_BYTES) {
        hasher.update(b"lock");
        hasher.update(&lock);
    }
    Some(*hasher.finalize().as_bytes())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::is_server_file;

    #[test]
    fn only_files_ending_in_mcp_toml_are_server_files() {
        assert!(is_server_file(Path::new("plugins/everything.mcp.toml")));
        assert!(!is_server_file(Path::new("plugins/.mcp.toml")));
        assert!(!is_server_file(Path::new("plugins/calculator.toml")));
        assert!(is_server_file(Path::new("plugins/petstore.openapi.toml")));
    }
}
