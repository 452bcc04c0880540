//! [`HostBuilder`]: where a host's plugins come from, where compiled components are
//! cached, the limits and grants calls run with, and how a component's own manifest
//! and the builder's settings combine.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

use super::snapshot::Snapshot;
use super::{Host, HostCore};
use crate::error::LoadError;
use crate::load::{self, Cache, Plugin, Progress};
use crate::runtime::Runtime;
use crate::sandbox::{DirGrant, Grants, HostPattern, HostPatternError, Limits};

/// Where compiled components are cached.
#[derive(Debug, Clone, Default)]
enum CacheSetting {
    #[default]
    Default,
    Dir(PathBuf),
    Off,
}

/// Configures and builds a [`Host`].
#[derive(Clone, Default)]
pub struct HostBuilder {
    pub(super) plugin_dirs: Vec<PathBuf>,
    pub(super) files: Vec<PathBuf>,
    cache: CacheSetting,
    limits: Limits,
    component_limits: HashMap<String, Limits>,
    grants: HashMap<String, Grants>,
    pub(super) progress: Option<Arc<Progress>>,
    watch: bool,
}

impl HostBuilder {
    /// Loads every `*.wasm` file in `dir` (may be given more than once).
    pub fn plugin_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugin_dirs.push(dir.into());
        self
    }

    /// Loads one component file.
    pub fn component_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.files.push(path.into());
        self
    }

    /// Keeps compiled components in `dir` (default: see [`HostBuilder::default_cache_dir`]).
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache = CacheSetting::Dir(dir.into());
        self
    }

    /// Compiles every component on every start.
    pub fn no_cache(mut self) -> Self {
        self.cache = CacheSetting::Off;
        self
    }

    /// The cache folder used when none is configured: `$TOOLHOST_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/toolhost`, else `~/.cache/toolhost`.
    pub fn default_cache_dir() -> PathBuf {
        load::default_dir()
    }

    /// The limits for every component without its own.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits for one component (by name: its file name without `.wasm`); these
    /// win over the component's manifest, which wins over [`HostBuilder::limits`].
    pub fn component_limits(mut self, component: &str, limits: Limits) -> Self {
        self.component_limits.insert(component.to_string(), limits);
        self
    }

    /// Lets `component` use the host directory `host_path`, seen as `guest_path`.
    pub fn grant_dir(
        mut self,
        component: &str,
        host_path: impl AsRef<Path>,
        guest_path: &str,
        read_only: bool,
    ) -> Self {
        let dir =
            DirGrant { host_path: host_path.as_ref().to_path_buf(), guest_path: guest_path.to_string(), read_only };
        self.grants.entry(component.to_string()).or_default().dirs.push(dir);
        self
    }

    /// Lets `component` see the environment variable `name` with `value`.
    pub fn grant_env(mut self, component: &str, name: &str, value: &str) -> Self {
        self.grants.entry(component.to_string()).or_default().env.push((name.to_string(), value.to_string()));
        self
    }

    /// Lets `component` send HTTP requests to hosts matching `pattern`
    /// (`api.example.com`, `*.example.com`, optionally with `:port`).
    ///
    /// # Errors
    /// When `pattern` is not a host pattern; the message says what to write.
    pub fn allow_http(mut self, component: &str, pattern: &str) -> Result<Self, HostPatternError> {
        let http = Grants { http_hosts: Arc::new([HostPattern::parse(pattern)?]), ..Grants::default() };
        self.grants.entry(component.to_string()).or_default().extend(&http);
        Ok(self)
    }

    /// Calls `progress(done, total, file_name)` as each component finishes loading
    /// (for a progress bar; compiling many components takes a while).
    pub fn on_progress(mut self, progress: impl Fn(usize, usize, &str) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(progress));
        self
    }

    /// Watches the plugin folders and reloads when files are added, replaced or
    /// removed (debounced, so a file still being copied is not loaded half-written).
    pub fn watch(mut self, watch: bool) -> Self {
        self.watch = watch;
        self
    }

    /// Loads the components. Fails only when a plugin folder or a named file cannot be
    /// read (or watched); a bad component is skipped with a warning in
    /// [`Host::load_report`].
    pub fn build(self) -> Result<Host, LoadError> {
        let runtime = Runtime::new()?;
        let cache = match &self.cache {
            CacheSetting::Default => Some(Cache::new(load::default_dir(), runtime.engine())),
            CacheSetting::Dir(dir) => Some(Cache::new(dir.clone(), runtime.engine())),
            CacheSetting::Off => None,
        };
        let watch = self.watch;
        let core = Arc::new(HostCore {
            runtime,
            settings: self,
            cache,
            current: ArcSwap::from_pointee(Snapshot::default()),
            reloading: Mutex::new(()),
            listeners: Mutex::new(Vec::new()),
            watcher: Mutex::new(None),
        });
        core.reload()?;
        if watch {
            HostCore::start_watching(&core)?;
        }
        Ok(Host { core, toolset: None })
    }

    /// A component's grants (its manifest's plus the builder's) and limits (the
    /// builder's per-component limits, else its manifest's over the defaults).
    pub(super) fn settings_for(&self, plugin: &Plugin) -> (Grants, Limits) {
        let mut grants = Grants::default();
        let mut limits = self.limits;
        if let Some(manifest) = &plugin.manifest {
            grants = manifest.grants(&plugin.folder);
            limits = manifest.limits(limits);
        }
        if let Some(extra) = self.grants.get(&*plugin.name) {
            grants.extend(extra);
        }
        let limits = self.component_limits.get(&*plugin.name).copied().unwrap_or(limits);
        (grants, limits)
    }
}
