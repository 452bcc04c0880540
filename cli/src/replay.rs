//! `toolhost replay`: recorded model tool calls run one by one, each shown with what
//! the host did and what the model gets back. A line may also be a model's raw reply
//! (`{"reply": "…"}`): the calls written in it are recovered and run.

use std::process::ExitCode;

use anyhow::Context;
use serde_json::Value;
use toolhost::{CallOutcome, Host, Repair, ToolCall};

/// Reads a transcript line as a call ([`ToolCall::from_json`]: `{"name", "arguments"}`,
/// OpenAI's and Anthropic's call objects), with its `note`, if any.
fn recorded_call(line: &str) -> anyhow::Result<(ToolCall, Option<String>)> {
    let value: Value = serde_json::from_str(line).context("the line is not JSON")?;
    let call = ToolCall::from_json(&value).context("the call has no \"name\"")?;
    Ok((call, note(&value)))
}

/// The note a transcript line carries about itself, if any.
fn note(line: &Value) -> Option<String> {
    line.get("note").and_then(Value::as_str).map(str::to_string)
}

/// A reply recorded as the model wrote it: `{"reply": "…"}`.
fn recorded_reply(line: &str) -> Option<(String, Option<String>)> {
    let value: Value = serde_json::from_str(line).ok()?;
    let reply = value.get("reply")?.as_str()?.to_string();
    Some((reply, note(&value)))
}

/// What the calls of a transcript came to.
#[derive(Default)]
struct Tally {
    ran: usize,
    rejected: usize,
}

impl Tally {
    /// Prints what the model gets, and counts it.
    fn show(&mut self, outcome: &CallOutcome) {
        println!("host          {}", what_the_host_did(outcome));
        // The name's repair is in the line above; the others follow it.
        for repair in outcome.repairs.iter().filter(|r| !matches!(r, Repair::ToolName { .. })) {
            println!("              repaired {repair}");
        }
        match &outcome.result {
            Ok(value) => {
                self.ran += 1;
                println!("model gets    {value}");
            }
            Err(error) => {
                self.rejected += 1;
                println!("model gets    {error}");
            }
        }
    }
}

/// A raw reply: the calls recovered from it, each run.
fn replay_reply(host: &Host, reply: &str, note: Option<&str>, tally: &mut Tally) {
    println!();
    if let Some(note) = note {
        println!("# {note}");
    }
    println!("model writes  {}", reply.replace('\n', "\n              "));
    let extraction = host.extract_calls(reply);
    if extraction.is_empty() {
        println!("host          {}; nothing runs", extraction.summary());
    }
    for call in extraction.in_order() {
        println!("host          recovered a call written as {}: {} {}", call.dialect.name(), call.name, call.arguments);
        tally.show(&call.request(host).run());
    }
}

pub(crate) fn replay(host: &Host, transcript: &str) -> anyhow::Result<ExitCode> {
    let mut tally = Tally::default();
    for (number, line) in transcript.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        if let Some((reply, note)) = recorded_reply(line) {
            replay_reply(host, &reply, note.as_deref(), &mut tally);
            continue;
        }
        let (call, note) = recorded_call(line).with_context(|| format!("transcript line {}", number + 1))?;
        let shown_arguments = match &call.arguments {
            Some(Value::String(text)) => text.clone(),
            other => other.as_ref().unwrap_or(&Value::Null).to_string(),
        };
        println!();
        if let Some(note) = &note {
            println!("# {note}");
        }
        println!("model calls   {} {shown_arguments}", call.name);
        tally.show(&call.request(host).run());
    }
    println!("\n{} calls ran, {} came back with a corrective message", tally.ran, tally.rejected);
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
