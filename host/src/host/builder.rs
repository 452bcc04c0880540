//! [`HostBuilder`]: where a host's plugins come from, where compiled components are
//! cached, the limits and grants calls run with, and how a component's own manifest
//! and the builder's settings combine.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

use super::servers::Servers;
use super::snapshot::Snapshot;
use super::{Host, HostCore};
use crate::error::LoadError;
use crate::invoke::Warmer;
use crate::load::{self, Cache, CacheError, Plugin, Progress, SecretSource, SecretStore};
use crate::policy::{Approval, Asking, Policies, Policy, PolicyComponent, PolicyScope, PolicySetting};
use crate::runtime::{Capacity, Compiler, Prewarm, Runtime};
use crate::sandbox::{DirGrant, Grants, HttpHostPattern, HttpHostPatternError, Limits, Secret};
use crate::tool::ToolAnnotations;

/// Where compiled components are cached.
#[derive(Debug, Clone, Default)]
enum CacheSetting {
    #[default]
    Default,
    Dir(PathBuf),
    Shared(PathBuf),
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
    pub(super) max_component_bytes: Option<u64>,
    capacity: Capacity,
    prewarm: Prewarm,
    pub(super) compiler: Compiler,
    /// The policies, in chain order.
    policies: Vec<PolicySetting>,
    /// Which tools a person approves before each call.
    approval: Approval,
    /// Where the components' secrets are kept.
    secrets: Option<SecretStore>,
    /// Secrets given in code (the config's), by component.
    secret_values: HashMap<String, Vec<(String, Secret)>>,
    /// Ranks searches by meaning too (the `semantic` feature).
    #[cfg(feature = "semantic")]
    pub(super) embedding: Option<Arc<crate::search::EmbeddingModel>>,
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
    ///
    /// A compiled component is native code the host runs outside the sandbox, so the
    /// folder must be private: owned by this user, writable by no one else, not a
    /// symbolic link (it is made 0700 when missing, entries 0600). Entries are bound to
    /// the exact component bytes and engine they were compiled from and authenticated
    /// with a key kept in the folder (0600), so an entry swapped, planted or copied from
    /// elsewhere is never run: it is compiled again. A folder that is not private is
    /// not used (a warning in [`Host::load_report`] says why).
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache = CacheSetting::Dir(dir.into());
        self
    }

    /// Reads compiled components from a shared, read-only, pre-populated cache in
    /// `dir` (for instance one folder mounted read-only into many containers), and
    /// never writes to it.
    ///
    /// Its trust model differs from [`HostBuilder::cache_dir`]'s: the host cannot read
    /// the key of a cache another user populated, so it checks each entry against the
    /// component's bytes, the engine and a checksum, and trusts whoever can write the
    /// folder. The folder may belong to another user (who populated it, by running the
    /// host with it as its `cache_dir`) but must be writable by its owner alone; choose
    /// one only if you trust that owner with running code in this host.
    pub fn shared_cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache = CacheSetting::Shared(dir.into());
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
    pub fn allow_http(mut self, component: &str, pattern: &str) -> Result<Self, HttpHostPatternError> {
        let http = Grants { http_hosts: Arc::new([HttpHostPattern::parse(pattern)?]), ..Grants::default() };
        self.grants.entry(component.to_string()).or_default().extend(&http);
        Ok(self)
    }

    /// Calls `progress(done, total, file_name)` as each component finishes loading
    /// (for a progress bar; compiling many components takes a while).
    pub fn on_progress(mut self, progress: impl Fn(usize, usize, &str) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(progress));
        self
    }

    /// How many calls run at once, and how many may wait for a turn, for how long (see
    /// [`Capacity`] for the defaults). A call that gets no turn fails with
    /// [`ToolError::Busy`](crate::ToolError::Busy), a message saying that retrying later
    /// can help.
    pub fn capacity(mut self, capacity: Capacity) -> Self {
        self.capacity = capacity;
        self
    }

    /// How many instances are made before their call arrives (see [`Prewarm`] for the
    /// defaults): a call then finds its instance ready, and its teardown happens
    /// after it too, on a thread of the host's. Each instance still serves exactly one
    /// call. `Prewarm { per_component: 0, .. }` makes every instance when its call comes.
    pub fn prewarm(mut self, prewarm: Prewarm) -> Self {
        self.prewarm = prewarm;
        self
    }

    /// Ranks tool searches ([`Host::search_tools`], a disclosing host's finder, a
    /// budget's task) by meaning as well as by words: `model` embeds each tool's text
    /// and each query, and the two rankings are fused. The tools are embedded on a
    /// thread of the host's own after each load (a reload embeds only what changed),
    /// and their vectors kept in the cache folder, so that a later start embeds only
    /// what it has not met before; until they are made, searches rank by words alone
    /// ([`Host::embed_tools`] makes them at once).
    #[cfg(feature = "semantic")]
    pub fn embedding_model(mut self, model: crate::search::EmbeddingModel) -> Self {
        self.embedding = Some(Arc::new(model));
        self
    }

    /// Which compiler makes the native code of a component the cache has none for
    /// (default [`Compiler::Auto`]: a large component serves at once on baseline code,
    /// and optimized code replaces it when the background compiler is done).
    pub fn compiler(mut self, compiler: Compiler) -> Self {
        self.compiler = compiler;
        self
    }

    /// The largest component file loaded (default 256 MiB); a larger one is skipped
    /// with a warning, without being read.
    pub fn max_component_bytes(mut self, bytes: u64) -> Self {
        self.max_component_bytes = Some(bytes);
        self
    }

    /// Watches the plugin folders and reloads when files are added, replaced or
    /// removed (debounced, so a file still being copied is not loaded half-written).
    pub fn watch(mut self, watch: bool) -> Self {
        self.watch = watch;
        self
    }

    /// Chains `policy` (named `name` in messages and logs) after the policies given
    /// before it, for the calls `scope` chooses. See [`Policy`].
    pub fn policy(mut self, name: &str, policy: impl Policy + 'static, scope: PolicyScope) -> Self {
        self.policies.push(PolicySetting::native(name, Arc::new(policy), scope));
        self
    }

    /// Chains a policy component (see [`PolicyComponent`]) after the policies given
    /// before it. A policy that cannot be loaded fails [`HostBuilder::build`].
    pub fn policy_component(mut self, component: PolicyComponent) -> Self {
        self.policies.push(PolicySetting::component(component));
        self
    }

    /// Which tools a person must approve before each call (none unless set; see
    /// [`Approval`]). A pattern that does not read fails [`HostBuilder::build`].
    pub fn approval(mut self, approval: Approval) -> Self {
        self.approval = approval;
        self
    }

    /// Gives each component the secrets kept for it in `dir` (`DIR/COMPONENT/NAME`,
    /// private files; see [`SecretStore`]) as environment variables of its calls
    /// alone and through `wasi:config/store`; their values are taken out of the log
    /// lines, captured output and error messages of its calls. The folder is read at
    /// each load, and again by a call that finds its component's folder changed, so a
    /// secret set while the host runs is used from the next call on.
    pub fn secrets_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.secrets = Some(SecretStore::new(dir));
        self
    }

    /// Gives `component` the secret `name` with `value` (over one of the same name in
    /// [`HostBuilder::secrets_dir`]), as that does.
    pub fn secret(mut self, component: &str, name: &str, value: &str) -> Self {
        let secrets = self.secret_values.entry(component.to_string()).or_default();
        secrets.retain(|(given, _)| given != name);
        secrets.push((name.to_string(), Secret::new(value.to_string())));
        self
    }

    /// Loads the components. Fails only when a plugin folder or a named file cannot be
    /// read (or watched), or a policy cannot be used; a bad component is skipped with
    /// a warning in [`Host::load_report`].
    pub fn build(self) -> Result<Host, LoadError> {
        let runtime = Runtime::new(self.capacity)?;
        let (cache, standing_warnings) = match self.open_cache(&runtime) {
            Ok(cache) => (cache, Vec::new()),
            Err(error) => (None, vec![error.to_string()]),
        };
        let watch = self.watch;
        let warmer = Warmer::start(&runtime, self.prewarm);
        let policies = Policies::new(&runtime, &warmer, cache.as_ref(), &self.policies)?;
        let approval =
            Asking::new(&self.approval).map_err(|reason| LoadError::Policy { name: "approval".into(), reason })?;
        #[cfg(feature = "semantic")]
        let embedder = self.embedding.as_ref().map(|model| {
            if let Some(cache) = &cache {
                model.keep_vectors_in(cache.dir(), cache.is_private());
            }
            super::embedder::Embedder::start(model.clone())
        });
        let core = Arc::new(HostCore {
            runtime,
            warmer,
            settings: self,
            cache,
            standing_warnings,
            current: ArcSwap::from_pointee(Snapshot::default()),
            // Without the `mcp-servers` feature, `Servers` is a unit struct.
            #[allow(clippy::default_constructed_unit_structs)]
            servers: Servers::default(),
            reloading: Mutex::new(()),
            listeners: Mutex::new(Vec::new()),
            watcher: Mutex::new(None),
            optimizer: Default::default(),
            policies,
            approval,
            #[cfg(feature = "semantic")]
            embedder,
        });
        core.reload()?;
        if watch {
            HostCore::start_watching(&core)?;
        }
        Ok(Host { core, toolset: None, disclosure: None, profile: None })
    }

    /// The cache as configured, or why it cannot be used.
    fn open_cache(&self, runtime: &Runtime) -> Result<Option<Cache>, CacheError> {
        let engine = runtime.engine();
        match &self.cache {
            CacheSetting::Default => Cache::private(load::default_dir(), engine).map(Some),
            CacheSetting::Dir(dir) => Cache::private(dir.clone(), engine).map(Some),
            CacheSetting::Shared(dir) => Cache::shared(dir.clone(), engine).map(Some),
            CacheSetting::Off => Ok(None),
        }
    }

    /// The limits of a call that nothing more specific sets (an MCP server's calls).
    pub(super) fn default_limits(&self) -> Limits {
        self.limits
    }

    /// The largest component file loaded.
    pub(super) fn component_limit(&self) -> u64 {
        self.max_component_bytes.unwrap_or(load::DEFAULT_MAX_COMPONENT_BYTES)
    }

    /// A component's grants (its manifest's plus the builder's, with its secrets)
    /// and limits (the builder's per-component limits, else its manifest's over the
    /// defaults), and where its secrets come from.
    pub(super) fn settings_for(&self, plugin: &Plugin) -> (Grants, Limits, SecretSource) {
        let mut grants = Grants::default();
        let mut limits = self.limits;
        if let Some(manifest) = &plugin.manifest {
            grants = manifest.grants(&plugin.folder);
            limits = manifest.limits(limits);
        }
        if let Some(extra) = self.grants.get(&*plugin.name) {
            grants.extend(extra);
        }
        let secrets = self.secrets_for(plugin);
        grants.secrets = secrets.cell();
        let limits = self.component_limits.get(&*plugin.name).copied().unwrap_or(limits);
        (grants, limits, secrets)
    }

    /// `plugin`'s secrets: its folder's, then those given in code; and those its
    /// manifest needs.
    fn secrets_for(&self, plugin: &Plugin) -> SecretSource {
        let given = self.secret_values.get(&*plugin.name).cloned().unwrap_or_default();
        let needed = plugin.manifest.as_ref().map(|manifest| manifest.secrets.clone()).unwrap_or_default();
        SecretSource::new(self.secrets.clone(), &plugin.name, given, needed)
    }
}

/// Puts on each of `plugin`'s tools the hints its grants allow: nothing writable and no
/// network is read-only and closed-world; the manifest's claims only narrow.
pub(super) fn annotate(plugin: &mut Plugin, grants: &Grants) {
    let writes = grants.dirs.iter().any(|dir| !dir.read_only);
    let network = !grants.http_hosts.is_empty();
    for tool in &mut plugin.tools {
        tool.spec.annotations = ToolAnnotations::from_grants(tool.spec.annotations, writes, network);
    }
}
