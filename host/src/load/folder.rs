//! The plugin folder: which files in it are components, and what identifies one
//! version of a component (so a reload can tell what changed).

use std::fs;
use std::path::{Path, PathBuf};

use super::{MAX_MANIFEST_BYTES, manifest};
use crate::error::LoadError;
use crate::sys::read_regular_file;

/// The `*.wasm` entries of a folder, sorted. What each is (a regular file, or not) is
/// checked when it is read.
pub(crate) fn wasm_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let entries = fs::read_dir(dir).map_err(|error| LoadError::PluginDir { path: dir.to_path_buf(), error })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "wasm"))
        .collect();
    files.sort();
    Ok(files)
}

/// What identifies one version of a component: the hash of its bytes and of its
/// manifest's, so that a rewrite is noticed whatever the file times say. `None` when
/// the component cannot be read (or is not a regular file of at most `max_bytes`).
pub(crate) fn fingerprint(path: &Path, max_bytes: u64) -> Option<[u8; 32]> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&read_regular_file(path, max_bytes).ok()?);
    if let Ok(manifest) = read_regular_file(&manifest::path_for(path), MAX_MANIFEST_BYTES) {
        hasher.update(b"manifest");
        hasher.update(&manifest);
    }
    Some(*hasher.finalize().as_bytes())
}
