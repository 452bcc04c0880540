//! The on-disk cache of compiled components, keyed by the component's bytes and the
//! engine's compatibility hash. Entries are written atomically and checked against a
//! checksum before use, so a corrupt or truncated entry is recompiled. The cache folder
//! must be trusted: see the SAFETY note in [`Cache::load`].

use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use wasmtime::Engine;
use wasmtime::component::Component;

/// Where compiled components are kept between runs.
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    dir: PathBuf,
    engine_key: String,
}

/// The default cache folder: `$TOOLHOST_CACHE_DIR`, else `$XDG_CACHE_HOME/toolhost`,
/// else `~/.cache/toolhost`, else a folder in the system's temporary directory.
pub(crate) fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TOOLHOST_CACHE_DIR") {
        return dir.into();
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("toolhost");
    }
    match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".cache").join("toolhost"),
        None => std::env::temp_dir().join("toolhost-cache"),
    }
}

impl Cache {
    /// A cache in `dir` for components compiled by `engine`.
    pub(crate) fn new(dir: PathBuf, engine: &Engine) -> Cache {
        let mut hasher = Blake3Hasher(blake3::Hasher::new());
        engine.precompile_compatibility_hash().hash(&mut hasher);
        Cache { dir, engine_key: hasher.0.finalize().to_hex()[..16].to_string() }
    }

    fn entry_path(&self, wasm: &[u8]) -> PathBuf {
        let digest = blake3::hash(wasm);
        self.dir.join(format!("{}-{}.cwasm", &digest.to_hex()[..32], self.engine_key))
    }

    /// The compiled component for `wasm`, if a sound entry exists. A damaged entry is
    /// removed so that it is rebuilt.
    pub(crate) fn load(&self, engine: &Engine, wasm: &[u8]) -> Option<Component> {
        let path = self.entry_path(wasm);
        let stored = fs::read(&path).ok()?;
        let Some(compiled) = verified(&stored) else {
            tracing::warn!("cache entry {} is damaged; recompiling", path.display());
            let _ = fs::remove_file(&path);
            return None;
        };
        // SAFETY: `deserialize` runs whatever native code the bytes hold, so they must
        // be what `Component::serialize` wrote for an engine like this one. The entry's
        // name carries the engine's compatibility hash and wasmtime checks it again;
        // the checksum catches corruption and truncation, NOT tampering: anyone who can
        // write to the cache folder can make the host run their code. The cache folder
        // must therefore be trusted (owned by the host's user, writable by nobody else).
        match unsafe { Component::deserialize(engine, compiled) } {
            Ok(component) => Some(component),
            Err(error) => {
                tracing::warn!("cache entry {} cannot be used ({error}); recompiling", path.display());
                let _ = fs::remove_file(&path);
                None
            }
        }
    }

    /// Stores a compiled component for `wasm`. Failure only costs a recompile next
    /// time, so it is logged, not returned.
    pub(crate) fn store(&self, wasm: &[u8], compiled: &[u8]) {
        let path = self.entry_path(wasm);
        if let Err(error) = write_atomically(&self.dir, &path, &with_checksum(compiled)) {
            tracing::warn!("cannot write cache entry {}: {error}; continuing uncached", path.display());
        }
    }
}

/// Feeds `Hash` into blake3: unlike `DefaultHasher`, stable across Rust releases.
struct Blake3Hasher(blake3::Hasher);

impl Hasher for Blake3Hasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    fn finish(&self) -> u64 {
        let digest = self.0.finalize();
        u64::from_le_bytes(digest.as_bytes()[..8].try_into().expect("8 bytes"))
    }
}

/// Entry layout: the compiled bytes followed by their 32-byte blake3 digest.
fn with_checksum(compiled: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(compiled.len() + 32);
    bytes.extend_from_slice(compiled);
    bytes.extend_from_slice(blake3::hash(compiled).as_bytes());
    bytes
}

fn verified(stored: &[u8]) -> Option<&[u8]> {
    let split = stored.len().checked_sub(32)?;
    let (compiled, digest) = stored.split_at(split);
    (blake3::hash(compiled).as_bytes() == digest).then_some(compiled)
}

/// Writes to a temporary file in the same folder, then renames it into place, so a
/// crash mid-write never leaves a partial entry under the entry's name.
fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let temporary = dir.join(format!(
        ".{}.{}.tmp",
        std::process::id(),
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry")
    ));
    fs::write(&temporary, bytes)?;
    fs::rename(&temporary, path).inspect_err(|_| {
        let _ = fs::remove_file(&temporary);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_detects_truncation_and_corruption() {
        let stored = with_checksum(b"compiled code");
        assert_eq!(verified(&stored), Some(&b"compiled code"[..]));
        assert_eq!(verified(&stored[..stored.len() - 1]), None);
        let mut flipped = stored.clone();
        flipped[3] ^= 1;
        assert_eq!(verified(&flipped), None);
        assert_eq!(verified(b"short"), None);
    }
}
