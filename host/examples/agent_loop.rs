//! An agent loop with toolhost, offline: the tools go to the model in OpenAI's
//! format, each tool call the model makes goes to `host.request(name).text(arguments)`, and the
//! result, or the corrective message, goes back as the tool result. The "model" is
//! a script that makes the mistakes real models make and corrects itself from the
//! messages it gets back.
//!
//! Run it after building the guests (`scripts/build-guests.sh`):
//! `cargo run -p toolhost --example agent_loop`

use serde_json::{Value, json};
use toolhost::{Host, ToolFormat};

/// One tool call, as a chat-completions response carries it.
struct ToolCall {
    name: &'static str,
    arguments: &'static str,
}

/// A scripted model: it answers each turn with a tool call, or with text when done.
struct ScriptedModel {
    turns: std::vec::IntoIter<Option<ToolCall>>,
}

impl ScriptedModel {
    fn new() -> ScriptedModel {
        let turns = vec![
            // A drifted name and arguments with a trailing comma: both repaired.
            Some(ToolCall { name: "Convert", arguments: r#"{"value": 10, "from": "kilometer", "to": "mile",}"# }),
            // A typo in the name: the host answers with a hint and runs nothing...
            Some(ToolCall { name: "evalute", arguments: r#"{"expression": "6.21 * 2"}"# }),
            // ...so the model retries with the name it was offered.
            Some(ToolCall { name: "evaluate", arguments: r#"{"expression": "6.21 * 2"}"# }),
            None,
        ];
        ScriptedModel { turns: turns.into_iter() }
    }

    /// The next turn, given the conversation so far (a real model would read it).
    fn respond(&mut self, _messages: &[Value], _tools: &Value) -> Option<ToolCall> {
        self.turns.next().flatten()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let plugins = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/plugins");
    let host = Host::builder().plugin_dir(plugins).build()?;
    let tools = host.tool_definitions(ToolFormat::OpenAiChat);
    println!("offering the model {} tools", tools.as_array().map_or(0, Vec::len));

    let mut model = ScriptedModel::new();
    let mut messages = vec![json!({"role": "user", "content": "How many miles is 10 km, doubled?"})];
    while let Some(call) = model.respond(&messages, &tools) {
        let dispatch = host.request(call.name).text(call.arguments).run();
        let content = match &dispatch.result {
            Ok(value) => value.to_string(),
            Err(error) => error.to_string(),
        };
        println!("\nmodel called {} {}", call.name, call.arguments);
        if let (Some(from), Some(tool)) = (&dispatch.repaired_from, &dispatch.tool) {
            println!("  host repaired '{from}' -> '{tool}'");
        }
        println!("  tool result: {content}");
        messages.push(json!({"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": call.name, "arguments": call.arguments}}]}));
        messages.push(json!({"role": "tool", "content": content}));
    }
    println!("\nthe model is done after {} messages", messages.len());
    Ok(())
}
