//! [`Host`]: the library's entry point. It loads a plugin folder into a registry and
//! runs tool calls: resolve the name, bind the arguments, run the tool, convert back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::bind::bind_arguments;
use crate::cache::{self, Cache};
use crate::error::{LoadError, ToolError};
use crate::formats::ToolFormat;
use crate::invoke::{Target, invoke};
use crate::loader::{LoadReport, LoadedComponent, load_all, wasm_files};
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
    inner: Arc<Inner>,
    /// The active tools: all of them, or a toolset's.
    registry: Arc<Registry>,
}

struct Inner {
    runtime: Runtime,
    components: Vec<LoadedComponent>,
    settings: Vec<(Grants, Limits)>,
    report: LoadReport,
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
        }
    }

    /// Every active tool, sorted by name.
    pub fn tools(&self) -> Vec<&ToolSpec> {
        self.registry.specs().collect()
    }

    /// The active tool registered under exactly `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolSpec> {
        self.registry.spec(name)
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
        let registry = self.registry.subset(names)?;
        Ok(Host { inner: self.inner.clone(), registry: Arc::new(registry) })
    }

    /// Every active tool's definition in a model provider's format, as a JSON array.
    pub fn tool_definitions(&self, format: ToolFormat) -> Value {
        Value::Array(self.registry.specs().map(|spec| spec.definition(format)).collect())
    }

    /// What loading did: components loaded (compiled or cached) and warnings.
    pub fn load_report(&self) -> &LoadReport {
        &self.inner.report
    }

    /// The grants and limits a component's calls run with, by component name.
    pub fn component_settings(&self, component: &str) -> Option<(&Grants, &Limits)> {
        let index = self.inner.components.iter().position(|c| &*c.name == component)?;
        let (grants, limits) = &self.inner.settings[index];
        Some((grants, limits))
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
        let resolved = match self.registry.resolve(name) {
            Ok(resolved) => resolved,
            Err(error) => return Dispatch { tool: None, repaired_from: None, result: Err(error) },
        };
        let result = self.run(resolved.tool, &resolved.name, arguments);
        Dispatch { tool: Some(resolved.name), repaired_from: resolved.repaired_from, result }
    }

    fn run(&self, tool: ToolRef, name: &str, arguments: Arguments<'_>) -> Result<Value, ToolError> {
        let inner = &*self.inner;
        let component = &inner.components[tool.component];
        let found = &component.tools[tool.tool];
        let spec = self.registry.spec(name).unwrap_or(&found.spec);
        let parsed;
        let arguments = match arguments {
            Arguments::Json(value) => value,
            Arguments::Text(text) => {
                parsed = spec.parse_arguments(text)?;
                &parsed
            }
        };
        let args = bind_arguments(spec, arguments)?;
        let (grants, limits) = &inner.settings[tool.component];
        let target = Target {
            tool: name,
            component: &component.name,
            pre: &component.pre,
            export: &found.export,
            result: found.spec.result.as_ref(),
            grants,
            limits,
        };
        invoke(&inner.runtime, &target, &args)
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
    pub fn grant_dir(mut self, component: &str, host_path: impl AsRef<Path>, guest_path: &str, read_only: bool) -> Self {
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

    /// Calls `progress(done, total, file_name)` as each component finishes loading
    /// (for a progress bar; compiling many components takes a while).
    pub fn on_progress(mut self, progress: impl Fn(usize, usize, &str) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(progress));
        self
    }

    /// Loads the components. Fails only when a plugin folder or a named file cannot be
    /// read; a bad component is skipped with a warning in [`Host::load_report`].
    pub fn build(self) -> Result<Host, LoadError> {
        let runtime = Runtime::new()?;
        let mut files = self.files.clone();
        for path in &files {
            if !path.is_file() {
                return Err(LoadError::Read {
                    path: path.clone(),
                    error: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
                });
            }
        }
        for dir in &self.plugin_dirs {
            files.extend(wasm_files(dir)?);
        }
        let cache = match &self.cache {
            CacheSetting::Default => Some(Cache::new(cache::default_dir(), runtime.engine())),
            CacheSetting::Dir(dir) => Some(Cache::new(dir.clone(), runtime.engine())),
            CacheSetting::Off => None,
        };
        let (components, report) = load_all(&runtime, &files, cache.as_ref(), self.progress.as_deref());
        let settings = components.iter().map(|c| self.settings_for(c)).collect();
        let registry = Registry::new(components.iter().enumerate().flat_map(|(component, loaded)| {
            loaded.tools.iter().enumerate().map(move |(tool, found)| (found.spec.clone(), ToolRef { component, tool }))
        }));
        Ok(Host { inner: Arc::new(Inner { runtime, components, settings, report }), registry: Arc::new(registry) })
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
        }
        let limits = self.component_limits.get(&*component.name).copied().unwrap_or(limits);
        (grants, limits)
    }
}
