//! [`Host`]: the library's entry point. It loads a plugin folder into a registry and
//! runs tool calls: resolve the name, bind the arguments, run the tool, convert back.
//! Reloading (by [`Host::reload`] or a folder watcher) builds a new registry off the
//! calling path and swaps it in whole: a call sees the old one or the new one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use arc_swap::ArcSwap;
use serde_json::Value;

use crate::bind::bind_arguments;
use crate::cache::{self, Cache};
use crate::error::{LoadError, ToolError};
use crate::formats::ToolFormat;
use crate::invoke::{Target, invoke};
use crate::loader::{ComponentLoad, LoadReport, LoadedComponent, fingerprint, load_many, wasm_files};
use crate::network::{HostPattern, HostPatternError};
use crate::registry::{Registry, ToolRef, ToolsetError};
use crate::runtime::Runtime;
use crate::sandbox::{DirGrant, Grants, Limits};
use crate::spec::ToolSpec;

/// A registry of sandboxed tools loaded from WebAssembly components.
///
/// ```no_run
/// use serde_json::json;
///
/// let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
/// for tool in host.tools() {
///     println!("{}: {}", tool.name, tool.description);
/// }
/// match host.call("evaluate", &json!({ "expression": "2 * (3 + 4)" })) {
///     Ok(value) => println!("result: {value}"),
///     Err(error) => println!("tell the model: {error}"),
/// }
/// # Ok::<(), toolhost::LoadError>(())
/// ```
///
/// A `Host` is cheap to clone: clones share the loaded components. Calls may run
/// from many threads at once; each runs in its own fresh instance.
#[derive(Clone)]
pub struct Host {
    shared: Arc<Shared>,
    /// The names a toolset restricts this host to, with the registry last derived.
    toolset: Option<Arc<Toolset>>,
}

/// What every clone of a host shares.
struct Shared {
    runtime: Runtime,
    config: HostBuilder,
    cache: Option<Cache>,
    state: ArcSwap<State>,
    /// Serialises reloads (a watcher's and explicit ones).
    reloading: Mutex<()>,
    listeners: Mutex<Vec<Box<dyn Fn() + Send + Sync>>>,
    watcher: Mutex<Option<notify_debouncer_mini::Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>>>,
}

/// One version of the loaded plugins; replaced whole on reload.
struct State {
    generation: u64,
    components: Vec<Arc<LoadedComponent>>,
    settings: Vec<(Grants, Limits)>,
    /// Where each component came from, and which version of the file it is.
    sources: Vec<(PathBuf, [u8; 32])>,
    registry: Arc<Registry>,
    report: LoadReport,
}

/// A toolset: its names, and its registry for the newest state it has seen.
struct Toolset {
    names: Vec<String>,
    derived: Mutex<(u64, Arc<Registry>)>,
}

/// What a call did: which tool ran (after any repair) and its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    /// The registered name of the tool that ran, if the name resolved.
    pub tool: Option<String>,
    /// The name the model sent, when it was repaired into `tool`.
    pub repaired_from: Option<String>,
    /// The tool's result as JSON, or the corrective error.
    pub result: Result<Value, ToolError>,
}

/// Where compiled components are cached.
#[derive(Debug, Clone)]
enum CacheSetting {
    Default,
    Dir(PathBuf),
    Off,
}

/// Called after each component loads: (done, total, component file name).
type Progress = Arc<dyn Fn(usize, usize, &str) + Send + Sync>;

/// Configures and builds a [`Host`].
#[derive(Clone)]
pub struct HostBuilder {
    plugin_dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
    cache: CacheSetting,
    limits: Limits,
    component_limits: HashMap<String, Limits>,
    grants: HashMap<String, Grants>,
    progress: Option<Progress>,
    watch: bool,
}

impl Host {
    /// Starts configuring a host.
    pub fn builder() -> HostBuilder {
        HostBuilder {
            plugin_dirs: Vec::new(),
            files: Vec::new(),
            cache: CacheSetting::Default,
            limits: Limits::default(),
            component_limits: HashMap::new(),
            grants: HashMap::new(),
            progress: None,
            watch: false,
        }
    }

    /// Every active tool, sorted by name.
    pub fn tools(&self) -> Vec<ToolSpec> {
        self.registry().specs().cloned().collect()
    }

    /// The active tool registered under exactly `name`.
    pub fn tool(&self, name: &str) -> Option<ToolSpec> {
        self.registry().spec(name).cloned()
    }

    /// The active registry of the current state.
    fn registry(&self) -> Arc<Registry> {
        self.registry_in(&self.shared.state.load())
    }

    fn registry_in(&self, state: &State) -> Arc<Registry> {
        let Some(toolset) = &self.toolset else {
            return state.registry.clone();
        };
        let mut derived = toolset.derived.lock().unwrap_or_else(|p| p.into_inner());
        if derived.0 != state.generation {
            // Names no longer present after a reload are simply not active.
            let present: Vec<&String> = toolset.names.iter().filter(|n| state.registry.spec(n).is_some()).collect();
            let subset = state.registry.subset(&present).unwrap_or_default();
            *derived = (state.generation, Arc::new(subset));
        }
        derived.1.clone()
    }

    /// A host whose active tools are only `names` (a toolset): resolution, repair,
    /// hints and the inventory see nothing else. It shares this host's components.
    /// Each name must be a tool's name or repair to exactly one; a typo fails here,
    /// with a hint, rather than at the first call.
    ///
    /// ```no_run
    /// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
    /// let math = host.toolset(&["evaluate", "gcd"])?;
    /// assert_eq!(math.tools().len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn toolset<S: AsRef<str>>(&self, names: &[S]) -> Result<Host, ToolsetError> {
        let state = self.shared.state.load();
        let registry = self.registry_in(&state).subset(names)?;
        let names = registry.names();
        let toolset = Toolset { names, derived: Mutex::new((state.generation, Arc::new(registry))) };
        Ok(Host { shared: self.shared.clone(), toolset: Some(Arc::new(toolset)) })
    }

    /// Every active tool's definition in a model provider's format, as a JSON array.
    pub fn tool_definitions(&self, format: ToolFormat) -> Value {
        Value::Array(self.registry().specs().map(|spec| spec.definition(format)).collect())
    }

    /// What the last load or reload did: components loaded (compiled or cached) and warnings.
    pub fn load_report(&self) -> LoadReport {
        self.shared.state.load().report.clone()
    }

    /// The grants and limits a component's calls run with, by component name.
    pub fn component_settings(&self, component: &str) -> Option<(Grants, Limits)> {
        let state = self.shared.state.load();
        let index = state.components.iter().position(|c| &*c.name == component)?;
        Some(state.settings[index].clone())
    }

    /// Rescans the plugin folders: new files are loaded, changed ones (or ones whose
    /// manifest changed) reloaded, removed ones dropped; unchanged ones are kept as
    /// they are. A file that fails to load leaves its previous version in service.
    /// The new registry replaces the old one whole; calls already running finish on
    /// the version they started with. Returns whether anything changed.
    pub fn reload(&self) -> Result<bool, LoadError> {
        self.shared.reload()
    }

    /// Calls `listener` after every reload that changed the plugins (e.g. to tell an
    /// MCP client that the tool list changed).
    pub fn on_change(&self, listener: impl Fn() + Send + Sync + 'static) {
        self.shared.listeners.lock().unwrap_or_else(|p| p.into_inner()).push(Box::new(listener));
    }

    /// Calls a tool by the name a model sent, with the model's arguments.
    pub fn call(&self, name: &str, arguments: &Value) -> Result<Value, ToolError> {
        self.dispatch(name, arguments).result
    }

    /// Calls a tool with the argument text a model produced: strict JSON, or failing
    /// that, JSON with the usual model slips repaired (see [`Host::dispatch_text`]).
    pub fn call_text(&self, name: &str, arguments: &str) -> Result<Value, ToolError> {
        self.dispatch_text(name, arguments).result
    }

    /// Like [`Host::dispatch`], for argument text: parsed strictly, else repaired
    /// conservatively (code fences, trailing commas, single quotes, unquoted keys,
    /// missing closing brackets); unrepairable text is an error quoting where it broke.
    pub fn dispatch_text(&self, name: &str, arguments: &str) -> Dispatch {
        self.dispatch_with(name, Arguments::Text(arguments))
    }

    /// [`Host::call`] for async code: the call runs on tokio's blocking pool, so the
    /// executor is never blocked by a tool. Needs a tokio runtime.
    pub async fn call_async(&self, name: &str, arguments: Value) -> Result<Value, ToolError> {
        self.dispatch_async(name, arguments).await.result
    }

    /// [`Host::dispatch`] for async code (see [`Host::call_async`]).
    pub async fn dispatch_async(&self, name: &str, arguments: Value) -> Dispatch {
        let host = self.clone();
        let owned_name = name.to_string();
        match tokio::task::spawn_blocking(move || host.dispatch(&owned_name, &arguments)).await {
            Ok(dispatch) => dispatch,
            Err(join_error) => Dispatch {
                tool: None,
                repaired_from: None,
                result: Err(ToolError::Unavailable {
                    tool: name.to_string(),
                    reason: format!("the call did not finish: {join_error}"),
                }),
            },
        }
    }

    /// Like [`Host::call`], but also says which tool ran and how the name was repaired.
    pub fn dispatch(&self, name: &str, arguments: &Value) -> Dispatch {
        self.dispatch_with(name, Arguments::Json(arguments))
    }

    fn dispatch_with(&self, name: &str, arguments: Arguments<'_>) -> Dispatch {
        // One state for the whole call: a reload meanwhile does not affect it.
        let state = self.shared.state.load_full();
        let registry = self.registry_in(&state);
        let resolved = match registry.resolve(name) {
            Ok(resolved) => resolved,
            Err(error) => {
                return Dispatch { tool: None, repaired_from: None, result: Err(error) };
            }
        };
        let result = self.run(&state, &registry, resolved.tool, &resolved.name, arguments);
        Dispatch { tool: Some(resolved.name), repaired_from: resolved.repaired_from, result }
    }

    fn run(
        &self,
        state: &State,
        registry: &Registry,
        tool: ToolRef,
        name: &str,
        arguments: Arguments<'_>,
    ) -> Result<Value, ToolError> {
        let component = &state.components[tool.component];
        let found = &component.tools[tool.tool];
        let spec = registry.spec(name).unwrap_or(&found.spec);
        let parsed;
        let arguments = match arguments {
            Arguments::Json(value) => value,
            Arguments::Text(text) => {
                parsed = spec.parse_arguments(text)?;
                &parsed
            }
        };
        let args = bind_arguments(spec, arguments)?;
        let (grants, limits) = &state.settings[tool.component];
        let target = Target {
            tool: name,
            component: &component.name,
            pre: &component.pre,
            export: &found.export,
            result: found.spec.result.as_ref(),
            grants,
            limits,
        };
        invoke(&self.shared.runtime, &target, &args)
    }
}

/// Arguments as given: a JSON value, or the text a model wrote.
#[derive(Clone, Copy)]
enum Arguments<'a> {
    Json(&'a Value),
    Text(&'a str),
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
        cache::default_dir()
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
        self.grants.entry(component.to_string()).or_default().dirs.push(DirGrant {
            host_path: host_path.as_ref().to_path_buf(),
            guest_path: guest_path.to_string(),
            read_only,
        });
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
        let pattern = HostPattern::parse(pattern)?;
        let grants = self.grants.entry(component.to_string()).or_default();
        grants.http_hosts = grants.http_hosts.iter().cloned().chain([pattern]).collect();
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
    /// read; a bad component is skipped with a warning in [`Host::load_report`].
    pub fn build(self) -> Result<Host, LoadError> {
        let runtime = Runtime::new()?;
        let cache = match &self.cache {
            CacheSetting::Default => Some(Cache::new(cache::default_dir(), runtime.engine())),
            CacheSetting::Dir(dir) => Some(Cache::new(dir.clone(), runtime.engine())),
            CacheSetting::Off => None,
        };
        let empty = State {
            generation: 0,
            components: Vec::new(),
            settings: Vec::new(),
            sources: Vec::new(),
            registry: Arc::new(Registry::default()),
            report: LoadReport::default(),
        };
        let watch = self.watch;
        let shared = Arc::new(Shared {
            runtime,
            config: self,
            cache,
            state: ArcSwap::from_pointee(empty),
            reloading: Mutex::new(()),
            listeners: Mutex::new(Vec::new()),
            watcher: Mutex::new(None),
        });
        shared.reload()?;
        if watch {
            Shared::start_watching(&shared)?;
        }
        Ok(Host { shared, toolset: None })
    }

    /// A component's grants (its manifest's plus the builder's) and limits (the
    /// builder's per-component limits, else its manifest's over the defaults).
    fn settings_for(&self, component: &LoadedComponent) -> (Grants, Limits) {
        let mut grants = Grants::default();
        let mut limits = self.limits;
        if let Some(manifest) = &component.manifest {
            grants = manifest.grants(&component.folder);
            limits = manifest.limits(limits);
        }
        if let Some(extra) = self.grants.get(&*component.name) {
            grants.dirs.extend(extra.dirs.iter().cloned());
            grants.env.extend(extra.env.iter().cloned());
            grants.http_hosts = grants.http_hosts.iter().chain(extra.http_hosts.iter()).cloned().collect();
        }
        let limits = self.component_limits.get(&*component.name).copied().unwrap_or(limits);
        (grants, limits)
    }
}

impl Shared {
    /// The component files to load: the named ones, then each folder's `*.wasm`.
    fn files(&self) -> Result<Vec<PathBuf>, LoadError> {
        let mut files = Vec::new();
        for path in &self.config.files {
            if !path.is_file() {
                let error = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
                return Err(LoadError::Read { path: path.clone(), error });
            }
            files.push(path.clone());
        }
        for dir in &self.config.plugin_dirs {
            files.extend(wasm_files(dir)?);
        }
        Ok(files)
    }

    fn reload(&self) -> Result<bool, LoadError> {
        let _one_at_a_time = self.reloading.lock().unwrap_or_else(|p| p.into_inner());
        let old = self.state.load_full();
        let files = self.files()?;
        let versions: Vec<(PathBuf, Option<[u8; 32]>)> = files.iter().map(|f| (f.clone(), fingerprint(f))).collect();
        let unchanged = |path: &Path, version: &Option<[u8; 32]>| {
            old.sources.iter().position(|(p, v)| p == path && Some(*v) == *version)
        };
        if old.generation > 0
            && versions.len() == old.sources.len()
            && versions.iter().all(|(path, version)| unchanged(path, version).is_some())
        {
            return Ok(false);
        }
        let to_load: Vec<PathBuf> =
            versions.iter().filter(|(p, v)| unchanged(p, v).is_none()).map(|(p, _)| p.clone()).collect();
        let mut fresh =
            load_many(&self.runtime, &to_load, self.cache.as_ref(), self.config.progress.as_deref()).into_iter();

        let mut components = Vec::new();
        let mut sources = Vec::new();
        let mut report = LoadReport::default();
        for (path, version) in &versions {
            if let Some(index) = unchanged(path, version) {
                components.push(old.components[index].clone());
                sources.push(old.sources[index].clone());
                report.components.push(ComponentLoad { compiled: false, ..old_load(&old, index) });
                continue;
            }
            match fresh.next().expect("one outcome per file loaded") {
                Ok((component, load, warnings)) => {
                    report.warnings.extend(warnings);
                    report.components.push(load);
                    components.push(Arc::new(component));
                    sources.push((path.clone(), version.unwrap_or_default()));
                }
                Err(error) => match old.sources.iter().position(|(p, _)| p == path) {
                    Some(index) => {
                        report.warnings.push(format!("kept the previous version: {error}"));
                        components.push(old.components[index].clone());
                        sources.push(old.sources[index].clone());
                        report.components.push(old_load(&old, index));
                    }
                    None => report.warnings.push(format!("skipped {error}")),
                },
            }
        }
        for warning in &report.warnings {
            tracing::warn!("{warning}");
        }
        let settings = components.iter().map(|c| self.config.settings_for(c)).collect();
        let registry = Registry::new(components.iter().enumerate().flat_map(|(component, loaded)| {
            loaded.tools.iter().enumerate().map(move |(tool, found)| (found.spec.clone(), ToolRef { component, tool }))
        }));
        let generation = old.generation + 1;
        self.state.store(Arc::new(State {
            generation,
            components,
            settings,
            sources,
            registry: Arc::new(registry),
            report,
        }));
        if generation > 1 {
            tracing::info!("plugins reloaded (version {generation})");
            for listener in self.listeners.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                listener();
            }
        }
        Ok(true)
    }

    /// Starts a debounced watcher on the plugin folders that reloads on any change.
    fn start_watching(shared: &Arc<Shared>) -> Result<(), LoadError> {
        use notify_debouncer_mini::notify::RecursiveMode;
        let weak: Weak<Shared> = Arc::downgrade(shared);
        let handler = move |events: notify_debouncer_mini::DebounceEventResult| {
            let Some(shared) = weak.upgrade() else { return };
            match events {
                Ok(_) => {
                    if let Err(error) = shared.reload() {
                        tracing::warn!("reload after a change in the plugin folder failed: {error}");
                    }
                }
                Err(error) => tracing::warn!("watching the plugin folder: {error}"),
            }
        };
        let mut debouncer = notify_debouncer_mini::new_debouncer(WATCH_DEBOUNCE, handler)
            .map_err(|e| LoadError::Engine(format!("cannot watch the plugin folder: {e}")))?;
        for dir in &shared.config.plugin_dirs {
            debouncer
                .watcher()
                .watch(dir, RecursiveMode::NonRecursive)
                .map_err(|e| LoadError::Engine(format!("cannot watch {}: {e}", dir.display())))?;
        }
        *shared.watcher.lock().unwrap_or_else(|p| p.into_inner()) = Some(debouncer);
        Ok(())
    }
}

/// How long a plugin folder must be quiet before a change is loaded.
const WATCH_DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(300);

/// The load record of a component kept from the previous state.
fn old_load(old: &State, index: usize) -> ComponentLoad {
    let component = &old.components[index];
    old.report.components.iter().find(|c| c.name == *component.name).cloned().unwrap_or(ComponentLoad {
        name: component.name.to_string(),
        path: old.sources[index].0.clone(),
        tools: component.tools.len(),
        compiled: false,
        elapsed: std::time::Duration::ZERO,
    })
}
