//! Showing a model fewer tools than the host holds: [`Host::definitions`] within a
//! budget (a number of tools, a size) saying what it left out, and progressive
//! disclosure ([`Host::disclosing`]): a core of the tools plus one more, the finder,
//! which searches the rest by what they do and returns their definitions. Every
//! active tool stays callable, shown or not; for clients and frameworks that call
//! only what they were shown, a disclosure can show a caller too, which runs any
//! tool by name.

use std::sync::Arc;

use globset::GlobSet;
use serde_json::{Value, json};

use super::{CallOutcome, Host};
use crate::bind::{Arguments, SchemaBinder};
use crate::error::ToolError;
use crate::resolve::{Registry, Resolved, ToolsetError, glob_set};
use crate::search::ToolMatch;
use crate::tool::{Repair, Returned, ServerTool, ToolAnnotations, ToolFormat, ToolSpec};

/// The finder's name unless [`Disclosure::finder_name`] gives another.
pub const FINDER_NAME: &str = "find_tools";

/// The caller's name unless [`Disclosure::caller`] gives another.
pub const CALLER_NAME: &str = "call_tool";

/// The most tools one search of the finder returns, and how many unless asked.
const MOST_FOUND: usize = 20;
const FOUND_UNLESS_ASKED: usize = 5;

/// What a disclosing host shows a model: the tools whose registered names match the
/// core patterns, and the finder. See [`Host::disclosing`].
///
/// ```
/// use toolhost::{Disclosure, ToolFormat};
///
/// let disclosure = Disclosure::new(&["evaluate", "files.*"])?.format(ToolFormat::OpenAiChat);
/// assert_eq!(disclosure.finder(), "find_tools");
/// # Ok::<(), toolhost::ToolsetError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Disclosure {
    core: Vec<String>,
    matcher: GlobSet,
    finder: String,
    caller: Option<String>,
    /// The finder and the caller, to resolve a call's name against (a drift repaired).
    own: Arc<Registry>,
    format: ToolFormat,
}

impl Disclosure {
    /// Shows the tools whose registered names match one of `core` (`*` for any run of
    /// characters, `?` for one; none at all: the finder alone). A pattern that does not
    /// read is an error naming it; one that matches nothing is not.
    pub fn new<S: AsRef<str>>(core: &[S]) -> Result<Disclosure, ToolsetError> {
        Ok(Disclosure {
            core: core.iter().map(|pattern| pattern.as_ref().to_string()).collect(),
            matcher: glob_set(core)?,
            finder: FINDER_NAME.to_string(),
            caller: None,
            own: Arc::new(own_tools(FINDER_NAME, None)),
            format: ToolFormat::Mcp,
        })
    }

    /// The finder under another name (when a tool of the host is called
    /// `find_tools`: the finder would hide it).
    #[must_use]
    pub fn finder_name(self, name: &str) -> Disclosure {
        let own = Arc::new(own_tools(name, self.caller.as_deref()));
        Disclosure { finder: name.to_string(), own, ..self }
    }

    /// Shows one more tool, named `name` ([`CALLER_NAME`] is the usual): it calls
    /// any active tool by its name, with its arguments, as if the model had called
    /// it. For clients and agent frameworks that run only the tools they were shown
    /// when a run began (LangChain's, the OpenAI Agents SDK's): through it the
    /// model calls what the finder found.
    #[must_use]
    pub fn caller(self, name: &str) -> Disclosure {
        let own = Arc::new(own_tools(&self.finder, Some(name)));
        Disclosure { caller: Some(name.to_string()), own, ..self }
    }

    /// The format of the definitions the finder returns (MCP's unless set): the one
    /// the model was given its other tools in.
    #[must_use]
    pub fn format(self, format: ToolFormat) -> Disclosure {
        Disclosure { format, ..self }
    }

    /// The finder's name.
    pub fn finder(&self) -> &str {
        &self.finder
    }

    /// The caller's name, if the disclosure shows one.
    pub fn caller_name(&self) -> Option<&str> {
        self.caller.as_deref()
    }

    /// The core patterns, as given.
    pub fn core(&self) -> &[String] {
        &self.core
    }

    /// Whether the tool registered as `name` is in the core.
    fn shows(&self, name: &str) -> bool {
        self.matcher.is_match(name)
    }

    /// The finder as a tool, for `registry` (its description counts the tools it finds).
    pub(crate) fn finder_spec(&self, registry: &Registry) -> ToolSpec {
        let hidden = registry.specs().filter(|spec| !self.shows(&spec.name)).count();
        let then = match &self.caller {
            Some(caller) => format!("Then call the one you need through {caller}, with its name and its arguments."),
            None => "Then call the one you need by its name, as if it were listed.".to_string(),
        };
        let mut spec = own_tool(&self.finder, finder_schema());
        spec.title = "Find tools".into();
        spec.description = format!(
            "Finds the tools for a task among the {hidden} tools not listed here, by what they do. Describe \
             the task in a few words ('convert miles to kilometres'); each tool that fits comes back with its \
             full definition. {then}"
        );
        spec.annotations = ToolAnnotations { read_only: true, destructive: false, idempotent: true, open_world: false };
        spec
    }

    /// The caller as a tool, if the disclosure shows one.
    fn caller_spec(&self) -> Option<ToolSpec> {
        let mut spec = own_tool(self.caller.as_deref()?, caller_schema(&self.finder));
        spec.title = "Call a tool".into();
        spec.description = format!(
            "Calls a tool that {} found, by its name, with the arguments its definition describes. The tool's \
             result, or what was wrong with the call, comes back as this call's.",
            self.finder
        );
        // It runs whatever tool it is given: nothing can be promised of it.
        spec.annotations = ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: true };
        Some(spec)
    }

    /// The tools shown of `registry`: the finder first, the caller, then the core by name.
    pub(crate) fn shown(&self, registry: &Registry) -> Vec<ToolSpec> {
        let core = registry.specs().filter(|spec| self.shows(&spec.name)).cloned();
        std::iter::once(self.finder_spec(registry)).chain(self.caller_spec()).chain(core).collect()
    }

    /// Whether a call of `name` on `registry` is the finder's or the caller's: its
    /// name or a repairable drift of it, unless a tool is registered under exactly `name`.
    fn resolve(&self, registry: &Registry, name: &str) -> Option<Resolved> {
        if registry.spec(name).is_some() {
            return None;
        }
        self.own.resolve(name).ok()
    }

    /// The finder's answer to a search for `query` that found `found` over
    /// `registry`: each tool, best first, as its definition in this disclosure's format.
    fn answer(&self, registry: &Registry, query: &str, found: &[ToolMatch]) -> Value {
        let found: Vec<Value> = found
            .iter()
            .filter_map(|found| registry.spec(&found.name))
            .map(|spec| registry.definition(spec, self.format))
            .collect();
        if found.is_empty() {
            let note = format!("No tool fits '{query}'. Describe the task in other words, or more plainly.");
            return json!({"tools": [], "note": note});
        }
        json!({"tools": found})
    }
}

/// A tool of the disclosure's own named `name`, with its parameters and no more.
fn own_tool(name: &str, schema: Value) -> ToolSpec {
    ToolSpec::for_server_tool("toolhost", ServerTool::new(name, schema, None))
}

/// A registry of the finder and the caller, as far as their names.
fn own_tools(finder: &str, caller: Option<&str>) -> Registry {
    let caller = caller.map(|caller| own_tool(caller, Value::Null));
    Registry::from_specs(std::iter::once(own_tool(finder, finder_schema())).chain(caller))
}

/// The caller's parameters.
fn caller_schema(finder: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": format!("The tool's name, as {finder} gave it.")},
            "arguments": {"type": "object", "description": "The tool's arguments, as its definition describes them."}
        },
        "required": ["name"],
        "additionalProperties": false
    })
}

/// What a finder's (bound) `arguments` ask for: the query, and how many tools at most.
fn finder_query(arguments: &Value) -> (&str, usize) {
    let query = arguments["query"].as_str().unwrap_or_default();
    let most = arguments["limit"].as_u64().map_or(FOUND_UNLESS_ASKED, |limit| (limit as usize).min(MOST_FOUND));
    (query, most)
}

/// The finder's parameters.
fn finder_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The task, in words, or the name of the tool you are looking for."},
            "limit": {
                "type": "integer", "minimum": 1, "maximum": MOST_FOUND,
                "description": format!("The most tools to return ({FOUND_UNLESS_ASKED} unless given).")
            }
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

impl Host {
    /// A host that shows a model `disclosure`'s core and its finder (in
    /// [`Host::tool_definitions`], [`Host::definitions`] and MCP's `tools/list`)
    /// while every active tool stays callable: the model finds the others through
    /// the finder and calls them by name on its next turn. A call of the finder's
    /// name runs the finder; a tool registered under exactly that name is hidden
    /// by it (give the finder another name). It shares this host's components; a
    /// toolset of it keeps the disclosure, and the finder searches that toolset only.
    ///
    /// ```no_run
    /// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
    /// use serde_json::json;
    ///
    /// let shown = host.disclosing(toolhost::Disclosure::new(&["evaluate"])?);
    /// let found = shown.call("find_tools", &json!({"query": "convert miles to kilometres"}))?;
    /// println!("{}", found["tools"][0]["name"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn disclosing(&self, disclosure: Disclosure) -> Host {
        Host { disclosure: Some(Arc::new(disclosure)), ..self.clone() }
    }

    /// The disclosure this host shows its tools by, if any.
    pub fn disclosure(&self) -> Option<&Disclosure> {
        self.disclosure.as_deref()
    }

    /// The tools a model is shown, in order: every active tool (as
    /// [`Host::tools`]), or a disclosing host's finder, its caller if it shows one,
    /// and its core. An agent framework is given these.
    pub fn shown_tools(&self) -> Vec<ToolSpec> {
        self.shown_in(&self.registry())
    }

    /// The tools a model is shown of `registry` (see [`Host::shown_tools`]).
    pub(crate) fn shown_in(&self, registry: &Registry) -> Vec<ToolSpec> {
        match &self.disclosure {
            Some(disclosure) => disclosure.shown(registry),
            None => registry.specs().cloned().collect(),
        }
    }

    /// The definitions to give a model in `format`, within a budget: see
    /// [`DefinitionsRequest`]. [`Host::tool_definitions`] is all of them.
    pub fn definitions(&self, format: ToolFormat) -> DefinitionsRequest<'_> {
        DefinitionsRequest { host: self, format, most: None, max_bytes: None, task: None }
    }

    /// What a call of `name` is if it is the finder's or the caller's (on a
    /// disclosing host): the finder's outcome, or the call the caller makes.
    pub(crate) fn own_call(&self, name: &str, arguments: Arguments<'_>) -> Option<OwnCall> {
        let disclosure = self.disclosure.as_deref()?;
        let registry = self.registry();
        let resolved = disclosure.resolve(&registry, name)?;
        if disclosure.caller_name() == Some(resolved.name.as_str()) {
            return Some(disclosure.forward(&registry, resolved, arguments));
        }
        let mut repairs = Vec::new();
        let bound = SchemaBinder::new(finder_schema()).bind_arguments(&resolved.name, arguments, &mut repairs);
        let found = bound.map(|arguments| {
            let (query, most) = finder_query(&arguments);
            let found = self.search_in(&registry, query, most);
            Returned { value: disclosure.answer(&registry, query, &found), content: Vec::new() }
        });
        Some(OwnCall::Done(CallOutcome::of(resolved, repairs, found)))
    }
}

/// A call of a disclosing host's own tools: the finder's outcome, or the call the
/// caller makes for the model.
pub(crate) enum OwnCall {
    /// The outcome, already (the finder's, or the caller's that calls nothing).
    Done(CallOutcome),
    /// The call to make, and what calling the caller repaired.
    Forward(Forward),
}

/// The call the caller makes: a tool's name and arguments, and what reading the
/// caller's own call repaired.
pub(crate) struct Forward {
    /// The name of the tool to call, as the model gave it.
    pub(crate) name: String,
    /// Its arguments, an object (the caller's schema takes no other).
    pub(crate) arguments: Value,
    caller: Resolved,
    repairs: Vec<Repair>,
}

impl Forward {
    /// The forwarded call's `outcome` with what reading the caller's call repaired first.
    pub(crate) fn outcome(self, mut outcome: CallOutcome) -> CallOutcome {
        let mut repairs = self.repairs;
        if let Some(from) = self.caller.repaired_from {
            repairs.insert(0, Repair::ToolName { from, to: self.caller.name });
        }
        outcome.repairs.splice(0..0, repairs);
        outcome
    }
}

impl Disclosure {
    /// The call the caller's `arguments` ask for; or, when they do not read, or name
    /// the caller itself, the outcome saying so.
    fn forward(&self, registry: &Registry, caller: Resolved, arguments: Arguments<'_>) -> OwnCall {
        let mut repairs = Vec::new();
        let bound =
            SchemaBinder::new(caller_schema(&self.finder)).bind_arguments(&caller.name, arguments, &mut repairs);
        let bound = bound.and_then(|mut bound| {
            let name = bound["name"].as_str().unwrap_or_default().to_string();
            if self.resolve(registry, &name).is_some_and(|own| own.name == caller.name) {
                let expected = format!("the name of a tool other than {}", caller.name);
                return Err(ToolError::InvalidValue {
                    tool: caller.name.clone(),
                    path: "name".into(),
                    expected,
                    got: format!("{name:?}"),
                });
            }
            let arguments = bound.get_mut("arguments").map_or_else(|| json!({}), Value::take);
            Ok((name, arguments))
        });
        match bound {
            Ok((name, arguments)) => OwnCall::Forward(Forward { name, arguments, caller, repairs }),
            Err(error) => OwnCall::Done(CallOutcome::of(caller, repairs, Err(error))),
        }
    }
}

/// Which of a host's definitions to give a model: those it shows (every active
/// tool, or a disclosing host's finder and core), the ones fitting a task first if
/// one is given, as many as fit the budget. [`DefinitionsRequest::get`] says what
/// was left out.
///
/// ```no_run
/// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
/// use toolhost::ToolFormat;
///
/// // OpenAI's API takes at most 128 tools.
/// let definitions = host.definitions(ToolFormat::OpenAiChat).most(128).for_task("plan a trip").get();
/// if !definitions.left_out.is_empty() {
///     println!("{} tools left out", definitions.left_out.len());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a request does nothing until `get` is called"]
pub struct DefinitionsRequest<'a> {
    host: &'a Host,
    format: ToolFormat,
    most: Option<usize>,
    max_bytes: Option<usize>,
    task: Option<&'a str>,
}

/// Definitions for a model, and the tools they leave out.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Definitions {
    /// The definitions, as a JSON array, in the order to give them.
    pub tools: Value,
    /// The registered names of the active tools not among them, sorted: those the
    /// budget left out, and a disclosing host's tools behind its finder.
    pub left_out: Vec<String>,
}

impl<'a> DefinitionsRequest<'a> {
    /// At most `tools` definitions (OpenAI's API refuses more than 128).
    pub fn most(self, tools: usize) -> Self {
        DefinitionsRequest { most: Some(tools), ..self }
    }

    /// At most `bytes` of JSON for the whole array, as compact JSON.
    pub fn max_bytes(self, bytes: usize) -> Self {
        DefinitionsRequest { max_bytes: Some(bytes), ..self }
    }

    /// The tools that fit `task` (a [`Host::search_tools`] query) first, the rest
    /// after them; a disclosing host's finder stays first.
    pub fn for_task(self, task: &'a str) -> Self {
        DefinitionsRequest { task: Some(task), ..self }
    }

    /// The definitions that fit the budget, taken in order; one too large is left
    /// out and the next tried.
    pub fn get(self) -> Definitions {
        let registry = self.host.registry();
        let mut shown = self.host.shown_in(&registry);
        if let Some(task) = self.task {
            let finder = usize::from(self.host.disclosure.is_some());
            let ranked = self.host.search_in(&registry, task, registry.len());
            rank_by(&ranked, &mut shown[finder..]);
        }
        // The opening bracket; each definition then costs its text and a comma or the closing bracket.
        let bytes = self.max_bytes.map_or(usize::MAX, |bytes| bytes.saturating_sub(1));
        let mut budget = Budget { tools: self.most.unwrap_or(usize::MAX), bytes };
        let mut tools = Vec::new();
        let mut given = std::collections::HashSet::new();
        for spec in &shown {
            let definition = registry.definition(spec, self.format);
            if budget.take(&definition) {
                given.insert(spec.name.as_str());
                tools.push(definition);
            }
        }
        let left_out = registry.specs().map(|spec| spec.name.as_str()).filter(|name| !given.contains(name));
        Definitions { tools: Value::Array(tools), left_out: left_out.map(str::to_string).collect() }
    }
}

/// What is left of a budget of definitions.
struct Budget {
    tools: usize,
    /// Bytes left for the array's definitions, each with the comma or bracket after it.
    bytes: usize,
}

impl Budget {
    /// Takes `definition` from the budget if it fits.
    fn take(&mut self, definition: &Value) -> bool {
        let size = serde_json::to_string(definition).map_or(usize::MAX, |text| text.len() + 1);
        if self.tools == 0 || size > self.bytes {
            return false;
        }
        self.tools -= 1;
        self.bytes -= size;
        true
    }
}

/// `specs` reordered: those `ranked` first, in its order, the others after them in
/// the order they had.
fn rank_by(ranked: &[ToolMatch], specs: &mut [ToolSpec]) {
    let ranks: std::collections::HashMap<&str, usize> =
        ranked.iter().enumerate().map(|(rank, found)| (found.name.as_str(), rank)).collect();
    specs.sort_by_key(|spec| ranks.get(spec.name.as_str()).copied().unwrap_or(usize::MAX));
}
