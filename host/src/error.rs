//! The errors of the library: [`ToolError`] for a call (its `Display` is the corrective
//! message for the model) and [`LoadError`] for building a host.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::tool::ExpectedParameters;
use crate::tool::names::python_list;

/// Why a tool call failed. `Display` is the message to hand back to the model; the
/// fields carry the same facts for programs, and [`ToolError::to_json`] renders both.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No active tool has this name, even after repair.
    #[error("{}", unknown_tool_message(.name, .suggestion.as_deref(), .available_tools, .nearest_tools))]
    UnknownTool {
        /// The name the model sent.
        name: String,
        /// The nearest tool name, a hint only: it was not run.
        suggestion: Option<String>,
        /// Every active tool name, sorted (shared with the registry: cheap to clone).
        available_tools: std::sync::Arc<[String]>,
        /// The tools nearest to the name, best first (at most [`ToolError::NEAREST_TOOLS`]):
        /// those whose words hold most of the name's, then those spelt like it; none
        /// when no tool is near. What the message lists instead of every tool when
        /// there are more than [`ToolError::LISTED_TOOLS`].
        nearest_tools: Vec<String>,
    },
    /// Several active tools match the name after repair; none was run.
    #[error(
        "Tool '{name}' is ambiguous: it matches {}. Nothing was run; call one of them by its exact name.",
        python_list(.candidates)
    )]
    AmbiguousTool {
        /// The name the model sent.
        name: String,
        /// The exact names of every matching tool, sorted.
        candidates: Vec<String>,
    },
    /// The arguments do not fit the tool's parameters (missing, unknown, duplicated, not an object).
    #[error("{problem}{}", .expected_parameters.as_ref().map(|e| format!(" {}", e.hint(.tool))).unwrap_or_default())]
    InvalidArguments {
        /// The tool that was called.
        tool: String,
        /// What is wrong, as a sentence.
        problem: String,
        /// The parameters the tool takes, when they could be read.
        expected_parameters: Option<ExpectedParameters>,
    },
    /// A value does not fit its parameter's type; the parameter names were right.
    #[error("Invalid arguments for '{tool}': '{path}' must be {expected}, got {got}.")]
    InvalidValue {
        /// The tool that was called.
        tool: String,
        /// Where the value is, e.g. `items[2].name`.
        path: String,
        /// The expected type in JSON words, e.g. `an integer between 0 and 255`.
        expected: String,
        /// The value that came, as JSON (shortened when long).
        got: String,
    },
    /// The tool ran and returned an error of its own; its message is passed on unchanged.
    #[error("{message}")]
    ToolFailed {
        /// The tool that was called.
        tool: String,
        /// The tool's own message (a string error as is, any other error as JSON).
        message: String,
    },
    /// The sandbox denied something the tool tried (an HTTP request to a host not
    /// allowed, a socket, a host-name lookup, a file outside its grants) and the tool
    /// then failed.
    #[error("{}", denied_message(.tool, .denied, .message))]
    Denied {
        /// The tool that was called.
        tool: String,
        /// What was denied, each in words naming the host, address or path.
        denied: Vec<String>,
        /// What the tool said after the denial (its error, or how it crashed).
        message: String,
    },
    /// The tool trapped: a panic, or another fault in the guest.
    #[error("Tool '{tool}' crashed: {reason}. Retrying with the same arguments will fail the same way.")]
    Crashed {
        /// The tool that was called.
        tool: String,
        /// The guest's panic message, or the fault in plain words.
        reason: String,
    },
    /// The tool ran longer than its time limit and was stopped.
    #[error(
        "Tool '{tool}' was stopped after its time limit of {} ms. Retrying may help only with smaller input.",
        .limit.as_millis()
    )]
    TimedOut {
        /// The tool that was called.
        tool: String,
        /// The time limit that was exceeded.
        limit: Duration,
    },
    /// The tool needed more memory than its limit allows.
    #[error(
        "Tool '{tool}' ran out of memory: its limit is {limit_bytes} bytes. Retrying may help only with smaller input."
    )]
    OutOfMemory {
        /// The tool that was called.
        tool: String,
        /// The memory limit, in bytes.
        limit_bytes: u64,
    },
    /// The tool's result was larger than the result size limit.
    #[error(
        "Tool '{tool}' returned a result larger than its limit of {limit_bytes} bytes. Ask for less (a narrower query or a smaller range)."
    )]
    ResultTooLarge {
        /// The tool that was called.
        tool: String,
        /// The result size limit, in bytes.
        limit_bytes: u64,
    },
    /// The host was too busy to run the call: every call slot stayed taken while it
    /// waited its turn, or the queue of waiting calls was full. Nothing ran; the same
    /// call may well succeed later.
    #[error(
        "Tool '{tool}' was not run: the host is busy ({running} calls running, {queued} waiting; this call waited {} ms for a turn). Nothing is wrong with the call; retrying in a while can help.",
        .waited.as_millis()
    )]
    Busy {
        /// The tool that was called.
        tool: String,
        /// Calls running when this one gave up.
        running: usize,
        /// Calls waiting besides this one.
        queued: usize,
        /// How long this call waited.
        waited: Duration,
    },
    /// The caller called the tool more often than its rate limit allows (see
    /// `toolhost::mcp::RateLimits`). Nothing ran; the same call succeeds after
    /// `retry_after`.
    #[error(
        "Tool '{tool}' is rate-limited for you: {per_minute} calls a minute; retry in {} s.",
        .retry_after.as_secs_f64().ceil()
    )]
    RateLimited {
        /// The tool that was called.
        tool: String,
        /// The calls a minute the caller may make of it.
        per_minute: u32,
        /// How long until a call is allowed again.
        retry_after: Duration,
    },
    /// The MCP server a tool belongs to could not answer: it cannot be started or
    /// reached, it exited or its connection broke during the call, or what it sent
    /// is not MCP. `retry` says whether the same call may succeed later.
    #[error(
        "Tool '{tool}' could not be run: its MCP server '{server}' {reason}. {}",
        if *.retry { "Retrying the call can help." } else { "Retrying will not help until the server is fixed." }
    )]
    ServerFailed {
        /// The tool that was called.
        tool: String,
        /// The server's name (its file name without `.mcp.toml`).
        server: String,
        /// What happened, in plain words, as the rest of a sentence.
        reason: String,
        /// Whether retrying the call may help (the server is being started again).
        retry: bool,
    },
    /// A REST API plugin's operation failed: the API answered with an error status
    /// (its own words passed on, bounded), could not be reached, or answered with
    /// something a model cannot use. `retry` says whether the same call may succeed later.
    #[error(
        "Tool '{tool}' failed: its REST API '{api}' {reason}. {}",
        if *.retry { "Retrying the call can help." } else { "Retrying the same call will not help." }
    )]
    ApiFailed {
        /// The tool that was called.
        tool: String,
        /// The API's name (its file name without `.openapi.toml`).
        api: String,
        /// The HTTP status it answered with, if it answered.
        status: Option<u16>,
        /// What happened, in plain words, as the rest of a sentence.
        reason: String,
        /// Whether retrying the call may help.
        retry: bool,
    },
    /// The caller cancelled the call before it finished (an MCP client's
    /// `notifications/cancelled`, or the cancellation a caller passed to
    /// [`Host::dispatch_until`](crate::Host::dispatch_until)): its instance was stopped, or
    /// its MCP server told to stop.
    #[error("Tool '{tool}' was cancelled before it finished; it returned nothing.")]
    Cancelled {
        /// The tool that was called.
        tool: String,
    },
    /// A policy stopped the call (see `toolhost::Policy`): it refused it, saying
    /// `message`, or it failed, and `message` says only that.
    #[error("{message}")]
    Refused {
        /// The tool that was called.
        tool: String,
        /// The policy's name.
        policy: String,
        /// What the model is told.
        message: String,
    },
    /// The tool needs a person's approval (see `toolhost::Approval`) and did not get it.
    #[error("{}", unapproved_message(.tool, .reason))]
    NotApproved {
        /// The tool that was called.
        tool: String,
        /// Why there was no approval.
        reason: Unapproved,
    },
    /// The host could not run the tool at all (e.g. the component failed to instantiate).
    #[error("Tool '{tool}' could not be run: {reason}. This is a problem with the tool, not the arguments.")]
    Unavailable {
        /// The tool that was called.
        tool: String,
        /// What went wrong, in plain words.
        reason: String,
    },
}

/// Why a call that needed a person's approval did not get it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unapproved {
    /// The person said no (or their client cannot ask them: MCP clients without
    /// elicitation decline every question).
    Declined,
    /// The person dismissed the question without choosing.
    Dismissed,
    /// Nobody answered within this long.
    Unanswered(Duration),
    /// The call came with no way to ask anyone (no observer).
    NoOneToAsk,
}

impl Unapproved {
    /// A short, stable name: `declined`, `dismissed`, `unanswered`, `no_one_to_ask`.
    pub fn kind(&self) -> &'static str {
        match self {
            Unapproved::Declined => "declined",
            Unapproved::Dismissed => "dismissed",
            Unapproved::Unanswered(_) => "unanswered",
            Unapproved::NoOneToAsk => "no_one_to_ask",
        }
    }
}

fn unapproved_message(tool: &str, reason: &Unapproved) -> String {
    match reason {
        Unapproved::Declined => format!(
            "The person using the agent did not approve running '{tool}' (they declined, or their client cannot \
             ask them), so it was not run. Do not call it again unless they ask you to."
        ),
        Unapproved::Dismissed => {
            format!("The person using the agent dismissed the request to run '{tool}', so it was not run.")
        }
        Unapproved::Unanswered(wait) => {
            format!("Nobody approved running '{tool}' within {} s, so it was not run.", wait.as_secs())
        }
        Unapproved::NoOneToAsk => {
            format!("'{tool}' runs only with a person's approval, and this caller cannot ask one, so it was not run.")
        }
    }
}

fn denied_message(tool: &str, denied: &[String], message: &str) -> String {
    let stop = if message.trim_end().ends_with(['.', '!', '?']) { "" } else { "." };
    format!(
        "Tool '{tool}' was denied by its sandbox: {}. The tool reported: {}{stop} Retrying will not help; \
         only the tool's manifest can grant this access.",
        denied.join("; "),
        message.trim_end()
    )
}

/// The inventory while it is short; past [`ToolError::LISTED_TOOLS`], the nearest
/// tools (by the name's words, then its spelling) and how many there are, so one
/// typo never costs a model its context; none when no tool is near.
fn unknown_tool_message(name: &str, suggestion: Option<&str>, available: &[String], nearest: &[String]) -> String {
    let hint = suggestion.map(|s| format!(" Did you mean '{s}'?")).unwrap_or_default();
    if available.len() <= ToolError::LISTED_TOOLS {
        return format!("Tool '{name}' not found.{hint} Available tools: {}", python_list(available));
    }
    if nearest.is_empty() {
        return format!(
            "Tool '{name}' not found. None of the {} available tools has a name or description like it: call one of the tools you were given, by its exact name.",
            available.len()
        );
    }
    format!(
        "Tool '{name}' not found.{hint} The nearest of the {} available tools: {}",
        available.len(),
        python_list(nearest)
    )
}

impl ToolError {
    /// The most tools an unknown name's message lists; a longer inventory is shown
    /// by its [nearest](ToolError::NEAREST_TOOLS) tools and its size.
    pub const LISTED_TOOLS: usize = 40;

    /// How many of the nearest tools an unknown name's error carries.
    pub const NEAREST_TOOLS: usize = 10;

    /// The corrective error for an argument of `tool` at `path` (empty: the
    /// arguments themselves) that JSON cannot carry, such as NaN (`got`), for the
    /// faces that take their language's values.
    pub fn not_json(tool: &str, path: &str, got: &str) -> ToolError {
        ToolError::InvalidValue {
            tool: tool.to_owned(),
            path: if path.is_empty() { "the arguments".into() } else { path.to_owned() },
            expected: "a finite number (JSON has no NaN or infinity)".into(),
            got: got.to_owned(),
        }
    }

    /// A short, stable name for the kind of failure, e.g. `unknown_tool`.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::AmbiguousTool { .. } => "ambiguous_tool",
            ToolError::InvalidArguments { .. } => "invalid_arguments",
            ToolError::InvalidValue { .. } => "invalid_value",
            ToolError::ToolFailed { .. } => "tool_failed",
            ToolError::Denied { .. } => "denied",
            ToolError::Crashed { .. } => "crashed",
            ToolError::TimedOut { .. } => "timed_out",
            ToolError::OutOfMemory { .. } => "out_of_memory",
            ToolError::ResultTooLarge { .. } => "result_too_large",
            ToolError::Busy { .. } => "busy",
            ToolError::RateLimited { .. } => "rate_limited",
            ToolError::ServerFailed { .. } => "server_failed",
            ToolError::ApiFailed { .. } => "api_failed",
            ToolError::Cancelled { .. } => "cancelled",
            ToolError::Refused { .. } => "refused",
            ToolError::NotApproved { .. } => "not_approved",
            ToolError::Unavailable { .. } => "unavailable",
        }
    }

    /// The structured form: `{"error": message, "kind": …}` plus every fact of the
    /// failure under its field's name (`tool`, `available_tools`, `expected_parameters`,
    /// `path`, `limit_ms`, …), for programs and for faces in other languages.
    pub fn to_json(&self) -> Value {
        let mut object = json!({ "error": self.to_string(), "kind": self.kind() });
        let facts = match self {
            ToolError::UnknownTool { name, suggestion, available_tools, nearest_tools } => json!({
                "name": name,
                "suggestion": suggestion,
                "available_tools": &**available_tools,
                "nearest_tools": nearest_tools,
            }),
            ToolError::AmbiguousTool { name, candidates } => json!({ "name": name, "candidates": candidates }),
            ToolError::InvalidArguments { tool, problem, expected_parameters } => {
                let mut facts = json!({ "tool": tool, "problem": problem });
                if let Some(expected) = expected_parameters {
                    facts["expected_parameters"] = json!(expected);
                }
                facts
            }
            ToolError::InvalidValue { tool, path, expected, got } => {
                json!({ "tool": tool, "path": path, "expected": expected, "got": got })
            }
            ToolError::ToolFailed { tool, message } => json!({ "tool": tool, "message": message }),
            ToolError::Cancelled { tool } => json!({ "tool": tool }),
            ToolError::Refused { tool, policy, message } => {
                json!({ "tool": tool, "policy": policy, "message": message })
            }
            ToolError::NotApproved { tool, reason } => json!({ "tool": tool, "reason": reason.kind() }),
            ToolError::Denied { tool, denied, message } => {
                json!({ "tool": tool, "denied": denied, "message": message })
            }
            ToolError::Crashed { tool, reason } | ToolError::Unavailable { tool, reason } => {
                json!({ "tool": tool, "reason": reason })
            }
            ToolError::TimedOut { tool, limit } => json!({ "tool": tool, "limit_ms": millis(*limit) }),
            ToolError::OutOfMemory { tool, limit_bytes } | ToolError::ResultTooLarge { tool, limit_bytes } => {
                json!({ "tool": tool, "limit_bytes": limit_bytes })
            }
            ToolError::Busy { tool, running, queued, waited } => {
                json!({ "tool": tool, "running": running, "queued": queued, "waited_ms": millis(*waited) })
            }
            ToolError::ServerFailed { tool, server, reason, retry } => {
                json!({ "tool": tool, "server": server, "reason": reason, "retry": retry })
            }
            ToolError::ApiFailed { tool, api, status, reason, retry } => {
                json!({ "tool": tool, "api": api, "status": status, "reason": reason, "retry": retry })
            }
            ToolError::RateLimited { tool, per_minute, retry_after } => {
                json!({ "tool": tool, "per_minute": per_minute, "retry_after_ms": millis(*retry_after) })
            }
        };
        if let (Some(object), Value::Object(facts)) = (object.as_object_mut(), facts) {
            object.extend(facts);
        }
        object
    }
}

/// A duration in whole milliseconds, saturating (a limit is never near `u64::MAX` ms).
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Why a host could not be built or a plugin could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The plugin folder could not be read.
    #[error("cannot read the plugin folder {}: {error}", .path.display())]
    PluginDir {
        /// The folder.
        path: PathBuf,
        /// The underlying error (already in the message, so not a `source`).
        error: std::io::Error,
    },
    /// A file could not be read.
    #[error("cannot read {}: {error}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error (already in the message, so not a `source`).
        error: std::io::Error,
    },
    /// A file is not a component wasmtime can compile, or it cannot be linked.
    #[error("{}: {reason}", .path.display())]
    Component {
        /// The file.
        path: PathBuf,
        /// What is wrong, in plain words.
        reason: String,
    },
    /// A component pulled from a registry is not what its folder's `toolhost.lock`
    /// says was pulled (or the lock file cannot be used). Unlike other load errors, a
    /// reload does not keep serving the component's previous version.
    #[error("{}: {reason}", .path.display())]
    Locked {
        /// The file.
        path: PathBuf,
        /// What does not match, and what to do.
        reason: String,
    },
    /// The WebAssembly engine could not be set up.
    #[error("cannot set up the WebAssembly engine: {0}")]
    Engine(String),
    /// A plugin folder could not be watched for changes.
    #[error("cannot watch the plugin folder {}: {reason}", .path.display())]
    Watch {
        /// The folder.
        path: PathBuf,
        /// What the file-watching service said.
        reason: String,
    },
    /// A policy cannot be used (see `HostBuilder::policy_component`): a host is never
    /// built without a policy it was given.
    #[error("the policy '{name}' cannot be used: {reason}")]
    Policy {
        /// The policy's name (a component's file name without `.wasm`).
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An MCP server's file (`NAME.mcp.toml`) cannot be used, or its server cannot be
    /// started, reached or listed.
    #[error("{}: {reason}", .path.display())]
    Server {
        /// The file.
        path: PathBuf,
        /// What is wrong, in plain words.
        reason: String,
    },
}
