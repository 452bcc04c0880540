//! The audit log of the MCP face: one JSON line per tool call — when, who (the
//! caller the HTTP guards admitted), which tool by which name, what was repaired,
//! how it ended, who approved it when a person had to (`approved_by`: the caller
//! whose client asked them), how long it took, how many bytes went in and out; the arguments
//! only when asked for, with the values of fields named like secrets redacted.
//! Written to a file (appended, created private) or to stderr; rotation is the
//! platform's (logrotate's `copytruncate`, or journald for stderr).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::access::Caller;
use crate::host::CallOutcome;

/// Parts of a field's name that mark its value as a secret (compared lowercased).
const SECRET_NAMES: [&str; 4] = ["token", "secret", "password", "key"];

/// Where the audit lines go, and whether they carry the calls' arguments.
pub struct AuditLog {
    sink: Mutex<Box<dyn Write + Send>>,
    arguments: bool,
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog").field("arguments", &self.arguments).finish_non_exhaustive()
    }
}

impl AuditLog {
    /// Appends to `path`, creating it readable by its owner alone.
    pub fn to_file(path: &Path) -> std::io::Result<AuditLog> {
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        Ok(AuditLog::to_writer(Box::new(options.open(path)?)))
    }

    /// Writes to stderr (for journald or a container's log).
    pub fn to_stderr() -> AuditLog {
        AuditLog::to_writer(Box::new(std::io::stderr()))
    }

    /// Writes to `writer`, a line per call.
    pub fn to_writer(writer: Box<dyn Write + Send>) -> AuditLog {
        AuditLog { sink: Mutex::new(writer), arguments: false }
    }

    /// Also records each call's arguments, with secrets' values redacted.
    #[must_use]
    pub fn with_arguments(self, arguments: bool) -> AuditLog {
        AuditLog { arguments, ..self }
    }

    /// Records one call: `name` as sent, its `arguments`, its `outcome`, and how long
    /// it took. A line that cannot be written is a warning, never the call's failure.
    pub(crate) fn record(&self, caller: &Caller, name: &str, arguments: &Value, outcome: &CallOutcome, took: Duration) {
        let mut line = json!({
            "time": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "caller": caller.name(),
            "name": name,
            "tool": outcome.tool,
            "repaired_from": outcome.repaired_from,
            "outcome": outcome.kind(),
            "duration_ms": took.as_secs_f64() * 1000.0,
            "bytes_in": crate::tool::json_len(arguments),
            "bytes_out": bytes_out(outcome),
        });
        if outcome.approved {
            // The person at the caller's client said yes to this call.
            line["approved_by"] = json!(caller.name());
        }
        if self.arguments {
            line["arguments"] = redacted(arguments);
        }
        let mut sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(error) = writeln!(sink, "{line}").and_then(|()| sink.flush()) {
            tracing::warn!("cannot write the audit log: {error}");
        }
    }
}

/// What the call sent back: the value's JSON and the content blocks, or the message.
fn bytes_out(outcome: &CallOutcome) -> usize {
    match &outcome.result {
        Ok(value) => crate::tool::json_len(value) + outcome.content.iter().map(crate::tool::json_len).sum::<usize>(),
        Err(error) => error.to_string().len(),
    }
}

/// `value` with the value of every field whose name holds a secret's name replaced.
fn redacted(value: &Value) -> Value {
    match value {
        Value::Object(fields) => {
            let fields = fields.iter().map(|(name, value)| {
                let lower = name.to_lowercase();
                let secret = SECRET_NAMES.iter().any(|part| lower.contains(part));
                (name.clone(), if secret { Value::String("[redacted]".into()) } else { redacted(value) })
            });
            Value::Object(fields.collect::<Map<String, Value>>())
        }
        Value::Array(items) => Value::Array(items.iter().map(redacted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_named_like_secrets_are_redacted_at_any_depth() {
        let arguments = json!({"query": "x", "API_Key": "k", "auth": {"accessToken": "t", "user": "u"},
                               "list": [{"password": "p"}], "monkey": "m"});
        let expected = json!({"query": "x", "API_Key": "[redacted]", "auth": {"accessToken": "[redacted]", "user": "u"},
                              "list": [{"password": "[redacted]"}], "monkey": "[redacted]"});
        assert_eq!(redacted(&arguments), expected);
    }
}
