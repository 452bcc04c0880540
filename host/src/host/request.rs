//! One call as a value: [`CallRequest`] carries the tool's name, its arguments (JSON,
//! or the text a model wrote) and whatever else a call may have — an observer of its
//! progress and log lines, a cancellation, the caller it is for, a deadline — and
//! runs it, blocking or async, into a [`CallOutcome`]. A new concern of a call is a
//! new method here, never a new `Host::dispatch_*`. Also here: how a request runs
//! (resolve, bind, invoke), the one path every face's calls take.

use std::future::{Future, Pending};
use std::sync::Arc;
use std::time::Instant;

use futures::future::Either;
use serde_json::{Map, Value};

use super::disclose::{Forward, OwnCall};
#[cfg(feature = "mcp-servers")]
use super::servers;
use super::snapshot::{Snapshot, Target};
use super::{CallOutcome, Host};
use crate::bind::{Arguments, Walk, bind, to_val};
use crate::error::ToolError;
use crate::extract::ExtractedCall;
use crate::invoke::{Invocation, invoke, invoke_async, to_json};
use crate::policy::Screening;
use crate::resolve::{Registry, Resolved};
use crate::sandbox::{CallObserver, Limits};
use crate::tool::{ParamSpec, Repair, Returned, ToolCall};

/// A call of a tool, built then run: [`Host::request`] with the name the model sent,
/// the arguments, and what else the call has; [`CallRequest::run`] blocks,
/// [`CallRequest::run_async`] awaits. [`Host::call`] is the shortcut for the plainest.
///
/// ```no_run
/// # async fn example(host: toolhost::Host) {
/// use serde_json::json;
///
/// // JSON arguments, blocking.
/// let outcome = host.request("Evaluate").arguments(&json!({"expression": "6*7"})).run();
/// assert_eq!(outcome.result, Ok(json!(42.0)));
/// // The argument text a model wrote, async, given up when the user cancels.
/// let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
/// let call = host.request("evaluate").text("{expression: '6*7',}").cancel_on(async move {
///     let _ = cancelled.await;
/// });
/// # drop(cancel);
/// let outcome = call.run_async().await;
/// # }
/// ```
#[must_use = "a request does nothing until it is run"]
pub struct CallRequest<'a, C = Pending<()>> {
    call: Call<'a>,
    cancelled: C,
}

/// A request but its cancellation.
struct Call<'a> {
    host: &'a Host,
    name: &'a str,
    arguments: Input<'a>,
    /// A call found in reply text, whose reading (its repairs, or why it is no
    /// call) the outcome carries.
    written: Option<&'a ExtractedCall>,
    observer: Option<Arc<dyn CallObserver>>,
    caller: Option<&'a str>,
    deadline: Option<Instant>,
}

/// The arguments of a request as given.
#[derive(Clone, Copy)]
enum Input<'a> {
    Json(&'a Value),
    Text(&'a str),
    None,
}

impl<'a> Input<'a> {
    /// As the binding stage takes them (none at all is `{}`).
    fn arguments<'e>(self, empty: &'e Value) -> Arguments<'e>
    where
        'a: 'e,
    {
        match self {
            Input::Json(value) => Arguments::Json(value),
            Input::Text(text) => Arguments::Text(text),
            Input::None => Arguments::Json(empty),
        }
    }
}

impl Host {
    /// A call of the tool a model named `name` (resolved and repaired as every
    /// call's name is), to give its arguments and run. See [`CallRequest`].
    pub fn request<'a>(&'a self, name: &'a str) -> CallRequest<'a> {
        let call = Call {
            host: self,
            name,
            arguments: Input::None,
            written: None,
            observer: None,
            caller: None,
            deadline: None,
        };
        CallRequest { call, cancelled: std::future::pending() }
    }
}

impl ToolCall {
    /// This call on `host`: arguments that are a string are the argument text the
    /// model wrote (OpenAI's `arguments`); none at all are `{}`.
    pub fn request<'a>(&'a self, host: &'a Host) -> CallRequest<'a> {
        let request = host.request(&self.name);
        match &self.arguments {
            Some(Value::String(text)) => request.text(text),
            Some(value) => request.arguments(value),
            None => request,
        }
    }
}

impl ExtractedCall {
    /// This call found in a reply, on `host`: it runs the tool it resolved to, with
    /// the arguments as read, its reading's repairs first in the outcome; a rejected
    /// one comes back as its error, and nothing runs.
    pub fn request<'a>(&'a self, host: &'a Host) -> CallRequest<'a> {
        // The resolved name; a call made by hand without one is resolved as written.
        let name = self.tool.as_deref().unwrap_or(&self.name);
        let mut request = host.request(name).arguments(&self.arguments);
        request.call.written = Some(self);
        request
    }
}

impl<'a, C> CallRequest<'a, C> {
    /// The arguments as JSON (an object; `null` counts as none).
    pub fn arguments(mut self, arguments: &'a Value) -> Self {
        self.call.arguments = Input::Json(arguments);
        self
    }

    /// The arguments as the text a model wrote: strict JSON, else read leniently
    /// where the text has one reading (a code fence, single quotes, Python's `True`,
    /// a stray quote, …); other text is an error quoting where it broke.
    pub fn text(mut self, arguments: &'a str) -> Self {
        self.call.arguments = Input::Text(arguments);
        self
    }

    /// Who hears the tool's progress reports and log lines while it runs (the
    /// `toolhost:tool` imports `progress` and `log`; at most 1,000 reports, 100
    /// lines and 64 KiB per call). The host holds it only while the call runs.
    pub fn observer(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.call.observer = Some(observer);
        self
    }

    /// Who the call is for (a token's or a user's name): logged with the call.
    pub fn caller(mut self, caller: &'a str) -> Self {
        self.call.caller = Some(caller);
        self
    }

    /// When the caller stops waiting: the call's time limit is at most the time
    /// left then (a component's or an MCP server's own limit still holds when it
    /// is shorter), and a call still running is stopped as one past its limit.
    pub fn deadline(mut self, deadline: Instant) -> Self {
        self.call.deadline = Some(deadline);
        self
    }

    /// Stops the call when `cancelled` completes, for [`CallRequest::run_async`]: a
    /// component's instance is stopped where it is (at the latest at its next epoch
    /// tick) and its turn freed; an MCP server is sent `notifications/cancelled`;
    /// the outcome is [`ToolError::Cancelled`]. The MCP server face passes a client's
    /// `notifications/cancelled` this way. (Dropping the `run_async` future stops
    /// the call the same way.)
    pub fn cancel_on<F: Future<Output = ()>>(self, cancelled: F) -> CallRequest<'a, F> {
        CallRequest { call: self.call, cancelled }
    }
}

/// The outcome of a call found in reply text that was rejected there.
fn rejected(written: Option<&ExtractedCall>) -> Option<CallOutcome> {
    let written = written?;
    let error = written.rejected.clone()?;
    Some(CallOutcome { tool: written.tool.clone(), repairs: written.repairs.clone(), ..CallOutcome::failed(error) })
}

/// `outcome` with what reading the call from reply text repaired (its name among
/// them) first; `name` is the name the request ran.
fn with_reading(written: Option<&ExtractedCall>, name: &str, mut outcome: CallOutcome) -> CallOutcome {
    if let Some(written) = written {
        outcome.repairs.splice(0..0, written.repairs.iter().cloned());
        if written.name != name {
            outcome.repaired_from = Some(written.name.clone());
        }
    }
    outcome
}

impl CallRequest<'_, Pending<()>> {
    /// Runs the call on this thread and waits for its outcome.
    pub fn run(self) -> CallOutcome {
        let call = self.call;
        match call.own_call() {
            Some(OwnCall::Done(outcome)) => return with_reading(call.written, call.name, outcome),
            Some(OwnCall::Forward(forward)) => {
                let forwarded = call.forwarded(&forward).run();
                let outcome = forward.outcome(forwarded);
                return with_reading(call.written, call.name, outcome);
            }
            None => {}
        }
        let (snapshot, registry, resolved) = match call.begin() {
            Ok(found) => found,
            Err(outcome) => return *outcome,
        };
        let mut repairs = Vec::new();
        let empty = Value::Object(Map::new());
        let run = call.host.prepare(&snapshot, &registry, &resolved, &call.settings(&empty), &mut repairs);
        let runtime = &call.host.core.runtime;
        let mut approved = false;
        let result = run.and_then(|step| {
            let (step, seen) = runtime.block_on(call.screened(&resolved.name, step))?;
            approved = runtime.block_on(call.approved(&registry, &resolved.name, &step))?;
            let result = match step {
                Step::Component(invocation, args, _) => invoke(runtime, &invocation, &args),
                #[cfg(feature = "mcp-servers")]
                Step::Server(server_call) => server_call.run(),
            };
            runtime.block_on(Call::reviewed(seen, result))
        });
        let outcome = CallOutcome { approved, ..CallOutcome::of(resolved, repairs, result) };
        with_reading(call.written, call.name, outcome)
    }
}

impl<C: Future<Output = ()>> CallRequest<'_, C> {
    /// Runs the call for async code, until it ends or is cancelled (see
    /// [`CallRequest::cancel_on`]). A component's tool runs on the awaiting task
    /// itself: its waits in the host are awaited, and its guest code yields to the
    /// executor at every epoch tick (5 ms), so no executor thread is held longer
    /// than that, and no call is handed to another thread. An MCP server's tool is
    /// called on the servers' own runtime. Needs a tokio runtime. Dropping the
    /// future cancels the call.
    pub async fn run_async(self) -> CallOutcome {
        let CallRequest { call, cancelled } = self;
        match call.own_call() {
            Some(OwnCall::Done(outcome)) => return with_reading(call.written, call.name, outcome),
            Some(OwnCall::Forward(forward)) => {
                let forwarded = call.forwarded(&forward).cancel_on(cancelled);
                // Boxed: a forwarded call runs this function again (once: the caller
                // never forwards to itself).
                let forwarded = Box::pin(forwarded.run_async()).await;
                let outcome = forward.outcome(forwarded);
                return with_reading(call.written, call.name, outcome);
            }
            None => {}
        }
        let (snapshot, registry, resolved) = match call.begin() {
            Ok(found) => found,
            Err(outcome) => return *outcome,
        };
        let mut repairs = Vec::new();
        let empty = Value::Object(Map::new());
        let settings = call.settings(&empty);
        let mut approved = false;
        let run = async {
            let step = call.host.prepare(&snapshot, &registry, &resolved, &settings, &mut repairs)?;
            let (step, seen) = call.screened(&resolved.name, step).await?;
            approved = call.approved(&registry, &resolved.name, &step).await?;
            let result = match step {
                Step::Component(invocation, args, _) => invoke_async(&call.host.core.runtime, &invocation, &args).await,
                #[cfg(feature = "mcp-servers")]
                Step::Server(server_call) => server_call.run_async().await,
            };
            Call::reviewed(seen, result).await
        };
        // The call first: a call done by the time the caller gives up has its outcome.
        let result = match futures::future::select(std::pin::pin!(run), std::pin::pin!(cancelled)).await {
            Either::Left((result, _)) => result,
            Either::Right(((), _)) => Err(ToolError::Cancelled { tool: resolved.name.clone() }),
        };
        let outcome = CallOutcome { approved, ..CallOutcome::of(resolved, repairs, result) };
        with_reading(call.written, call.name, outcome)
    }
}

impl Call<'_> {
    /// What preparing the call needs of the request.
    fn settings<'s>(&'s self, empty: &'s Value) -> Settings<'s> {
        Settings {
            arguments: self.arguments.arguments(empty),
            observer: self.observer.as_ref(),
            deadline: self.deadline,
        }
    }

    /// What the call is when it is a disclosing host's finder's or caller's (see
    /// [`Host::disclosing`]): a search, run here, or a call of another tool to make.
    fn own_call(&self) -> Option<OwnCall> {
        if rejected(self.written).is_some() {
            return None;
        }
        let empty = Value::Object(Map::new());
        self.host.own_call(self.name, self.arguments.arguments(&empty))
    }

    /// The call the caller makes for `forward`, for the same caller, observer and deadline.
    fn forwarded<'f>(&'f self, forward: &'f Forward) -> CallRequest<'f> {
        let mut request = self.host.request(&forward.name).arguments(&forward.arguments);
        request.call.observer.clone_from(&self.observer);
        request.call.caller = self.caller;
        request.call.deadline = self.deadline;
        request
    }

    /// `step` as the policies chosen for its call let it run (their rewrites in
    /// place), with their screening, to look at its result too; `step` untouched when
    /// none is chosen; or the error of the policy that stopped it.
    async fn screened<'s>(
        &'s self,
        tool: &'s str,
        step: Step<'s>,
    ) -> Result<(Step<'s>, Option<Screening<'s>>), ToolError> {
        let Some(mut screening) = self.host.core.policies.screening(tool, self.caller, self.host.profile.as_deref())
        else {
            return Ok((step, None));
        };
        let given = step.arguments();
        let arguments = screening.before(given.clone(), |rewritten| step.fits(rewritten)).await?;
        if *arguments == given {
            return Ok((step, Some(screening)));
        }
        let unfit = |reason| ToolError::Unavailable { tool: tool.to_string(), reason };
        let step = step.with_arguments(arguments).map_err(unfit)?;
        Ok((step, Some(screening)))
    }

    /// Whether a person approved the call of `tool` that `step` makes (`false`: it
    /// needs no approval); the error that stops it when it needed one and got none.
    async fn approved(&self, registry: &Registry, tool: &str, step: &Step<'_>) -> Result<bool, ToolError> {
        let approval = &self.host.core.approval;
        if !approval.is_set() && !registry.asks_approval() {
            return Ok(false);
        }
        let Some(spec) = registry.spec(tool) else { return Ok(false) };
        if !spec.approval && !approval.needed(tool, &spec.annotations) {
            return Ok(false);
        }
        approval.ask(self.observer.as_ref(), tool, &step.arguments()).await?;
        Ok(true)
    }

    /// `result` as the policies of `screening` (none: no policy was chosen) pass it on.
    async fn reviewed(
        screening: Option<Screening<'_>>,
        result: Result<Returned, ToolError>,
    ) -> Result<Returned, ToolError> {
        match screening {
            Some(screening) => screening.after(result).await,
            None => result,
        }
    }

    /// What the call runs on (see [`Host::resolve_call`]), logged; or its outcome
    /// already, when it was rejected where it was read or its name resolves to no tool.
    fn begin(&self) -> Result<(Arc<Snapshot>, Arc<Registry>, Resolved), Box<CallOutcome>> {
        if let Some(rejected) = rejected(self.written) {
            return Err(Box::new(rejected));
        }
        let (snapshot, registry, resolved) =
            self.host.resolve_call(self.name).map_err(|error| Box::new(CallOutcome::failed(error)))?;
        if let Some(caller) = self.caller {
            tracing::debug!("call of '{}' for {caller}", resolved.name);
        }
        Ok((snapshot, registry, resolved))
    }
}

/// What a request gives the preparing of its call.
struct Settings<'s> {
    arguments: Arguments<'s>,
    observer: Option<&'s Arc<dyn CallObserver>>,
    deadline: Option<Instant>,
}

impl Settings<'_> {
    /// `limits` with the time no later than the deadline.
    fn limits(&self, limits: Limits) -> Limits {
        let Some(deadline) = self.deadline else { return limits };
        Limits { time: limits.time.min(deadline.saturating_duration_since(Instant::now())), ..limits }
    }
}

/// How a resolved call runs.
enum Step<'s> {
    /// A component's function, with its arguments bound to its parameters.
    Component(Invocation<'s>, Vec<wasmtime::component::Val>, &'s [ParamSpec]),
    /// A server's tool, its arguments bound.
    #[cfg(feature = "mcp-servers")]
    Server(servers::ServerCall<'s>),
}

impl Step<'_> {
    /// The arguments as the tool gets them, as a JSON object under its parameters'
    /// names (what a policy sees).
    fn arguments(&self) -> Value {
        match self {
            Step::Component(_, args, params) => {
                Value::Object(params.iter().zip(args).map(|(param, arg)| (param.name.clone(), to_json(arg))).collect())
            }
            #[cfg(feature = "mcp-servers")]
            Step::Server(server_call) => server_call.arguments().clone(),
        }
    }

    /// Whether `arguments` (a policy's rewrite of [`Step::arguments`]) fit the tool:
    /// else why not. A server checks its own.
    fn fits(&self, arguments: &Value) -> Result<(), String> {
        match self {
            Step::Component(_, _, params) => bind_rewrite(params, arguments).map(drop),
            #[cfg(feature = "mcp-servers")]
            Step::Server(_) => Ok(()),
        }
    }

    /// The step with `arguments` (a policy's rewrite of [`Step::arguments`]) in
    /// place; else why they do not fit the tool.
    fn with_arguments(self, arguments: &Value) -> Result<Self, String> {
        match self {
            Step::Component(invocation, _, params) => {
                Ok(Step::Component(invocation, bind_rewrite(params, arguments)?, params))
            }
            #[cfg(feature = "mcp-servers")]
            Step::Server(server_call) => Ok(Step::Server(server_call.with_arguments(arguments.clone()))),
        }
    }
}

/// A policy's rewrite of a component's arguments, bound to its parameters (with the
/// lossless conversions a model's arguments get); else why it does not fit.
fn bind_rewrite(params: &[ParamSpec], arguments: &Value) -> Result<Vec<wasmtime::component::Val>, String> {
    params
        .iter()
        .map(|param| {
            let value = arguments.get(&param.name).unwrap_or(&Value::Null);
            to_val(value, &param.ty, &mut Walk::at(&param.name))
                .map_err(|mismatch| format!("its rewrite of {} is not {}", mismatch.path, mismatch.expected))
        })
        .collect()
}

impl Host {
    /// What a call of `name` runs on: one snapshot for the whole call (a reload
    /// meanwhile does not affect it), its active registry, and the tool the name
    /// resolves to there.
    pub(super) fn resolve_call(&self, name: &str) -> Result<(Arc<Snapshot>, Arc<Registry>, Resolved), ToolError> {
        let snapshot = self.core.current.load_full();
        let registry = self.registry_in(&snapshot);
        let resolved = registry.resolve(name)?;
        Ok((snapshot, registry, resolved))
    }

    /// What running the resolved tool takes: a component's function with its bound
    /// arguments, or a server's tool with its own.
    fn prepare<'s>(
        &self,
        snapshot: &'s Snapshot,
        registry: &'s Registry,
        resolved: &'s Resolved,
        settings: &Settings<'s>,
        repairs: &mut Vec<Repair>,
    ) -> Result<Step<'s>, ToolError> {
        let unavailable = |reason: &str| ToolError::Unavailable { tool: resolved.name.clone(), reason: reason.into() };
        let (served, found, function) = match snapshot.target(resolved.tool) {
            Some(Target::Component(served, found)) => match found.spec.wit_function() {
                Some(function) => (served, found, function),
                // Introspection makes every found tool a function's; never otherwise.
                None => return Err(unavailable("it is not a component's function")),
            },
            #[cfg(feature = "mcp-servers")]
            Some(Target::Server(server, index)) => {
                let call = servers::bind(server, index, &resolved.name, settings.arguments, repairs)?;
                return Ok(Step::Server(call.within(|limits| settings.limits(limits))));
            }
            #[cfg(not(feature = "mcp-servers"))]
            Some(Target::Server(..)) => return Err(unavailable("MCP servers are not served without the feature")),
            None => return Err(unavailable("it is not in the plugins this call started with")),
        };
        if let Some(name) = served.secrets.current().missing.first() {
            let component = &served.plugin.name;
            return Err(unavailable(&format!(
                "it needs the secret '{name}', which is not set: set it with `toolhost secret set {component} {name}` \
                 (the value on stdin)"
            )));
        }
        let spec = registry.spec(&resolved.name).unwrap_or(&found.spec);
        let args = bind(spec, function, settings.arguments, repairs)?;
        let call = Invocation {
            tool: &resolved.name,
            component: &served.plugin.name,
            warm: &served.warm,
            export: &found.export,
            result: function.result.as_ref(),
            limits: settings.limits(served.limits),
            observer: settings.observer,
        };
        Ok(Step::Component(call, args, &function.params))
    }
}
