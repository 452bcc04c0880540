//! The plugin folder's `toolhost.lock`: for each component fetched from a registry,
//! the reference it came from and the SHA-256 its bytes (and its manifest's) must
//! have. Loading refuses a locked component whose file no longer matches.
//!
//! ```toml
//! version = 1
//!
//! [[component]]
//! name = "weather"                   # weather.wasm
//! reference = "ghcr.io/org/weather:1.2.0"
//! artifact = "sha256:77d0…"          # the OCI manifest pulled: re-pulled by this digest
//! sha256 = "sha256:5f1e…"            # of weather.wasm: the artifact's layer digest
//! manifest-sha256 = "sha256:a3c9…"   # of weather.toml, when the artifact carried one
//! signed-by = ["sha256:0b4e…"]       # the keys its cosign signature was verified with
//!
//! [[document]]                       # a REST API's OpenAPI document fetched from a URL
//! name = "petstore"                  # petstore.openapi.toml
//! url = "https://api.example.com/openapi.json"
//! sha256 = "sha256:91ac…"            # pinned when first fetched; a change is refused
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::MAX_MANIFEST_BYTES;
use crate::sys::{ReadError, read_regular_file};

/// The lock file's name in a plugin folder.
pub(crate) const LOCK_FILE: &str = "toolhost.lock";

/// The lock file format this host reads and writes.
const VERSION: u32 = 1;

/// Held while a lock file is read, changed and written again, so that two entries
/// recorded at once (two REST APIs' documents pinned while a folder loads) are both kept.
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The lock file beside `component` (in the same folder).
pub(crate) fn path_beside(component: &Path) -> PathBuf {
    component.with_file_name(LOCK_FILE)
}

/// `toolhost.lock` as written.
#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
struct Lockfile {
    version: u32,
    #[serde(default)]
    component: Vec<Entry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    document: Vec<DocumentEntry>,
}

/// What a REST API's document fetched from a URL must be.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
pub(crate) struct DocumentEntry {
    /// The API's name: its file is `NAME.openapi.toml`.
    pub(crate) name: String,
    /// Where the document is fetched from.
    pub(crate) url: String,
    /// The SHA-256 of the document's bytes when it was first fetched.
    pub(crate) sha256: String,
}

/// What one pulled component must be.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Entry {
    /// The component's name: its file is `NAME.wasm`.
    pub(crate) name: String,
    /// Where it was pulled from.
    pub(crate) reference: String,
    /// The digest of the OCI manifest pulled, which a re-pull asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) artifact: Option<String>,
    /// The SHA-256 of its bytes, as `sha256:` and 64 hex digits.
    pub(crate) sha256: String,
    /// The SHA-256 of the manifest pulled with it, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) manifest_sha256: Option<String>,
    /// Who signed the artifact: the public keys its signature was verified with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) signed_by: Vec<String>,
}

/// Why a component's lock says it must not be loaded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LockError {
    /// The lock file exists but cannot be used: nothing in its folder can be verified.
    #[error(
        "the plugin folder's {LOCK_FILE} cannot be used ({reason}), so no component of that folder \
         is loaded: run `toolhost pull` to write it again, or remove it to trust the files as they are"
    )]
    Unusable {
        /// What is wrong with it.
        reason: String,
    },
    /// A locked file's bytes are not the ones pulled.
    #[error(
        "its {what} does not match {LOCK_FILE} (locked {locked}, found {found}): it changed after it \
         was pulled from {reference}, so it is not loaded; run `toolhost pull` to fetch the locked \
         version again, or remove its entry from {LOCK_FILE} to trust the file as it is"
    )]
    Mismatch {
        /// "content" or "manifest".
        what: &'static str,
        /// The digest in the lock.
        locked: String,
        /// The digest of the file as it is (or "no file").
        found: String,
        /// Where it was pulled from.
        reference: String,
    },
}

/// Every entry of the lock file in `folder` (none when there is no lock file).
#[cfg_attr(not(feature = "oci"), allow(dead_code))]
pub(crate) fn entries_in(folder: &Path) -> Result<Vec<Entry>, LockError> {
    Ok(lock_in(folder)?.component)
}

/// The lock file in `folder`, checked (an empty one when there is none).
fn lock_in(folder: &Path) -> Result<Lockfile, LockError> {
    match read_regular_file(&folder.join(LOCK_FILE), MAX_MANIFEST_BYTES) {
        Ok(bytes) => parse(&bytes),
        Err(error) if error.is_not_found() => {
            Ok(Lockfile { version: VERSION, component: Vec::new(), document: Vec::new() })
        }
        Err(error) => Err(unusable(&error)),
    }
}

/// The pinned digest of the REST API `name`'s document, if the lock file in
/// `folder` has one.
#[cfg_attr(not(feature = "rest-apis"), allow(dead_code))]
pub(crate) fn document_entry(folder: &Path, name: &str) -> Result<Option<DocumentEntry>, LockError> {
    Ok(lock_in(folder)?.document.into_iter().find(|entry| entry.name == name))
}

/// Pins a REST API's document in the lock file of `folder` (replacing the entry of
/// the same name).
#[cfg_attr(not(feature = "rest-apis"), allow(dead_code))]
pub(crate) fn record_document(folder: &Path, entry: DocumentEntry) -> Result<(), LockError> {
    let _writing = crate::mutex::lock(&WRITING);
    let mut lock = lock_in(folder)?;
    lock.document.retain(|known| known.name != entry.name);
    lock.document.push(entry);
    lock.document.sort_by(|a, b| a.name.cmp(&b.name));
    write(folder, &lock)
}

/// Records `entry` in the lock file of `folder` (replacing the entry of the same
/// name), writing the whole file anew and renaming it into place.
#[cfg_attr(not(feature = "oci"), allow(dead_code))]
pub(crate) fn record(folder: &Path, entry: Entry) -> Result<(), LockError> {
    let _writing = crate::mutex::lock(&WRITING);
    let mut lock = lock_in(folder)?;
    lock.component.retain(|known| known.name != entry.name);
    lock.component.push(entry);
    lock.component.sort_by(|a, b| a.name.cmp(&b.name));
    write(folder, &lock)
}

/// Writes `lock` as the lock file of `folder`, anew, renamed into place.
fn write(folder: &Path, lock: &Lockfile) -> Result<(), LockError> {
    let text =
        toml::to_string(lock).map_err(|error| LockError::Unusable { reason: format!("cannot write it: {error}") })?;
    let header = "# Written by `toolhost pull` and by loading REST APIs whose document is a URL: the\n\
                  # SHA-256 each component and document must have. One that no longer matches is not loaded.\n\n";
    crate::sys::write_private_atomically(&folder.join(LOCK_FILE), format!("{header}{text}").as_bytes())
        .map_err(|error| LockError::Unusable { reason: format!("cannot write it: {error}") })
}

/// The lock entry for `component`, if its folder has a lock file naming it.
pub(crate) fn entry_for(component: &Path) -> Result<Option<Entry>, LockError> {
    let path = path_beside(component);
    let bytes = match read_regular_file(&path, MAX_MANIFEST_BYTES) {
        Ok(bytes) => bytes,
        Err(error) if error.is_not_found() => return Ok(None),
        Err(error) => return Err(unusable(&error)),
    };
    let name = component.file_stem().map(|stem| stem.to_string_lossy()).unwrap_or_default();
    Ok(parse(&bytes)?.component.into_iter().find(|entry| entry.name == name))
}

/// Every entry of a lock file's bytes, checked: the format version, digests that are
/// SHA-256 digests, and each name once.
fn parse(bytes: &[u8]) -> Result<Lockfile, LockError> {
    let text = std::str::from_utf8(bytes).map_err(|_| LockError::Unusable { reason: "it is not UTF-8".into() })?;
    let lock: Lockfile = toml::from_str(text).map_err(|error| LockError::Unusable { reason: error.to_string() })?;
    if lock.version != VERSION {
        return Err(LockError::Unusable {
            reason: format!("it is version {}, and this host reads version {VERSION}", lock.version),
        });
    }
    let mut names = std::collections::HashSet::new();
    for entry in &lock.component {
        if !names.insert(entry.name.as_str()) {
            return Err(LockError::Unusable { reason: format!("it names '{}' twice", entry.name) });
        }
        for digest in std::iter::once(&entry.sha256).chain(&entry.manifest_sha256) {
            if !is_sha256(digest) {
                return Err(LockError::Unusable {
                    reason: format!("'{}' has the digest '{digest}', not sha256: and 64 hex digits", entry.name),
                });
            }
        }
    }
    if let Some(entry) = lock.document.iter().find(|entry| !is_sha256(&entry.sha256)) {
        return Err(LockError::Unusable {
            reason: format!(
                "the document of '{}' has the digest '{}', not sha256: and 64 hex digits",
                entry.name, entry.sha256
            ),
        });
    }
    Ok(lock)
}

fn unusable(error: &ReadError) -> LockError {
    LockError::Unusable { reason: format!("cannot read it: {error}") }
}

/// Whether `digest` is written as `sha256:` and 64 lower-case hex digits.
fn is_sha256(digest: &str) -> bool {
    digest
        .strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// `bytes`' SHA-256 as an OCI digest: `sha256:` and 64 hex digits.
pub(crate) fn sha256_digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut digest = String::with_capacity(7 + 64);
    digest.push_str("sha256:");
    for byte in hash {
        digest.push_str(&format!("{byte:02x}"));
    }
    digest
}

impl Entry {
    /// Checks a component's bytes, and the manifest beside it, against this entry.
    pub(crate) fn verify(&self, component: &Path, bytes: &[u8]) -> Result<(), LockError> {
        self.compare("content", &self.sha256, Some(bytes))?;
        let Some(locked) = &self.manifest_sha256 else { return Ok(()) };
        let manifest = match read_regular_file(&super::manifest::path_for(component), MAX_MANIFEST_BYTES) {
            Ok(manifest) => Some(manifest),
            Err(error) if error.is_not_found() => None,
            Err(error) => return Err(unusable(&error)),
        };
        self.compare("manifest", locked, manifest.as_deref())
    }

    fn compare(&self, what: &'static str, locked: &str, bytes: Option<&[u8]>) -> Result<(), LockError> {
        let found = bytes.map_or_else(|| "no file".to_string(), sha256_digest);
        if found == locked {
            return Ok(());
        }
        Err(LockError::Mismatch { what, locked: locked.to_string(), found, reference: self.reference.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn the_digest_is_the_oci_form_of_sha256() {
        assert_eq!(sha256_digest(b"abc"), DIGEST);
    }

    #[test]
    fn a_lock_file_is_read_and_checked() {
        let text = format!(
            "version = 1\n[[component]]\nname = \"a\"\nreference = \"r/a:1\"\nsha256 = \"{DIGEST}\"\n\
             manifest-sha256 = \"{DIGEST}\"\n"
        );
        let entries = parse(text.as_bytes()).expect("a valid lock").component;
        assert_eq!(entries[0].manifest_sha256.as_deref(), Some(DIGEST));
        let pinned = format!("{text}[[document]]\nname = \"api\"\nurl = \"https://x\"\nsha256 = \"{DIGEST}\"\n");
        assert_eq!(parse(pinned.as_bytes()).expect("a valid lock").document[0].name, "api");
        let bad = format!("{text}[[document]]\nname = \"api\"\nurl = \"https://x\"\nsha256 = \"md5:1\"\n");
        assert!(parse(bad.as_bytes()).unwrap_err().to_string().contains("the document of 'api'"));
        let twice = format!("{text}[[component]]\nname = \"a\"\nreference = \"r/a:2\"\nsha256 = \"{DIGEST}\"\n");
        assert!(parse(twice.as_bytes()).unwrap_err().to_string().contains("it names 'a' twice"));
        let short = text.replace(DIGEST, "sha256:abc");
        assert!(parse(short.as_bytes()).unwrap_err().to_string().contains("not sha256: and 64 hex digits"));
        let later = text.replace("version = 1", "version = 2");
        assert!(parse(later.as_bytes()).unwrap_err().to_string().contains("this host reads version 1"));
        assert!(parse(b"\xff").unwrap_err().to_string().contains("not UTF-8"));
    }
}
