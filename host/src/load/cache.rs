//! The on-disk cache of compiled components. A cache entry is native code the host
//! runs outside the sandbox, so nothing is deserialised unless the entry proves it is
//! what the host itself compiled from exactly these component bytes, for this engine.
//!
//! An entry (`<digest>-<engine>.cwasm`, written 0600 and atomically) is:
//!
//! ```text
//! MAGIC | blake3(component bytes) | engine key | compiled component | checksum | tag
//! ```
//!
//! The checksum (blake3 of everything before it) catches corruption and truncation;
//! the tag (blake3 keyed with the cache's key, over the same bytes: BLAKE3's own MAC
//! construction, which needs no HMAC wrapping) proves the entry was written by a host
//! holding the key. The key is 32 random bytes in `key`, made 0600 on first use. The
//! folder must be owned by the host's user and writable by no one else, and must not
//! be a symbolic link; otherwise the cache is not used and a warning says why.
//!
//! A *shared* cache (read-only, pre-populated, e.g. mounted into many containers) is
//! trusted differently: the host never writes to it and cannot read its key, so its
//! entries are checked for the component's digest, the engine and the checksum, and
//! whoever can write the folder is trusted. The folder may belong to any user but
//! must be writable by its owner alone.

use std::path::PathBuf;

use wasmtime::Engine;
use wasmtime::component::Component;

use crate::sys::{self, FolderError, Owner, SecretError};

/// What every entry starts with: the format, so that older ones are simply not taken.
const MAGIC: &[u8; 16] = b"toolhost cache 2";

/// Magic, component digest, engine key.
const HEADER: usize = MAGIC.len() + 32 + 32;

/// Checksum and tag.
const TRAILER: usize = 32 + 32;

/// The largest entry read: compiled components are a few times their source's size.
const MAX_ENTRY_BYTES: u64 = 4 << 30;

/// Where compiled components are kept between runs, and how far it is trusted.
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    dir: PathBuf,
    engine_key: [u8; 32],
    /// The key entries are authenticated with, for a private cache; `None` for a
    /// shared, read-only one.
    key: Option<[u8; 32]>,
}

/// Why the cache is not used (components are then compiled on every start).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheError {
    /// The folder is not private to the host's user (or not a folder at all).
    #[error(
        "the compile cache is not used, because {0}: whoever can write there could make the host run their code. \
         Use a folder only this user can write (`chmod 700` it), or another one (TOOLHOST_CACHE_DIR); \
         components are compiled on every start meanwhile"
    )]
    Untrusted(FolderError),
    /// The folder cannot be made or examined.
    #[error("the compile cache is not used: {0}; components are compiled on every start meanwhile")]
    Unavailable(FolderError),
    /// The cache's key cannot be made, or is not private.
    #[error("the compile cache is not used: {0}")]
    Key(#[from] SecretError),
}

impl From<FolderError> for CacheError {
    fn from(error: FolderError) -> CacheError {
        match error {
            FolderError::Io { .. } => CacheError::Unavailable(error),
            untrusted => CacheError::Untrusted(untrusted),
        }
    }
}

/// The default cache folder: `$TOOLHOST_CACHE_DIR`, else `$XDG_CACHE_HOME/toolhost`,
/// else `~/.cache/toolhost`, else a folder for this user in the system's temporary
/// directory.
pub(crate) fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TOOLHOST_CACHE_DIR") {
        return dir.into();
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("toolhost");
    }
    match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".cache").join("toolhost"),
        None => std::env::temp_dir().join(format!("toolhost-cache-{}", sys::my_uid().unwrap_or_default())),
    }
}

impl Cache {
    /// The private cache in `dir` (made 0700 when missing), with its key (made on
    /// first use), for components compiled by `engine`.
    pub(crate) fn private(dir: PathBuf, engine: &Engine) -> Result<Cache, CacheError> {
        sys::trusted_folder(&dir, Owner::Me, true)?;
        let key = sys::private_secret(&dir.join("key"), 32, random_key)?;
        let key: [u8; 32] = key.try_into().map_err(|_| {
            let error = std::io::Error::new(std::io::ErrorKind::InvalidData, "the key is not 32 bytes");
            CacheError::Key(SecretError::Io { path: dir.join("key"), error: error.into() })
        })?;
        Ok(Cache { dir, engine_key: engine_key(engine), key: Some(key) })
    }

    /// The cache's folder (where the `semantic` feature keeps its vectors too).
    #[cfg(feature = "semantic")]
    pub(crate) fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Whether the host may write to the cache (a private one; a shared one is read only).
    #[cfg(feature = "semantic")]
    pub(crate) fn is_private(&self) -> bool {
        self.key.is_some()
    }

    /// A shared, read-only cache in `dir` (see the module's notes on its trust).
    pub(crate) fn shared(dir: PathBuf, engine: &Engine) -> Result<Cache, CacheError> {
        sys::trusted_folder(&dir, Owner::Anyone, false)?;
        Ok(Cache { dir, engine_key: engine_key(engine), key: None })
    }

    /// The same cache, for components compiled by `engine` (another compiler's
    /// entries sit beside this one's, told apart by their engine key).
    pub(crate) fn for_engine(&self, engine: &Engine) -> Cache {
        Cache { engine_key: engine_key(engine), ..self.clone() }
    }

    fn entry_path(&self, digest: &blake3::Hash) -> PathBuf {
        let engine = blake3::Hash::from_bytes(self.engine_key).to_hex();
        self.dir.join(format!("{}-{}.cwasm", &digest.to_hex()[..32], &engine[..16]))
    }

    /// The compiled component for `wasm`, if an entry proves it is one; anything else
    /// is treated as absent (and logged), so the component is compiled again.
    pub(crate) fn load(&self, engine: &Engine, wasm: &[u8]) -> Option<Component> {
        let digest = blake3::hash(wasm);
        let path = self.entry_path(&digest);
        let owner = if self.key.is_some() { Owner::Me } else { Owner::Anyone };
        let stored = match sys::read_trusted_file(&path, MAX_ENTRY_BYTES, owner) {
            Ok(stored) => stored,
            Err(error) if error.is_not_found() => return None,
            Err(error) => {
                tracing::warn!("cache entry {} cannot be read ({error}); recompiling", path.display());
                return None;
            }
        };
        let compiled = match self.verify(&stored, &digest) {
            Ok(compiled) => compiled,
            Err(why) => {
                tracing::warn!("cache entry {} is not used: {why}; recompiling", path.display());
                return None;
            }
        };
        // SAFETY: `deserialize` runs the native code in `compiled`, so it must be what
        // `Component::serialize` wrote for an engine like this one. `verify` has shown
        // that the entry names exactly these component bytes and this engine's
        // compatibility hash, that it is whole, and, for a private cache, that it was
        // written with this cache's key (kept 0600 in a folder only this user can
        // write), so only a host of this user wrote it. A shared cache's entries are as
        // trustworthy as whoever can write its folder, which the operator vouched for
        // when choosing it. wasmtime checks the engine's settings again itself.
        match unsafe { Component::deserialize(engine, compiled) } {
            Ok(component) => Some(component),
            Err(error) => {
                tracing::warn!("cache entry {} cannot be used ({error}); recompiling", path.display());
                None
            }
        }
    }

    /// The compiled bytes of an entry for the component with `digest`, or why the
    /// entry is not one.
    fn verify<'a>(&self, stored: &'a [u8], digest: &blake3::Hash) -> Result<&'a [u8], &'static str> {
        if stored.len() < HEADER + TRAILER || !stored.starts_with(MAGIC) {
            return Err("it is not an entry of this format");
        }
        let (signed, trailer) = stored.split_at(stored.len() - TRAILER);
        let (checksum, tag) = trailer.split_at(32);
        if signed[MAGIC.len()..MAGIC.len() + 32] != *digest.as_bytes() {
            return Err("it was compiled from other component bytes (a swapped or planted entry)");
        }
        if signed[MAGIC.len() + 32..HEADER] != self.engine_key {
            return Err("it was compiled for another engine");
        }
        if blake3::hash(signed) != hash_from(checksum) {
            return Err("it is damaged (its checksum does not match)");
        }
        if let Some(key) = &self.key
            && blake3::keyed_hash(key, signed) != hash_from(tag)
        {
            return Err("it was not written by a host holding this cache's key");
        }
        Ok(&signed[HEADER..])
    }

    /// Stores the compiled form of `wasm`. A failure only costs a compile next time,
    /// so it is logged, not returned; a shared cache is never written.
    pub(crate) fn store(&self, wasm: &[u8], compiled: &[u8]) {
        let Some(key) = &self.key else { return };
        let digest = blake3::hash(wasm);
        let path = self.entry_path(&digest);
        let mut entry = Vec::with_capacity(HEADER + compiled.len() + TRAILER);
        entry.extend_from_slice(MAGIC);
        entry.extend_from_slice(digest.as_bytes());
        entry.extend_from_slice(&self.engine_key);
        entry.extend_from_slice(compiled);
        let checksum = blake3::hash(&entry);
        let tag = blake3::keyed_hash(key, &entry);
        entry.extend_from_slice(checksum.as_bytes());
        entry.extend_from_slice(tag.as_bytes());
        if let Err(error) = sys::write_private_atomically(&path, &entry) {
            tracing::warn!("cannot write cache entry {}: {error}; continuing uncached", path.display());
        }
    }
}

/// The engine's compatibility hash, as 32 bytes: entries compiled by an engine with
/// other settings or another wasmtime are never taken.
fn engine_key(engine: &Engine) -> [u8; 32] {
    use std::hash::{Hash, Hasher};

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
    let mut hasher = Blake3Hasher(blake3::Hasher::new());
    engine.precompile_compatibility_hash().hash(&mut hasher);
    *hasher.0.finalize().as_bytes()
}

/// 32 bytes from the operating system's random source, for a new key.
fn random_key() -> std::io::Result<Vec<u8>> {
    let mut key = vec![0; 32];
    getrandom::fill(&mut key).map_err(|error| std::io::Error::other(format!("no random bytes for a key: {error}")))?;
    Ok(key)
}

/// A 32-byte slice as a hash (compared in constant time).
fn hash_from(bytes: &[u8]) -> blake3::Hash {
    blake3::Hash::from_bytes(bytes.try_into().expect("32 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(key: Option<[u8; 32]>) -> Cache {
        let folder = std::env::temp_dir().join("toolhost-cache-format-test");
        Cache { dir: folder, engine_key: [7; 32], key }
    }

    /// An entry as `store` writes it, built here without touching the disk.
    fn entry(cache: &Cache, wasm: &[u8], compiled: &[u8]) -> Vec<u8> {
        let mut entry = [&MAGIC[..], blake3::hash(wasm).as_bytes(), &cache.engine_key, compiled].concat();
        let (checksum, tag) = (blake3::hash(&entry), blake3::keyed_hash(cache.key.as_ref().expect("key"), &entry));
        entry.extend_from_slice(checksum.as_bytes());
        entry.extend_from_slice(tag.as_bytes());
        entry
    }

    #[test]
    fn an_entry_is_taken_only_for_its_component_its_engine_and_its_key() {
        let ours = cache(Some([1; 32]));
        let digest = blake3::hash(b"component");
        let good = entry(&ours, b"component", b"native code");
        assert_eq!(ours.verify(&good, &digest), Ok(&b"native code"[..]));

        let other_component = entry(&ours, b"another component", b"native code");
        assert_eq!(
            ours.verify(&other_component, &digest),
            Err("it was compiled from other component bytes (a swapped or planted entry)")
        );
        let other_engine = entry(&Cache { engine_key: [8; 32], ..ours.clone() }, b"component", b"native code");
        assert_eq!(ours.verify(&other_engine, &digest), Err("it was compiled for another engine"));
        let other_key = entry(&cache(Some([2; 32])), b"component", b"native code");
        assert_eq!(ours.verify(&other_key, &digest), Err("it was not written by a host holding this cache's key"));
        // A shared cache cannot check the key, and checks everything else.
        assert_eq!(cache(None).verify(&other_key, &digest), Ok(&b"native code"[..]));

        let mut flipped = good.clone();
        flipped[HEADER + 2] ^= 1;
        assert_eq!(ours.verify(&flipped, &digest), Err("it is damaged (its checksum does not match)"));
        assert_eq!(ours.verify(&good[..good.len() - 1], &digest), Err("it is damaged (its checksum does not match)"));
        assert_eq!(ours.verify(b"short", &digest), Err("it is not an entry of this format"));
    }
}
