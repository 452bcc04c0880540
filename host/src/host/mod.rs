//! [`Host`]: the library's entry point, over every stage of a call. It holds the
//! loaded plugins as a snapshot (`snapshot.rs`), built and replaced whole by a reload
//! (`reload.rs`), configured by [`HostBuilder`] (`builder.rs`), and runs each call:
//! resolve the name, bind the arguments, invoke the tool, return the outcome.

mod builder;
mod disclose;
#[cfg(feature = "semantic")]
mod embedder;
mod offers;
mod optimize;
mod profile;
mod reload;
mod request;
mod servers;
mod snapshot;

use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use serde_json::Value;

pub use builder::HostBuilder;
pub use disclose::{CALLER_NAME, Definitions, DefinitionsRequest, Disclosure, FINDER_NAME};
pub use profile::Profile;
pub use request::CallRequest;

use crate::error::{LoadError, ToolError};
use crate::extract::{ExtractedCall, Extraction, extract};
use crate::invoke::{PrewarmState, Warmer};
use crate::load::{Cache, LoadReport};
use crate::mutex::lock;
/// Why a toolset could not be made (the faces name it by this stage's path).
pub(crate) use crate::resolve::{Registry, ToolsetError};
use crate::resolve::{Resolved, Toolset};
use crate::runtime::Runtime;
use crate::sandbox::{CallObserver, Grants, Limits};
use crate::search::ToolMatch;
use crate::tool::{Content, Repair, Returned, ToolCall, ToolFormat, ToolSpec};
use reload::Watcher;
use snapshot::Snapshot;

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
    core: Arc<HostCore>,
    /// The names a toolset restricts this host to, with the registry last derived.
    toolset: Option<Arc<Toolset>>,
    /// Which of its tools this host shows a model, when not all (see [`Host::disclosing`]).
    disclosure: Option<Arc<Disclosure>>,
    /// The profile it serves, when a named [`Profile`] made it (policies may be
    /// scoped by profile).
    profile: Option<Arc<str>>,
}

/// What every clone of a host shares: the runtime, the settings it was built with,
/// the current snapshot of the plugins, and what reloading them needs.
struct HostCore {
    runtime: Runtime,
    /// Prepares instances ahead of their calls and drops used ones.
    warmer: Warmer,
    settings: HostBuilder,
    cache: Option<Cache>,
    /// Warnings that hold for every load (a cache that cannot be used).
    standing_warnings: Vec<String>,
    current: ArcSwap<Snapshot>,
    /// What starting MCP servers needs.
    servers: servers::Servers,
    /// Serialises reloads (a watcher's and explicit ones).
    reloading: Mutex<()>,
    listeners: Mutex<Vec<Box<dyn Fn() + Send + Sync>>>,
    watcher: Mutex<Option<Watcher>>,
    /// Compiles components served on baseline code again, optimized.
    optimizer: optimize::Optimizer,
    /// What looks at calls before and after their tools run.
    policies: crate::policy::Policies,
    /// Which tools a person approves before each call.
    approval: crate::policy::Asking,
    /// Makes the tools' vectors for search by meaning, when the host has a model.
    #[cfg(feature = "semantic")]
    embedder: Option<embedder::Embedder>,
}

/// What a call did: which tool ran (after any repair), what was repaired to run it,
/// and its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    /// The registered name of the tool that ran, if the name resolved.
    pub tool: Option<String>,
    /// The name the model sent, when it was repaired into `tool`.
    pub repaired_from: Option<String>,
    /// Everything the host changed to run the call, in order: the name first, then
    /// the argument text, then keys and values. Empty for a call that was right as sent.
    pub repairs: Vec<Repair>,
    /// The tool's result as JSON (`null` when it returned nothing), or the
    /// corrective error.
    pub result: Result<Value, ToolError>,
    /// The content blocks the tool added to its result (images, audio, resources;
    /// see `wit/toolhost.wit`'s `content`), in order. Empty when the call failed.
    pub content: Vec<Content>,
    /// Whether a person approved the call before it ran (see `toolhost::Approval`).
    pub approved: bool,
}

/// A model's call as the host would run it (see [`Host::repair_call`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RepairedCall {
    /// The registered name of the tool the call's name resolves to.
    pub tool: String,
    /// The arguments, read from the model's text (with the argument-text repair).
    pub arguments: Value,
    /// The arguments as the tool gets them: under its own parameter names, each
    /// value of its parameter's type (a component's optional parameter not given is
    /// `null`), the operator's defaults and fixed values in.
    pub bound: Value,
    /// What was repaired, in order: the name, the argument text, keys and values.
    pub repairs: Vec<Repair>,
}

impl RepairedCall {
    /// What to tell a model whose call must be made again to run as repaired (a
    /// framework that cannot run the repaired call in its place): the tool by the
    /// name `shown` the model was shown, the arguments as the host read them, and
    /// what was repaired.
    ///
    /// ```no_run
    /// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
    /// let repaired = host.repair_call("evaluate", "{expression: '2+2'}")?;
    /// assert!(repaired.retry_message("evaluate").contains(r#"{"expression":"2+2"}"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn retry_message(&self, shown: &str) -> String {
        let repairs: Vec<String> = self.repairs.iter().map(ToString::to_string).collect();
        format!(
            "Your call could not run as written. Call '{shown}' again with these arguments: {} ({}).",
            self.arguments,
            repairs.join("; ")
        )
    }
}

impl CallOutcome {
    /// The outcome of a call whose name did not resolve, or that could not start.
    fn failed(error: ToolError) -> CallOutcome {
        CallOutcome {
            tool: None,
            repaired_from: None,
            repairs: Vec::new(),
            result: Err(error),
            content: Vec::new(),
            approved: false,
        }
    }

    /// The outcome of the call of a resolved tool, the name's repair first.
    fn of(resolved: Resolved, mut repairs: Vec<Repair>, returned: Result<Returned, ToolError>) -> CallOutcome {
        if let Some(from) = &resolved.repaired_from {
            repairs.insert(0, Repair::ToolName { from: from.clone(), to: resolved.name.clone() });
        }
        let (result, content) = match returned {
            Ok(Returned { value, content }) => (Ok(value), content),
            Err(error) => (Err(error), Vec::new()),
        };
        let (tool, repaired_from) = (Some(resolved.name), resolved.repaired_from);
        CallOutcome { tool, repaired_from, repairs, result, content, approved: false }
    }

    /// How the call ended, in a word: `ok`, or its error's kind (`unknown_tool`,
    /// `invalid_value`, `tool_failed`, `timed_out`, …; see [`ToolError::kind`]).
    pub fn kind(&self) -> &'static str {
        self.result.as_ref().map_or_else(ToolError::kind, |_| "ok")
    }

    /// The call's result as `format`'s tool-result message carries it (see
    /// [`ToolFormat::tool_result`]); a failed call's corrective message as text.
    pub fn tool_result(&self, format: ToolFormat) -> Value {
        match &self.result {
            Ok(value) => format.tool_result(value, &self.content),
            Err(error) => format.tool_result(&Value::Null, &[Content::text(error.to_string())]),
        }
    }
}

/// One MCP server plugin as a host serves it now (see [`Host::mcp_servers`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpServerState {
    /// Its name: its file's, without `.mcp.toml`.
    pub name: String,
    /// The tools it serves.
    pub tools: usize,
    /// Times it was started again after its first start.
    pub restarts: u64,
    /// Why its connection is down, if it is (`None` while up, or being made again).
    pub down: Option<String>,
}

/// What a host holds and does at one moment (see [`Host::stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct HostStats {
    /// Components loaded.
    pub components: usize,
    /// MCP servers served as plugins.
    pub mcp_servers: usize,
    /// REST APIs served as plugins (`NAME.openapi.toml`).
    pub rest_apis: usize,
    /// Active tools (of this host's toolset, if it is one).
    pub tools: usize,
    /// Calls running (holding one of the host's call slots).
    pub running_calls: usize,
    /// Calls waiting for a slot.
    pub queued_calls: usize,
    /// Instances made ahead of their calls and not yet taken.
    pub ready_instances: usize,
    /// Times the MCP server plugins now served were started again after their first
    /// start (a server that exited or whose connection broke).
    pub mcp_server_restarts: u64,
}

impl Host {
    /// Starts configuring a host.
    pub fn builder() -> HostBuilder {
        HostBuilder::default()
    }

    /// Every active tool, sorted by name.
    pub fn tools(&self) -> Vec<ToolSpec> {
        self.registry().specs().cloned().collect()
    }

    /// The active tool registered under exactly `name`.
    pub fn tool(&self, name: &str) -> Option<ToolSpec> {
        self.registry().spec(name).cloned()
    }

    /// The active tools that best fit `query`, best first, at most `limit`: a task
    /// described in words ("what's the weather in Paris") or a name a model made up
    /// (`get_weather_forecast`), matched against the words of each tool's name
    /// (snake, camel, kebab and dotted names split), its description and its
    /// parameters' names and docs, stemmed, a name's words counting most (BM25F).
    /// Components' tools and MCP servers' alike; the index is built at the first search after each load
    /// and reload, in memory. A tool that shares no word with the query is not
    /// listed, so the result may be shorter than `limit`, or empty.
    ///
    /// ```no_run
    /// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
    /// for found in host.search_tools("convert miles to kilometres", 5) {
    ///     println!("{} ({:.2})", found.name, found.score);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn search_tools(&self, query: &str, limit: usize) -> Vec<ToolMatch> {
        self.search_in(&self.registry(), query, limit)
    }

    /// Makes the vectors of the active tools now, on this thread, if the host has an
    /// embedding model and they are not made yet (see
    /// [`HostBuilder::embedding_model`]): for a program that searches once and ends,
    /// or one that must rank by meaning from its first search. Without a model,
    /// nothing to do.
    ///
    /// ```no_run
    /// let model = toolhost::EmbeddingModel::load("models/all-MiniLM-L6-v2".as_ref())?;
    /// let host = toolhost::Host::builder().plugin_dir("plugins").embedding_model(model).build()?;
    /// host.embed_tools()?;
    /// let found = host.search_tools("what will the weather be tomorrow", 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "semantic")]
    pub fn embed_tools(&self) -> Result<(), crate::search::ModelError> {
        match &self.core.settings.embedding {
            Some(model) => self.registry().embed_tools(model),
            None => Ok(()),
        }
    }

    /// The tools of `registry` that best fit `query`: by words, and by meaning too
    /// when the host has an embedding model.
    pub(crate) fn search_in(&self, registry: &Registry, query: &str, limit: usize) -> Vec<ToolMatch> {
        #[cfg(feature = "semantic")]
        if let Some(model) = &self.core.settings.embedding {
            return registry.search_by_meaning(model, query, limit);
        }
        registry.search(query, limit)
    }

    /// The active registry of the current snapshot: the same `Arc` until a reload
    /// (the faces cache what they derive from it by its address).
    pub(crate) fn registry(&self) -> Arc<Registry> {
        self.registry_in(&self.core.current.load())
    }

    /// The active registry of `snapshot`: all of it, or this host's toolset of it.
    fn registry_in(&self, snapshot: &Snapshot) -> Arc<Registry> {
        match &self.toolset {
            Some(toolset) => toolset.registry(&snapshot.registry, snapshot.generation),
            None => snapshot.registry.clone(),
        }
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
        let snapshot = self.core.current.load();
        let toolset = Toolset::new(&self.registry_in(&snapshot), snapshot.generation, names)?;
        Ok(Host { toolset: Some(Arc::new(toolset)), ..self.clone() })
    }

    /// A host whose active tools are those whose registered names match one of
    /// `patterns` (`*` for any run of characters, `?` for one: `github.*`), now and
    /// after every reload (a tool added later that matches is in it). A pattern that
    /// matches nothing is no error: the set may be empty. On a host that is itself a
    /// toolset, the patterns choose among its tools. It shares this host's components.
    ///
    /// ```no_run
    /// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
    /// let readers = host.toolset_matching(&["files.read*", "evaluate"])?;
    /// assert!(readers.tools().iter().all(|tool| tool.name.starts_with("files.read") || tool.name == "evaluate"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn toolset_matching<S: AsRef<str>>(&self, patterns: &[S]) -> Result<Host, ToolsetError> {
        let snapshot = self.core.current.load();
        let toolset = Toolset::matching(&snapshot.registry, snapshot.generation, self.toolset.clone(), patterns)?;
        Ok(Host { toolset: Some(Arc::new(toolset)), ..self.clone() })
    }

    /// Fails on a tool name pattern [`Host::toolset_matching`] would refuse.
    #[cfg(feature = "mcp")]
    pub(crate) fn check_pattern(pattern: &str) -> Result<(), ToolsetError> {
        Toolset::check_pattern(pattern)
    }

    /// A host with no active tools (a caller granted none).
    #[cfg(feature = "mcp")]
    pub(crate) fn without_tools(&self) -> Host {
        Host { toolset: Some(Arc::new(Toolset::empty())), ..self.clone() }
    }

    /// `value`, a successful result of the tool registered as `tool`, as MCP's
    /// structured content (see [`ToolSpec::structured_result`]).
    pub fn structured_result(&self, tool: &str, value: Value) -> Option<Value> {
        self.registry().spec(tool)?.structured_result(value)
    }

    /// The definition in a model provider's format of every tool the host shows, as a
    /// JSON array: every active tool, or a disclosing host's finder and core (see
    /// [`Host::disclosing`]; [`Host::definitions`] for a budget).
    pub fn tool_definitions(&self, format: ToolFormat) -> Value {
        match self.disclosure {
            Some(_) => self.definitions(format).get().tools,
            None => Value::Array(self.registry().definitions(format)),
        }
    }

    /// Whether calls of the active tool registered under exactly `name` may go on as
    /// tasks (the default for a name that is no tool's), without copying its spec.
    #[cfg(feature = "mcp")]
    pub(crate) fn task_support(&self, name: &str) -> crate::tool::TaskSupport {
        self.registry().spec(name).map(|spec| spec.tasks).unwrap_or_default()
    }

    /// The name a provider's definitions (every format but MCP) give the active
    /// tool `name` (`uber.ride` → `uber_ride`); a call by it reaches the tool.
    pub fn provider_name(&self, name: &str) -> Option<String> {
        let registry = self.registry();
        let spec = registry.spec(name)?;
        Some(registry.provider_name(name).map_or_else(|| spec.name_in(ToolFormat::OpenAiChat), str::to_string))
    }

    /// The registered name of the active tool a model's `name` resolves to, as a
    /// call's name resolves (exactly, by its provider name, or repaired where one
    /// tool alone fits); the error is the corrective message the call would get.
    ///
    /// ```no_run
    /// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
    /// assert_eq!(host.resolve_name("Evaluate")?, "evaluate");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolve_name(&self, name: &str) -> Result<String, ToolError> {
        Ok(self.registry().resolve(name)?.name)
    }

    /// How many instances are ready for calls that have not arrived yet, and the
    /// memory they hold (see [`HostBuilder::prewarm`]).
    pub fn prewarmed(&self) -> PrewarmState {
        self.core.warmer.state()
    }

    /// What the host holds and does now, for metrics: components, tools, calls
    /// running and waiting, instances ready, MCP server plugin restarts.
    pub fn stats(&self) -> HostStats {
        let snapshot = self.core.current.load();
        let admission = self.core.runtime.admission();
        HostStats {
            components: snapshot.components.len(),
            mcp_servers: snapshot.servers.iter().filter(|s| s.is_mcp()).count(),
            rest_apis: snapshot.servers.iter().filter(|s| !s.is_mcp()).count(),
            tools: self.registry_in(&snapshot).specs().count(),
            running_calls: admission.running(),
            queued_calls: admission.queued(),
            ready_instances: self.core.warmer.state().instances,
            mcp_server_restarts: snapshot.servers.iter().map(servers::ServedServer::restarts).sum(),
        }
    }

    /// Each MCP server plugin served, by name: its tools, restarts and connection.
    pub fn mcp_servers(&self) -> Vec<McpServerState> {
        let snapshot = self.core.current.load();
        let mcp = snapshot.servers.iter().filter(|s| s.is_mcp());
        let mut servers: Vec<McpServerState> = mcp.map(servers::ServedServer::state).collect();
        servers.sort_by(|a, b| a.name.cmp(&b.name));
        servers
    }

    /// What the last load or reload did: components loaded (compiled or cached) and warnings.
    pub fn load_report(&self) -> LoadReport {
        self.core.current.load().report()
    }

    /// The grants and limits a component's calls run with, by component name.
    pub fn component_settings(&self, component: &str) -> Option<(Grants, Limits)> {
        let snapshot = self.core.current.load();
        let served = snapshot.components.iter().find(|c| &*c.plugin.name == component)?;
        Some((served.grants.clone(), served.limits))
    }

    /// Rescans the plugin folders: new files are loaded, changed ones (or ones whose
    /// manifest changed) reloaded, removed ones dropped; unchanged ones are kept as
    /// they are. A file that fails to load leaves its previous version in service.
    /// The new registry replaces the old one whole; calls already running finish on
    /// the version they started with. Returns whether anything changed.
    pub fn reload(&self) -> Result<bool, LoadError> {
        self.core.reload()
    }

    /// Calls `listener` after every reload that changed the plugins (e.g. to tell an
    /// MCP client that the tool list changed).
    pub fn on_change(&self, listener: impl Fn() + Send + Sync + 'static) {
        lock(&self.core.listeners).push(Box::new(listener));
    }

    /// The tool calls a model wrote into its reply text instead of the API's
    /// tool-call field, in the order written: `<tool_call>` tags, `<|python_tag|>`,
    /// `[TOOL_CALLS]`, `<function=…>`, ReAct `Action:` lines, or the whole reply as one
    /// JSON object. Names resolve (and are repaired) as a call's; text in code is an
    /// example, never a call; what does not resolve is in `rejected`, with the message
    /// a call would get.
    ///
    /// ```no_run
    /// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
    /// let reply = "Sure.\n<tool_call>{\"name\": \"Evaluate\", \"arguments\": {\"expression\": \"6*7\"}}</tool_call>";
    /// for call in &host.extract_calls(reply).calls {
    ///     println!("{:?}", call.request(&host).run().result); // Ok(42.0)
    /// }
    /// # Ok::<(), toolhost::LoadError>(())
    /// ```
    pub fn extract_calls(&self, reply: &str) -> Extraction {
        extract(&self.registry(), reply)
    }

    /// Runs a call [`Host::extract_calls`] found (see [`ExtractedCall::request`]).
    #[deprecated(since = "0.1.0", note = "use `call.request(&host).run()`")]
    pub fn dispatch_call(&self, call: &ExtractedCall) -> CallOutcome {
        call.request(self).run()
    }

    /// Runs a call in the shape a provider's API gave it (see [`ToolCall::request`]).
    #[deprecated(since = "0.1.0", note = "use `call.request(&host).run()`")]
    pub fn dispatch_tool_call(&self, call: &ToolCall) -> CallOutcome {
        call.request(self).run()
    }

    /// What a model's call of `name` with argument text `arguments` would run, as
    /// the host repairs it, without running it: the tool, the arguments as read, and
    /// every repair (keys and values are repaired again when the call runs). For
    /// agent frameworks that repair a call before they run it (the AI SDK's
    /// `experimental_repairToolCall`); the error is the corrective message a call
    /// would get.
    ///
    /// ```no_run
    /// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
    /// let repaired = host.repair_call("Factorial", "{n: 5,}")?;
    /// assert_eq!(repaired.tool, "factorial");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn repair_call(&self, name: &str, arguments: &str) -> Result<RepairedCall, ToolError> {
        let (_, registry, resolved) = self.resolve_call(name)?;
        let Some(spec) = registry.spec(&resolved.name) else {
            return Err(ToolError::Unavailable { tool: resolved.name, reason: "it is no longer loaded".into() });
        };
        let mut repairs = Vec::new();
        if let Some(from) = &resolved.repaired_from {
            repairs.push(Repair::ToolName { from: from.clone(), to: resolved.name.clone() });
        }
        let (arguments, bound) = crate::bind::check_text(spec, arguments, &mut repairs)?;
        Ok(RepairedCall { tool: resolved.name, arguments, bound: bound_as_json(bound, spec), repairs })
    }

    /// Calls a tool by the name a model sent, with the model's arguments: the
    /// shortcut for `host.request(name).arguments(arguments).run().result` (see
    /// [`Host::request`] for the rest: argument text, an observer, a cancellation,
    /// a deadline, async).
    pub fn call(&self, name: &str, arguments: &Value) -> Result<Value, ToolError> {
        self.request(name).arguments(arguments).run().result
    }

    /// [`Host::call`] with the argument text a model wrote.
    #[deprecated(since = "0.1.0", note = "use `host.request(name).text(arguments).run().result`")]
    pub fn call_text(&self, name: &str, arguments: &str) -> Result<Value, ToolError> {
        self.request(name).text(arguments).run().result
    }

    /// [`Host::call`], saying which tool ran and what was repaired.
    #[deprecated(since = "0.1.0", note = "use `host.request(name).arguments(arguments).run()`")]
    pub fn dispatch(&self, name: &str, arguments: &Value) -> CallOutcome {
        self.request(name).arguments(arguments).run()
    }

    /// [`Host::dispatch`] with the argument text a model wrote.
    #[deprecated(since = "0.1.0", note = "use `host.request(name).text(arguments).run()`")]
    pub fn dispatch_text(&self, name: &str, arguments: &str) -> CallOutcome {
        self.request(name).text(arguments).run()
    }

    /// [`Host::call`] for async code.
    #[deprecated(since = "0.1.0", note = "use `host.request(name).arguments(&arguments).run_async().await.result`")]
    pub async fn call_async(&self, name: &str, arguments: Value) -> Result<Value, ToolError> {
        self.request(name).arguments(&arguments).run_async().await.result
    }

    /// [`Host::dispatch`] for async code.
    #[deprecated(since = "0.1.0", note = "use `host.request(name).arguments(&arguments).run_async().await`")]
    pub async fn dispatch_async(&self, name: &str, arguments: Value) -> CallOutcome {
        self.request(name).arguments(&arguments).run_async().await
    }

    /// [`Host::dispatch_async`] until `cancelled` completes.
    #[deprecated(
        since = "0.1.0",
        note = "use `host.request(name).arguments(&arguments).cancel_on(cancelled).run_async()`"
    )]
    pub async fn dispatch_until(
        &self,
        name: &str,
        arguments: Value,
        cancelled: impl Future<Output = ()>,
    ) -> CallOutcome {
        self.request(name).arguments(&arguments).cancel_on(cancelled).run_async().await
    }

    /// [`Host::dispatch_until`] with the argument text a model wrote.
    #[deprecated(since = "0.1.0", note = "use `host.request(name).text(arguments).cancel_on(cancelled).run_async()`")]
    pub async fn dispatch_text_until(
        &self,
        name: &str,
        arguments: &str,
        cancelled: impl Future<Output = ()>,
    ) -> CallOutcome {
        self.request(name).text(arguments).cancel_on(cancelled).run_async().await
    }

    /// [`Host::dispatch_until`], with `observer` told the tool's progress and log lines.
    #[deprecated(
        since = "0.1.0",
        note = "use `host.request(name).arguments(&arguments).observer(observer).cancel_on(cancelled).run_async()`"
    )]
    pub async fn dispatch_observed(
        &self,
        name: &str,
        arguments: Value,
        observer: Arc<dyn CallObserver>,
        cancelled: impl Future<Output = ()>,
    ) -> CallOutcome {
        self.request(name).arguments(&arguments).observer(observer).cancel_on(cancelled).run_async().await
    }
}

/// Arguments as bound, as JSON under the tool's own parameter names.
fn bound_as_json(bound: crate::bind::Bound, spec: &ToolSpec) -> Value {
    match (bound, &spec.origin) {
        (crate::bind::Bound::Values(values), crate::tool::ToolOrigin::Component(function)) => {
            let named = function.params.iter().zip(&values);
            Value::Object(named.map(|(param, value)| (param.name.clone(), crate::invoke::to_json(value))).collect())
        }
        (crate::bind::Bound::Json(value), _) => value,
        (crate::bind::Bound::Values(_), _) => Value::Null,
    }
}
