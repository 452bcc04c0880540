//! toolhost's tools for agents built on [rig](https://docs.rs/rig-agent): every
//! tool of a [`Host`] as a rig [`DynamicTool`], [`RepairHook`], which repairs the
//! calls rig cannot dispatch as the model wrote them, and [`ToolIndex`], which
//! offers the model only the tools that fit each prompt (rig's retrieved tools).
//!
//! Tools are offered under the names every provider's API takes (`uber.ride` is
//! `uber_ride`, see [`Host::provider_name`]); a call's arguments go through the
//! host's repairs (`null` for an optional parameter, `"5"` for a number, a lone
//! value for a list, …); a failed call answers the model with the corrective
//! message as the tool's result, so that its next turn can work.
//!
//! ```no_run
//! use rig_agent::AgentBuilder;
//! use rig_agent::core::{DynModel, operation::Completion};
//! use toolhost::Host;
//!
//! fn agent(model: DynModel<Completion>) -> Result<rig_agent::Agent, toolhost::LoadError> {
//!     let host = Host::builder().plugin_dir("plugins").build()?;
//!     Ok(AgentBuilder::new(model)
//!         .dynamic_tools(toolhost_rig::tools(&host))
//!         .add_hook(toolhost_rig::RepairHook::new(host))
//!         .build())
//! }
//! ```
//!
//! With many tools, give rig all of them to retrieve from and let the host's tool
//! search pick the few each prompt is offered:
//!
//! ```no_run
//! # use rig_agent::AgentBuilder;
//! # use rig_agent::core::{DynModel, operation::Completion};
//! # fn agent(model: DynModel<Completion>, host: toolhost::Host) -> rig_agent::Agent {
//! AgentBuilder::new(model)
//!     .retrieved_tools(5, toolhost_rig::ToolIndex::new(host.clone()), toolhost_rig::toolset(&host))
//!     .add_hook(toolhost_rig::RepairHook::new(host))
//!     .build()
//! # }
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rig_agent::agent::{AgentHook, HookContext};
use rig_agent::run::{InvalidToolCallAction, InvalidToolCallContext, InvalidToolCallReason};
use rig_agent::tool::ToolSet;
use rig_core::completion::message::{ImageMediaType, MimeType, ToolName, ToolResultContent};
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};
use rig_core::vector_store::request::{Filter, FilterError};
use rig_core::vector_store::{
    VectorSearchIdResult, VectorSearchRequest, VectorSearchResult, VectorStoreError, VectorStoreIndex,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolhost::{CallOutcome, Content, Host, ToolError, ToolFormat, ToolSpec};

/// Every active tool of `host`, as rig tools. Each is bound to its tool's
/// registered name; tools a later reload adds need a new call of this function.
pub fn tools(host: &Host) -> Vec<DynamicTool> {
    host.tools().iter().filter_map(|spec| tool_for(host, spec)).collect()
}

/// The active tool registered as `name` (or the one `name` resolves to), as a rig tool.
pub fn tool(host: &Host, name: &str) -> Option<DynamicTool> {
    let registered = host.resolve_name(name).ok()?;
    tool_for(host, &host.tool(&registered)?)
}

fn tool_for(host: &Host, spec: &ToolSpec) -> Option<DynamicTool> {
    let shown = ToolName::new(host.provider_name(&spec.name)?).ok()?;
    let (host, registered) = (host.clone(), spec.name.clone());
    Some(DynamicTool::new(shown, spec.description.clone(), spec.parameters_schema(), move |arguments| {
        let (host, registered) = (host.clone(), registered.clone());
        Box::pin(async move { answer(host.request(&registered).arguments(&arguments).run_async().await) })
    }))
}

/// Every active tool of `host` as a rig toolset, for `retrieved_tools` beside a
/// [`ToolIndex`] (rig offers each tool only when the index finds it for a prompt).
pub fn toolset(host: &Host) -> ToolSet {
    ToolSet::from_dynamic_tools(tools(host))
}

/// The host's tool search ([`Host::search_tools`]) as a rig vector store index, for
/// `AgentBuilder::retrieved_tools`: each prompt is searched for by its words (the
/// tools' names, descriptions and parameters; no embedding model, no network), and
/// the tools that fit, best first, are the ones the model is offered. Ids are the
/// names [`tools`] gives the tools; a document is the tool's definition in
/// OpenAI's format. It takes no filter.
#[derive(Clone)]
pub struct ToolIndex {
    host: Host,
}

impl ToolIndex {
    /// An index of `host`'s active tools, kept current by its reloads.
    pub fn new(host: Host) -> ToolIndex {
        ToolIndex { host }
    }

    /// The tools that fit `request`'s query, best first: score, provider name and spec.
    fn found(&self, request: &VectorSearchRequest<Filter<Value>>) -> Result<Vec<(f64, String, ToolSpec)>, FilterError> {
        if request.filter().is_some() {
            return Err(FilterError::TypeError("toolhost's tool index takes no filter".into()));
        }
        let most = usize::try_from(request.samples()).unwrap_or(usize::MAX);
        let found = self.host.search_tools(request.query(), most).into_iter().filter_map(|found| {
            let spec = self.host.tool(&found.name)?;
            Some((f64::from(found.score), self.host.provider_name(&spec.name)?, spec))
        });
        Ok(found.filter(|(score, ..)| request.threshold().is_none_or(|least| *score >= least)).collect())
    }
}

impl VectorStoreIndex for ToolIndex {
    type Filter = Filter<Value>;

    async fn top_n<T: DeserializeOwned + Send>(
        &self,
        request: VectorSearchRequest<Filter<Value>>,
    ) -> Result<Vec<VectorSearchResult<T>>, VectorStoreError> {
        let documents = self.found(&request)?.into_iter().map(|(score, id, spec)| {
            let mut definition = spec.definition(ToolFormat::OpenAiChat);
            definition["function"]["name"] = Value::from(id.as_str());
            Ok(VectorSearchResult { score, id, document: serde_json::from_value(definition)? })
        });
        Ok(documents.collect::<Result<_, serde_json::Error>>()?)
    }

    async fn top_n_ids(
        &self,
        request: VectorSearchRequest<Filter<Value>>,
    ) -> Result<Vec<VectorSearchIdResult>, VectorStoreError> {
        Ok(self.found(&request)?.into_iter().map(|(score, id, _)| VectorSearchIdResult { score, id }).collect())
    }
}

/// A call's outcome as rig takes a tool's: its value and content, or its
/// corrective message as what the model is told.
fn answer(outcome: CallOutcome) -> Result<ToolOutput, ToolExecutionError> {
    match outcome.result {
        Ok(value) => output(value, &outcome.content),
        Err(error) => Err(execution_error(&error)),
    }
}

/// The value (text as it is, anything else as JSON; left out when `null` and the
/// tool gave content) and then each content block: images rig knows as images,
/// anything else described in a line of text.
fn output(value: Value, content: &[Content]) -> Result<ToolOutput, ToolExecutionError> {
    let mut blocks = Vec::with_capacity(content.len() + 1);
    match value {
        Value::Null if !content.is_empty() => {}
        Value::String(text) => blocks.push(ToolResultContent::text(text)),
        value => blocks.push(ToolResultContent::json(value)),
    }
    blocks.extend(content.iter().map(content_block));
    ToolOutput::content(blocks)
}

fn content_block(block: &Content) -> ToolResultContent {
    if let Content::Image(media) = block
        && let Some(kind) = ImageMediaType::from_mime_type(&media.mime_type)
    {
        return ToolResultContent::image_base64(STANDARD.encode(&media.data), Some(kind), None);
    }
    ToolResultContent::text(block.describe())
}

/// `error` as rig's: its kind, and its message as the model's feedback.
fn execution_error(error: &ToolError) -> ToolExecutionError {
    let kind = match error {
        ToolError::UnknownTool { .. } | ToolError::AmbiguousTool { .. } => ToolErrorKind::NotFound,
        ToolError::InvalidArguments { .. } | ToolError::InvalidValue { .. } => ToolErrorKind::InvalidArgs,
        ToolError::TimedOut { .. } => ToolErrorKind::Timeout,
        ToolError::Cancelled { .. } => ToolErrorKind::Cancelled,
        ToolError::Denied { .. } => ToolErrorKind::PermissionDenied,
        _ => ToolErrorKind::Other,
    };
    let message = error.to_string();
    ToolExecutionError::new(kind, message.clone()).with_code(error.kind()).with_model_feedback(message)
}

/// An agent hook for the calls rig finds invalid before any tool runs: a name that
/// is no tool's as written (`Evaluate`, `uber.ride`, `web-search`) is repaired to
/// the tool it resolves to, as the host resolves a call's name; one that resolves to
/// none, or to several, has the model asked again with the host's corrective
/// message (the tools it may call, the nearest name). Arguments that are not a JSON
/// object have the model asked again with what the host reads them as, or with
/// where they broke; they are never run from the hook, so that every call goes
/// through rig's own dispatch and its hooks (approvals among them).
///
/// Asking again is rig's retry, which a run allows only as often as its
/// `max_invalid_tool_call_retries` says (none by default: rig then fails the run
/// with its own error): give runs a budget, `agent.prompt(p).max_invalid_tool_call_retries(2)`.
#[derive(Clone)]
pub struct RepairHook {
    host: Host,
}

impl RepairHook {
    /// A hook resolving names among `host`'s tools (the host whose [`tools`] the agent has).
    pub fn new(host: Host) -> RepairHook {
        RepairHook { host }
    }

    /// What to do with `event`'s call, or `None` to leave it to rig's policy.
    pub fn action(&self, event: &InvalidToolCallContext) -> Option<InvalidToolCallAction> {
        match &event.reason {
            InvalidToolCallReason::UnknownTool => self.rename(event),
            InvalidToolCallReason::MalformedArguments { .. } => {
                Some(self.reread(&event.tool_name, event.args.as_deref().unwrap_or_default()))
            }
            // The tool exists and the caller's tool choice rules it out (not a slip),
            // or a reason rig added later: rig's policy decides.
            _ => None,
        }
    }

    /// A repaired name when the host's tool is one the turn allows; else the host's
    /// corrective message, or `None` when the host has the tool and the turn does not
    /// allow it (its tool choice, or an agent given fewer tools: give the hook the
    /// host, or toolset, whose tools the agent has).
    fn rename(&self, event: &InvalidToolCallContext) -> Option<InvalidToolCallAction> {
        let registered = match self.host.resolve_name(&event.tool_name) {
            Ok(registered) => registered,
            Err(error) => return Some(InvalidToolCallAction::retry(error.to_string())),
        };
        let shown = self.host.provider_name(&registered)?;
        event.allowed_tools.contains(&shown).then(|| InvalidToolCallAction::repair(shown))
    }

    fn reread(&self, name: &str, text: &str) -> InvalidToolCallAction {
        match self.host.repair_call(name, text) {
            Ok(repaired) => {
                let shown = self.host.provider_name(&repaired.tool).unwrap_or_else(|| repaired.tool.clone());
                InvalidToolCallAction::retry(repaired.retry_message(&shown))
            }
            Err(error) => InvalidToolCallAction::retry(error.to_string()),
        }
    }
}

impl AgentHook for RepairHook {
    fn name(&self) -> Option<String> {
        Some("toolhost_rig::RepairHook".into())
    }

    async fn on_invalid_tool_call(
        &self,
        _ctx: &HookContext,
        event: &InvalidToolCallContext,
    ) -> Option<InvalidToolCallAction> {
        self.action(event)
    }
}
