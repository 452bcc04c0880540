//! `toolhost replay`: recorded model tool calls run one by one, each shown with what
//! the host did and what the model gets back.

use std::process::ExitCode;

use anyhow::Context;
use serde_json::Value;
use toolhost::{CallOutcome, Host};

/// One recorded call: the name and the arguments (a JSON value or the model's text).
struct RecordedCall {
    name: String,
    arguments: Value,
    note: Option<String>,
}

/// Reads a transcript line: `{"name", "arguments"}`, an OpenAI tool call
/// (`{"function": {"name", "arguments": "<text>"}}`) or an Anthropic `tool_use` (`{"name", "input"}`).
fn recorded_call(line: &str) -> anyhow::Result<RecordedCall> {
    let value: Value = serde_json::from_str(line).context("the line is not JSON")?;
    let call = value.get("function").unwrap_or(&value);
    let name = call.get("name").and_then(Value::as_str).context("the call has no \"name\"")?;
    let arguments = call.get("arguments").or_else(|| call.get("input")).cloned().unwrap_or(Value::Null);
    let note = value.get("note").and_then(Value::as_str).map(str::to_string);
    Ok(RecordedCall { name: name.to_string(), arguments, note })
}

pub(crate) fn replay(host: &Host, transcript: &str) -> anyhow::Result<ExitCode> {
    let (mut ran, mut rejected) = (0, 0);
    for (number, line) in transcript.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let call = recorded_call(line).with_context(|| format!("transcript line {}", number + 1))?;
        let shown_arguments = match &call.arguments {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        println!();
        if let Some(note) = &call.note {
            println!("# {note}");
        }
        println!("model calls   {} {shown_arguments}", call.name);
        let outcome = match &call.arguments {
            Value::String(text) => host.dispatch_text(&call.name, text),
            other => host.dispatch(&call.name, other),
        };
        println!("host          {}", what_the_host_did(&outcome));
        match &outcome.result {
            Ok(value) => {
                ran += 1;
                println!("model gets    {value}");
            }
            Err(error) => {
                rejected += 1;
                println!("model gets    {error}");
            }
        }
    }
    println!("\n{ran} calls ran, {rejected} came back with a corrective message");
    Ok(ExitCode::SUCCESS)
}

fn what_the_host_did(outcome: &CallOutcome) -> String {
    let tool = outcome.tool.as_deref().unwrap_or("?");
    match (&outcome.repaired_from, &outcome.result) {
        (Some(from), Ok(_)) => format!("repaired '{from}' -> '{tool}', ran it"),
        (None, Ok(_)) => format!("ran '{tool}'"),
        (Some(from), Err(e)) => format!("repaired '{from}' -> '{tool}'; {}", e.kind().replace('_', " ")),
        (None, Err(e)) => e.kind().replace('_', " "),
    }
}
