//! A call's outcome and the library's errors as plain JavaScript objects, which
//! `lib/` turns into `CallOutcome` and `ToolExecutionError`; and a failure of the
//! addon itself as a JavaScript error whose `code` names the class to throw.

use napi_derive::napi;
use serde_json::{Value, json};
use toolhost::{CallOutcome, Content, ToolError, ToolFormat};

/// A failure thrown to JavaScript: its message starts with the class `lib/` throws
/// (`LoadError: …`, `ToolsetError`, `TypeError`, `RangeError`), which `lib/` takes
/// off. (napi's own error codes cannot cross an `async fn`.)
pub(crate) type Failure = napi::Error;

/// A failure of class `class` saying `message`.
pub(crate) fn failure(class: &str, message: &str) -> Failure {
    napi::Error::from_reason(format!("{class}: {message}"))
}

/// `outcome` as `{tool, repairedFrom, repairs, value, error, content, approved}`: `error` is a
/// `ToolError`'s JSON (see [`error_json`]), or null when the call succeeded.
pub(crate) fn outcome_json(outcome: &CallOutcome) -> Value {
    let (value, error) = match &outcome.result {
        Ok(value) => (value.clone(), Value::Null),
        Err(error) => (Value::Null, error_json(error)),
    };
    let repairs: Vec<String> = outcome.repairs.iter().map(ToString::to_string).collect();
    json!({
        "tool": outcome.tool,
        "repairedFrom": outcome.repaired_from,
        "repairs": repairs,
        "value": value,
        "error": error,
        "content": serde_json::to_value(&outcome.content).unwrap_or_default(),
        "approved": outcome.approved,
    })
}

/// A `ToolError` as `ToolError::to_json` has it: `{"error": message, "kind": …, …facts}`.
pub(crate) fn error_json(error: &ToolError) -> Value {
    let mut details = error.to_json();
    if details.get("error").is_none() {
        details["error"] = Value::String(error.to_string());
    }
    details
}

/// A format name as `ToolFormat`, or a `TypeError` listing the names.
pub(crate) fn tool_format(name: &str) -> Result<ToolFormat, Failure> {
    name.parse().map_err(|unknown: toolhost::UnknownFormat| failure("TypeError", &unknown.to_string()))
}

/// A successful call's `value` and `content` (MCP content blocks) as `format`'s
/// tool-result message carries them (see `ToolFormat::tool_result`).
#[napi]
pub fn tool_result(format: String, value: Value, content: Value) -> Result<Value, Failure> {
    let content: Vec<Content> = serde_json::from_value(content)
        .map_err(|e| failure("TypeError", &format!("content is not a list of MCP content blocks: {e}")))?;
    Ok(tool_format(&format)?.tool_result(&value, &content))
}

/// The corrective error for an argument of `tool` at `path` that JSON cannot carry
/// (`got`: NaN, an infinity, a bigint), as [`error_json`] has it.
#[napi]
pub fn invalid_value(tool: String, path: String, got: String) -> Value {
    error_json(&ToolError::not_json(&tool, &path, &got))
}
