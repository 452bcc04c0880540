//! Policy: code that looks at a call before its tool runs and at its result after,
//! and allows it, refuses it, or changes it. A policy is a Rust [`Policy`] an embedder
//! gives the builder, or a policy component (`wit/toolhost.wit`'s `policy-component` world, see
//! `component.rs`) run in the sandbox under its own limits; both mean the same. The
//! host chains them in the order given, each for the calls its [`PolicyScope`]
//! chooses. A policy that fails (a trap, its time limit, a rewrite that cannot be
//! applied, a panic) stops the call: it fails closed, and the model is told which
//! policy failed, never what it saw.

mod approval;
mod component;
mod fields;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::error::{LoadError, ToolError};
use crate::invoke::Warmer;
use crate::load::Cache;
use crate::load::shaping::Choice;
use crate::runtime::Runtime;
use crate::sandbox::Limits;
use crate::tool::{Content, Returned};
pub use approval::Approval;
pub(crate) use approval::Asking;
use component::{ComponentPolicy, Held};

/// A policy written in Rust: it looks at a call before its tool runs and at what the
/// tool returned, as a policy component does (`wit/toolhost.wit`, `policy`). Both
/// methods allow by default.
///
/// ```
/// use toolhost::{Policy, PolicyCall, Verdict};
///
/// /// Keeps a file tool inside `notes/`.
/// struct NotesOnly;
///
/// impl Policy for NotesOnly {
///     fn before(&self, call: &PolicyCall<'_>) -> Verdict {
///         match call.arguments["path"].as_str() {
///             Some(path) if path.starts_with("notes/") && !path.contains("..") => Verdict::Allow,
///             _ => Verdict::Deny("Only files under notes/ may be read.".into()),
///         }
///     }
/// }
/// ```
pub trait Policy: Send + Sync {
    /// Before the tool runs: `call.arguments` are the arguments as the tool will get
    /// them (repaired, under its own parameter names). A [`Verdict::Rewrite`] gives
    /// the arguments to run it with instead.
    fn before(&self, call: &PolicyCall<'_>) -> Verdict {
        let _ = call;
        Verdict::Allow
    }

    /// After the tool ran, before the caller gets its result: `result` is an object
    /// with the value under `value` and the text of each text block of its content
    /// under `content` (keyed by the block's place among all its blocks: `"0"`,
    /// `"2"`), or, when the tool failed with an error of its own (or reported one
    /// after its sandbox denied it something), that message under `error`. A [`Verdict::Rewrite`] gives that object as it should be (its keys
    /// and the kinds of its texts unchanged).
    fn after(&self, call: &PolicyCall<'_>, result: &Value) -> Verdict {
        let _ = (call, result);
        Verdict::Allow
    }
}

/// A call as a policy sees it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PolicyCall<'a> {
    /// The tool's registered name.
    pub tool: &'a str,
    /// Who the call is for, when the request said.
    pub caller: Option<&'a str>,
    /// The arguments as the tool gets them (before: as the model's call gave them,
    /// repaired; after: as the tool got them).
    pub arguments: &'a Value,
}

/// What a policy says of a call or of its result.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Go on as it is.
    Allow,
    /// Stop: the model reads this message instead of the tool's result.
    Deny(String),
    /// Go on with this in place of what the policy was shown.
    Rewrite(Value),
}

/// Which calls a policy looks at: every call unless narrowed by patterns of the tools'
/// registered names (`read_file`, `*_file`; the patterns of a plugin's `include`) or
/// by callers or by the profiles the calls come through.
#[derive(Debug, Clone, Default)]
pub struct PolicyScope {
    tools: Vec<String>,
    callers: Vec<String>,
    profiles: Vec<String>,
}

impl PolicyScope {
    /// Every call.
    pub fn every_call() -> PolicyScope {
        PolicyScope::default()
    }

    /// Only calls of tools whose registered name matches one of `patterns`.
    pub fn tools<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> PolicyScope {
        self.tools.extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Only calls made for one of `callers` (see `CallRequest::caller`).
    pub fn callers<S: Into<String>>(mut self, callers: impl IntoIterator<Item = S>) -> PolicyScope {
        self.callers.extend(callers.into_iter().map(Into::into));
        self
    }

    /// Only calls made through one of the named `profiles` (a host a named
    /// [`Profile`](crate::Profile) made: over HTTP, `/mcp/NAME`).
    pub fn profiles<S: Into<String>>(mut self, profiles: impl IntoIterator<Item = S>) -> PolicyScope {
        self.profiles.extend(profiles.into_iter().map(Into::into));
        self
    }

    /// Whether a call of `tool` for `caller` through `profile` is in scope (`tools`
    /// read into `choice`).
    fn chooses(&self, tools: &Choice, tool: &str, caller: Option<&str>, profile: Option<&str>) -> bool {
        let named = |names: &[String], name: Option<&str>| {
            names.is_empty() || name.is_some_and(|name| names.iter().any(|given| given == name))
        };
        tools.serves(tool) && named(&self.callers, caller) && named(&self.profiles, profile)
    }
}

/// A policy component to chain (see `HostBuilder::policy_component`): its file (built
/// for the `policy-component` world of `wit/toolhost.wit`; the policy is named by the
/// file), the calls it looks at, its limits, and the environment variables it sees
/// (its settings: it is granted nothing else).
///
/// ```no_run
/// use toolhost::{Host, PolicyComponent, PolicyScope};
///
/// let host = Host::builder()
///     .plugin_dir("plugins")
///     .policy_component(
///         PolicyComponent::new("policies/path-allow.wasm")
///             .scope(PolicyScope::every_call().tools(["read_file", "write_file", "list_dir"]))
///             .env("ALLOW", "notes/,docs/"),
///     )
///     .build()?;
/// # Ok::<(), toolhost::LoadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PolicyComponent {
    path: PathBuf,
    scope: PolicyScope,
    limits: Limits,
    env: Vec<(String, String)>,
    reuse: bool,
}

impl PolicyComponent {
    /// The policy component at `path`, for every call, under [`DEFAULT_POLICY_LIMITS`].
    pub fn new(path: impl Into<PathBuf>) -> PolicyComponent {
        PolicyComponent {
            path: path.into(),
            scope: PolicyScope::every_call(),
            limits: DEFAULT_POLICY_LIMITS,
            env: Vec::new(),
            reuse: false,
        }
    }

    /// Only the calls `scope` chooses.
    pub fn scope(mut self, scope: PolicyScope) -> PolicyComponent {
        self.scope = scope;
        self
    }

    /// Each look at a call under `limits` (its time, memory and output; `result_bytes`
    /// bounds what a rewrite may make).
    pub fn limits(mut self, limits: Limits) -> PolicyComponent {
        self.limits = limits;
        self
    }

    /// The environment variable `name` set to `value` while it runs.
    pub fn env(mut self, name: &str, value: &str) -> PolicyComponent {
        self.env.push((name.into(), value.into()));
        self
    }

    /// With `true`, an instance that looked at a call and ended well serves later
    /// calls too, one at a time, instead of a fresh instance per call: a look then
    /// costs a call into the instance, not making one. Only for a policy that keeps
    /// nothing between calls: what it keeps, a later call (of any caller) may see. An
    /// instance that failed is never used again. Off unless set.
    pub fn reuse_instances(mut self, reuse: bool) -> PolicyComponent {
        self.reuse = reuse;
        self
    }
}

/// A policy as the builder was given it.
#[derive(Clone)]
pub(crate) struct PolicySetting {
    name: String,
    source: Source,
    scope: PolicyScope,
}

#[derive(Clone)]
enum Source {
    Native(Arc<dyn Policy>),
    Component(PolicyComponent),
}

impl PolicySetting {
    /// `policy`, named `name` in messages, for the calls `scope` chooses.
    pub(crate) fn native(name: &str, policy: Arc<dyn Policy>, scope: PolicyScope) -> PolicySetting {
        PolicySetting { name: name.into(), source: Source::Native(policy), scope }
    }

    /// A policy component, named by its file.
    pub(crate) fn component(component: PolicyComponent) -> PolicySetting {
        let name = component.path.file_stem().map_or("policy".into(), |stem| stem.to_string_lossy().into_owned());
        PolicySetting { name, scope: component.scope.clone(), source: Source::Component(component) }
    }
}

/// The limits of a policy component unless the builder says otherwise: 1 s, 64 MiB
/// of memory, 64 KiB of output, and 1 MiB of rewritten value.
pub const DEFAULT_POLICY_LIMITS: Limits = Limits {
    time: std::time::Duration::from_secs(1),
    memory_bytes: 64 << 20,
    output_bytes: 64 << 10,
    result_bytes: 1 << 20,
};

/// A host's policies, in chain order.
#[derive(Default)]
pub(crate) struct Policies(Vec<Chained>);

struct Chained {
    name: String,
    kind: Kind,
    tools: Choice,
    scope: PolicyScope,
}

enum Kind {
    Native(Arc<dyn Policy>),
    Component(ComponentPolicy),
}

impl Policies {
    /// Sets up `settings` in order: components loaded (their code kept in `cache`)
    /// and linked, patterns read.
    pub(crate) fn new(
        runtime: &Runtime,
        warmer: &Warmer,
        cache: Option<&Cache>,
        settings: &[PolicySetting],
    ) -> Result<Policies, LoadError> {
        let mut chained = Vec::new();
        for setting in settings {
            let failed = |reason: String| LoadError::Policy { name: setting.name.clone(), reason };
            let kind = match &setting.source {
                Source::Native(policy) => Kind::Native(policy.clone()),
                Source::Component(component) => Kind::Component(
                    ComponentPolicy::load(runtime, warmer, &setting.name, component, cache)
                        .map_err(|reason| failed(format!("{}: {reason}", component.path.display())))?,
                ),
            };
            let tools = Choice::new(&setting.scope.tools, &[]).map_err(failed)?;
            chained.push(Chained { name: setting.name.clone(), kind, tools, scope: setting.scope.clone() });
        }
        Ok(Policies(chained))
    }

    /// The looks at one call of `tool` for `caller` through `profile`: `None` when no
    /// policy is chosen for it (the call then runs as if there were no policies).
    pub(crate) fn screening<'p>(
        &'p self,
        tool: &'p str,
        caller: Option<&'p str>,
        profile: Option<&str>,
    ) -> Option<Screening<'p>> {
        let chosen = |policy: &&Chained| policy.scope.chooses(&policy.tools, tool, caller, profile);
        if !self.0.iter().any(|policy| chosen(&policy)) {
            return None;
        }
        let looks = self.0.iter().filter(chosen).map(|policy| Look { policy, held: None, failed: false }).collect();
        Some(Screening { tool, caller, looks, arguments: Value::Null })
    }
}

/// The chosen policies' looks at one call, in chain order: before it runs, then at
/// its result. A component's instance serves both its looks; all are handed back
/// when the screening ends, however the call ended.
pub(crate) struct Screening<'p> {
    tool: &'p str,
    caller: Option<&'p str>,
    looks: Vec<Look<'p>>,
    /// The arguments as the policies let the call run with.
    arguments: Value,
}

/// One policy's part in a screening.
struct Look<'p> {
    policy: &'p Chained,
    /// A component's instance for this call, once it has looked.
    held: Option<Held>,
    /// Whether a look failed (its instance is then never used again).
    failed: bool,
}

impl Look<'_> {
    /// What the policy says before the call.
    async fn before(&mut self, call: &PolicyCall<'_>) -> Result<Verdict, String> {
        match &self.policy.kind {
            Kind::Native(native) => native_verdict(|| native.before(call)),
            Kind::Component(component) => {
                let held = match &mut self.held {
                    Some(held) => held,
                    empty => empty.insert(component.instance().await?),
                };
                let verdict = component.before(held, call).await;
                self.failed |= verdict.is_err();
                verdict
            }
        }
    }

    /// What the policy says of `shown`, the result as policies see it.
    async fn after(&mut self, call: &PolicyCall<'_>, shown: &Value) -> Result<Verdict, String> {
        match &self.policy.kind {
            Kind::Native(native) => native_verdict(|| native.after(call, shown)),
            Kind::Component(component) => {
                let held = match &mut self.held {
                    Some(held) => held,
                    empty => empty.insert(component.instance().await?),
                };
                let verdict = component.after(held, call, shown).await;
                self.failed |= verdict.is_err();
                verdict
            }
        }
    }
}

impl Drop for Look<'_> {
    fn drop(&mut self) {
        if let (Kind::Component(component), Some(held)) = (&self.policy.kind, self.held.take()) {
            component.finish(held, !self.failed);
        }
    }
}

impl Screening<'_> {
    /// The arguments to run the tool with after every chosen policy looked at them in
    /// turn (each sees what the one before let through); or the error that stops the
    /// call. `fits` says whether a rewrite fits the tool's parameters, or why not.
    pub(crate) async fn before(
        &mut self,
        arguments: Value,
        fits: impl Fn(&Value) -> Result<(), String>,
    ) -> Result<&Value, ToolError> {
        let (tool, caller) = (self.tool, self.caller);
        self.arguments = arguments;
        for look in &mut self.looks {
            let call = PolicyCall { tool, caller, arguments: &self.arguments };
            let name = &look.policy.name;
            match look.before(&call).await {
                Ok(Verdict::Allow) => {}
                Ok(Verdict::Deny(message)) => return Err(refused(tool, name, message)),
                Ok(Verdict::Rewrite(rewritten)) => match fits(&rewritten) {
                    Ok(()) if rewritten.is_object() => self.arguments = rewritten,
                    Ok(()) => return Err(failed(tool, name, "its rewrite is not an object", Stage::Before)),
                    Err(why) => return Err(failed(tool, name, &why, Stage::Before)),
                },
                Err(why) => return Err(failed(tool, name, &why, Stage::Before)),
            }
        }
        Ok(&self.arguments)
    }

    /// `result` after every chosen policy looked at it in turn; a denial or a failure
    /// replaces it with the error that says so. The host's own errors pass untouched;
    /// of a tool's error, policies see (and may rewrite) the tool's own message.
    pub(crate) async fn after(mut self, result: Result<Returned, ToolError>) -> Result<Returned, ToolError> {
        let (tool, caller) = (self.tool, self.caller);
        let mut shown = match &result {
            Ok(returned) => shown_result(returned),
            Err(ToolError::ToolFailed { message, .. } | ToolError::Denied { message, .. }) => {
                serde_json::json!({ "error": message })
            }
            Err(_) => return result,
        };
        let mut changed = false;
        for look in &mut self.looks {
            let call = PolicyCall { tool, caller, arguments: &self.arguments };
            let name = &look.policy.name;
            match look.after(&call, &shown).await {
                Ok(Verdict::Allow) => {}
                Ok(Verdict::Deny(message)) => return Err(refused(tool, name, message)),
                Ok(Verdict::Rewrite(rewritten)) if same_shape(&shown, &rewritten) => {
                    shown = rewritten;
                    changed = true;
                }
                Ok(Verdict::Rewrite(_)) => {
                    return Err(failed(tool, name, "its rewrite changed the result's shape", Stage::After));
                }
                Err(why) => return Err(failed(tool, name, &why, Stage::After)),
            }
        }
        if !changed {
            return result;
        }
        let error = || shown["error"].as_str().unwrap_or_default().to_string();
        match result {
            Ok(returned) => Ok(with_shown(returned, shown)),
            Err(ToolError::ToolFailed { tool, .. }) => Err(ToolError::ToolFailed { tool, message: error() }),
            Err(ToolError::Denied { tool, denied, .. }) => Err(ToolError::Denied { tool, denied, message: error() }),
            Err(other) => Err(other),
        }
    }
}

/// A native policy's verdict; a panic is a failure.
fn native_verdict(verdict: impl FnOnce() -> Verdict) -> Result<Verdict, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(verdict)).map_err(|_| "it panicked".to_string())
}

/// Where a policy failed.
#[derive(Clone, Copy)]
enum Stage {
    Before,
    After,
}

/// The call stopped by `policy`, which said `message`.
fn refused(tool: &str, policy: &str, message: String) -> ToolError {
    ToolError::Refused { tool: tool.into(), policy: policy.into(), message }
}

/// The call stopped because `policy` failed (`why`, logged, never told the model).
fn failed(tool: &str, policy: &str, why: &str, stage: Stage) -> ToolError {
    tracing::warn!(tool, policy, "the policy failed, so the call was stopped: {why}");
    let message = match stage {
        Stage::Before => format!("A policy ({policy}) failed, so the call of '{tool}' was not run."),
        Stage::After => format!("A policy ({policy}) failed, so the result of '{tool}' was withheld."),
    };
    ToolError::Refused { tool: tool.into(), policy: policy.into(), message }
}

/// `returned` as policies see it: `{"value": …, "content": {"0": text, …}}`.
fn shown_result(returned: &Returned) -> Value {
    let texts: serde_json::Map<String, Value> = returned
        .content
        .iter()
        .enumerate()
        .filter_map(|(index, block)| match block {
            Content::Text { text } => Some((index.to_string(), Value::String(text.clone()))),
            _ => None,
        })
        .collect();
    serde_json::json!({ "value": returned.value, "content": texts })
}

/// `returned` with the value and texts of `shown` in place.
fn with_shown(mut returned: Returned, shown: Value) -> Returned {
    let Value::Object(mut shown) = shown else { return returned };
    if let Some(value) = shown.remove("value") {
        returned.value = value;
    }
    if let Some(Value::Object(texts)) = shown.remove("content") {
        for (index, text) in texts {
            if let (Ok(index), Value::String(new)) = (index.parse::<usize>(), text)
                && let Some(Content::Text { text }) = returned.content.get_mut(index)
            {
                *text = new;
            }
        }
    }
    returned
}

/// Whether `rewritten` keeps the keys of `shown` and a string wherever it had one
/// among the texts and the error.
fn same_shape(shown: &Value, rewritten: &Value) -> bool {
    let (Value::Object(shown), Value::Object(rewritten)) = (shown, rewritten) else { return false };
    let keys_kept = shown.len() == rewritten.len() && shown.keys().all(|key| rewritten.contains_key(key));
    let texts_kept = match (shown.get("content"), rewritten.get("content")) {
        (Some(Value::Object(before)), Some(Value::Object(after))) => {
            before.len() == after.len() && before.keys().all(|key| after.get(key).is_some_and(Value::is_string))
        }
        (None, None) => true,
        _ => false,
    };
    let error_kept = shown.get("error").is_none() || rewritten.get("error").is_some_and(Value::is_string);
    keys_kept && texts_kept && error_kept
}
