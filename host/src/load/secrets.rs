//! Secrets per component: `DIR/COMPONENT/NAME`, one private file (0600, in folders
//! only its user may enter) per secret, written by `toolhost secret set` and read at
//! each load, then again by a call that finds its component's folder changed
//! ([`SecretSource`]). A component's calls see its own secrets, and no other's, as
//! environment variables and through `wasi:config/store`; the host never writes their
//! values anywhere (see `sandbox::Secret`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::mutex::lock;
use crate::sandbox::{Secret, SecretCell, SecretSet, is_secret_name};
use crate::sys::{self, Owner};

/// The largest secret read: a key, a token, a certificate.
const MAX_SECRET_BYTES: u64 = 64 << 10;

/// A folder of secrets by component (see `HostBuilder::secrets_dir`).
///
/// ```no_run
/// use toolhost::SecretStore;
///
/// let store = SecretStore::new(SecretStore::default_dir());
/// store.set("weather", "API_KEY", "…")?;
/// assert!(store.list()?.contains(&("weather".to_string(), "API_KEY".to_string())));
/// # Ok::<(), toolhost::SecretError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SecretStore {
    dir: PathBuf,
}

/// Why a secret cannot be stored, listed or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    /// A component's or a secret's name that cannot name a file here.
    #[error("'{name}' cannot name a {what}: {rule}")]
    BadName {
        /// `component` or `secret`.
        what: &'static str,
        /// The name given.
        name: String,
        /// What a name may be.
        rule: &'static str,
    },
    /// An empty value.
    #[error("the value of the secret {component}/{name} is empty")]
    Empty {
        /// The component.
        component: String,
        /// The secret.
        name: String,
    },
    /// The folder or a file is not private to this user, or cannot be used.
    #[error("{0}")]
    Unusable(String),
}

const COMPONENT_RULE: &str = "use letters, digits, '_', '-' and '.', not starting with '.' (the component's file name)";
const SECRET_RULE: &str = "use letters, digits and '_', not starting with a digit (it becomes an environment variable)";

impl SecretStore {
    /// The secrets in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> SecretStore {
        SecretStore { dir: dir.into() }
    }

    /// `$TOOLHOST_SECRETS_DIR`, else `$XDG_CONFIG_HOME/toolhost/secrets`, else
    /// `~/.config/toolhost/secrets`.
    pub fn default_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("TOOLHOST_SECRETS_DIR") {
            return PathBuf::from(dir);
        }
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")));
        config.unwrap_or_else(|| PathBuf::from(".")).join("toolhost").join("secrets")
    }

    /// Its folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stores `value` as the secret `name` of `component` (replacing one there), in a
    /// file only this user may read.
    pub fn set(&self, component: &str, name: &str, value: &str) -> Result<(), SecretError> {
        check_names(component, name)?;
        if value.is_empty() {
            return Err(SecretError::Empty { component: component.into(), name: name.into() });
        }
        let folder = self.dir.join(component);
        for dir in [&self.dir, &folder] {
            sys::trusted_folder(dir, Owner::Me, true).map_err(|e| SecretError::Unusable(e.to_string()))?;
        }
        let path = folder.join(name);
        sys::write_private_atomically(&path, value.as_bytes())
            .map_err(|error| SecretError::Unusable(format!("cannot write {}: {error}", path.display())))
    }

    /// Every secret stored, as (component, name), sorted; never a value.
    pub fn list(&self) -> Result<Vec<(String, String)>, SecretError> {
        let mut found = Vec::new();
        for component in self.entries(&self.dir)? {
            if check_component(&component).is_ok() {
                let names = self.entries(&self.dir.join(&component))?;
                found.extend(
                    names.into_iter().filter(|name| check_secret(name).is_ok()).map(|n| (component.clone(), n)),
                );
            }
        }
        found.sort();
        Ok(found)
    }

    /// Removes the secret `name` of `component`: whether it was there.
    pub fn remove(&self, component: &str, name: &str) -> Result<bool, SecretError> {
        check_names(component, name)?;
        let path = self.dir.join(component).join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(SecretError::Unusable(format!("cannot remove {}: {error}", path.display()))),
        }
    }

    /// The secrets of `component`, read now, by name (none when it has no folder).
    pub(crate) fn read(&self, component: &str) -> Result<Vec<(String, Secret)>, SecretError> {
        let folder = self.dir.join(component);
        if check_component(component).is_err() || !folder.exists() {
            return Ok(Vec::new());
        }
        let mut secrets = Vec::new();
        for name in self.entries(&folder)? {
            if check_secret(&name).is_err() {
                continue;
            }
            let path = folder.join(&name);
            let missing = || Err(std::io::ErrorKind::NotFound.into());
            let bytes = sys::private_secret(&path, MAX_SECRET_BYTES, missing)
                .map_err(|error| SecretError::Unusable(error.to_string()))?;
            let value = String::from_utf8(bytes)
                .map_err(|_| SecretError::Unusable(format!("{} is not UTF-8 text", path.display())))?;
            secrets.push((name, Secret::new(value)));
        }
        secrets.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(secrets)
    }

    /// When `component`'s folder last changed (a secret set, replaced or removed).
    fn changed_at(&self, component: &str) -> Option<SystemTime> {
        std::fs::metadata(self.dir.join(component)).and_then(|folder| folder.modified()).ok()
    }

    /// The names in the private folder `dir` (none when it does not exist).
    fn entries(&self, dir: &Path) -> Result<Vec<String>, SecretError> {
        if !dir.exists() {
            return Ok(Vec::new());
        }
        sys::trusted_folder(dir, Owner::Me, false).map_err(|e| SecretError::Unusable(e.to_string()))?;
        let read = std::fs::read_dir(dir)
            .map_err(|error| SecretError::Unusable(format!("cannot read {}: {error}", dir.display())))?;
        Ok(read.filter_map(|entry| entry.ok()?.file_name().into_string().ok()).collect())
    }
}

/// Where one component's secrets come from — its folder in the store, then those given
/// in code or by the config, which win — and the cell its grants share: a call that
/// finds the folder changed since it was last read reads it again.
pub(crate) struct SecretSource {
    store: Option<SecretStore>,
    component: String,
    given: Vec<(String, Secret)>,
    /// The secrets its manifest needs.
    needed: Vec<String>,
    /// When the folder was last changed, as last seen (`None`: it was not there).
    seen: Mutex<Option<SystemTime>>,
    cell: SecretCell,
}

impl SecretSource {
    /// `component`'s secrets from `store` and `given`, read now.
    pub(crate) fn new(
        store: Option<SecretStore>,
        component: &str,
        given: Vec<(String, Secret)>,
        needed: Vec<String>,
    ) -> SecretSource {
        let seen = Mutex::new(store.as_ref().and_then(|store| store.changed_at(component)));
        let component = component.to_string();
        let mut source = SecretSource { store, component, given, needed, seen, cell: SecretCell::default() };
        source.cell = SecretCell::new(source.read());
        source
    }

    /// The cell its component's grants carry.
    pub(crate) fn cell(&self) -> SecretCell {
        self.cell.clone()
    }

    /// The secrets as they are set now: the folder is read again when it changed
    /// since it was last read (one `stat` a call otherwise).
    pub(crate) fn current(&self) -> Arc<SecretSet> {
        if let Some(store) = &self.store {
            let changed_at = store.changed_at(&self.component);
            let mut seen = lock(&self.seen);
            if *seen != changed_at {
                *seen = changed_at;
                self.cell.replace(self.read());
            }
        }
        self.cell.current()
    }

    /// The folder's secrets under those given, and which needed ones are missing.
    fn read(&self) -> SecretSet {
        let mut values = match self.store.as_ref().map(|store| store.read(&self.component)) {
            Some(Ok(values)) => values,
            Some(Err(error)) => {
                tracing::warn!("the secrets of {}: {error}", self.component);
                Vec::new()
            }
            None => Vec::new(),
        };
        values.retain(|(name, _)| !self.given.iter().any(|(other, _)| other == name));
        values.extend(self.given.iter().cloned());
        let missing = self.needed.iter().filter(|name| !values.iter().any(|(set, _)| set == *name)).cloned().collect();
        SecretSet { values, missing }
    }
}

fn check_names(component: &str, name: &str) -> Result<(), SecretError> {
    check_component(component)?;
    check_secret(name)
}

fn check_component(name: &str) -> Result<(), SecretError> {
    let fits = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    fits.then_some(()).ok_or_else(|| SecretError::BadName {
        what: "component",
        name: name.into(),
        rule: COMPONENT_RULE,
    })
}

fn check_secret(name: &str) -> Result<(), SecretError> {
    is_secret_name(name).then_some(()).ok_or_else(|| SecretError::BadName {
        what: "secret",
        name: name.into(),
        rule: SECRET_RULE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_set_listed_read_and_removed_in_private_files() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = SecretStore::new(dir.path().join("secrets"));
        store.set("weather", "API_KEY", "k-123").expect("set");
        store.set("weather", "API_KEY", "k-456").expect("set again");
        store.set("mail-1.2", "TOKEN", "t").expect("set");
        assert_eq!(
            store.list().expect("list"),
            [("mail-1.2".to_string(), "TOKEN".to_string()), ("weather".to_string(), "API_KEY".to_string())]
        );
        let read = store.read("weather").expect("read");
        assert_eq!(read.len(), 1);
        assert_eq!((read[0].0.as_str(), read[0].1.value()), ("API_KEY", "k-456"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |path: &Path| std::fs::metadata(path).expect("metadata").permissions().mode() & 0o777;
            assert_eq!(mode(&dir.path().join("secrets/weather/API_KEY")), 0o600);
            assert_eq!(mode(&dir.path().join("secrets/weather")), 0o700);
        }
        assert!(store.remove("weather", "API_KEY").expect("remove"));
        assert!(!store.remove("weather", "API_KEY").expect("remove again"));
        assert!(store.read("nobody").expect("read").is_empty());
    }

    #[test]
    fn names_that_are_no_file_or_variable_and_empty_values_are_refused() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = SecretStore::new(dir.path());
        for (component, name) in
            [("../x", "A"), (".hidden", "A"), ("a/b", "A"), ("ok", "1A"), ("ok", "A-B"), ("ok", "")]
        {
            assert!(matches!(store.set(component, name, "v"), Err(SecretError::BadName { .. })), "{component} {name}");
        }
        assert!(matches!(store.set("ok", "A", ""), Err(SecretError::Empty { .. })));
    }
}
