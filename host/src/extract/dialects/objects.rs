//! Dialects whose body is JSON call objects (`{"name": …, "arguments": …}`, alone,
//! several, or in an array) after a marker: Hermes' `<tool_call>`, Llama's
//! `<|python_tag|>`, Mistral's `[TOOL_CALLS]`, and the tags of Jamba, MiniMax,
//! Nemotron, LM Studio, LongCat, Granite, InternLM, Phi-4, Command, Apertus,
//! GigaChat, Qwen2.5-Coder, dots and Inkling; and ReAct's `Action:` lines.

use std::ops::Range;

use serde_json::{Map, Value};

use super::super::Dialect;
use super::super::json::{value_end, values_from};
use super::{Marker, Reply, Written, skip_spaces, skip_whitespace, tags};
use crate::tool::{Repair, ToolCall};

/// `<tool_call>` (or K2 Horizon's `<ifm|tool_call>`, iQuest Coder's
/// `<iquestcoder_tool_call>`) then JSON call objects, or (GLM, Hunyuan) a name and
/// `<arg_key>`/`<arg_value>` pairs, then its closing tag (repaired when missing).
pub(super) fn tool_call_tag(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    match json_block(reply, marker, at, true) {
        calls if calls.is_empty() => tags::arg_pairs(reply, marker, at).into_iter().collect(),
        calls => calls,
    }
}

/// A marker, JSON call objects, and a closing token that may be left out.
pub(super) fn optionally_closed(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    json_block(reply, marker, at, false)
}

/// A marker, JSON call objects, and a closing token (repaired when missing).
pub(super) fn closed_block(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    json_block(reply, marker, at, true)
}

/// The JSON call objects after a marker, to its closing token (whose absence is a
/// repair when it is `required`); none when no JSON follows the marker.
fn json_block(reply: &Reply<'_>, marker: &Marker, at: usize, required: bool) -> Vec<Written> {
    let (objects, end) = values_from(reply.text, at + marker.pattern.len());
    if objects.is_empty() {
        return Vec::new();
    }
    let (span_end, repair) = marker.close(reply, end, required);
    json_calls(reply.text, at..span_end, objects, marker.dialect, repair)
}

/// `functools[…]` (Phi-4-mini, FireFunction): the array follows without a space.
pub(super) fn functools(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let array = at + marker.pattern.len() - 1;
    let (objects, end) = values_from(reply.text, array);
    json_calls(reply.text, at..end, objects, marker.dialect, None)
}

/// `[TOOL_CALLS]` then a JSON array of calls; or `[TOOL_CALLS]name[ARGS]{…}`.
pub(super) fn mistral(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let body = at + marker.pattern.len();
    let start = skip_spaces(reply.text, body);
    if let Some(b'[' | b'{') = reply.text.as_bytes().get(start) {
        let (objects, end) = values_from(reply.text, start);
        return json_calls(reply.text, at..end, objects, marker.dialect, None);
    }
    let next = reply.first_of(&["[tool_calls]"], body);
    let args = reply.find("[args]", body).filter(|&a| a < next && !reply.text[body..a].contains('\n'));
    let Some(args) = args else { return Vec::new() };
    let name = reply.text[body..args].trim().to_string();
    let arguments_at = skip_spaces(reply.text, args + "[args]".len());
    let (arguments, end) = json_after(reply.text, arguments_at, reply.text.len());
    vec![Written::new(at..end, marker.dialect, name, arguments)]
}

/// `Action: name` on its own line, then (past blank lines) `Action Input: …` to the
/// next `Observation:`, `Thought:`, `Final Answer:` or `Action:` line, or the end.
pub(super) fn react(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let name_at = at + marker.pattern.len();
    let line_end = reply.text[name_at..].find('\n').map_or(reply.text.len(), |i| i + name_at);
    let name = reply.text[name_at..line_end].trim().trim_matches(['`', '"', '\'']).to_string();
    let input_line = skip_whitespace(reply.text, line_end);
    if !reply.has_at(input_line, "action input:") {
        return Vec::new();
    }
    let input_at = skip_spaces(reply.text, input_line + "action input:".len());
    let mut end = reply.text.len();
    for stop in ["\nobservation:", "\nthought:", "\nfinal answer:", "\naction:"] {
        end = end.min(reply.find(stop, input_at).unwrap_or(end));
    }
    let (arguments, end) = match reply.text.as_bytes().get(input_at) {
        Some(b'{') => json_after(reply.text, input_at, end),
        _ => {
            let input = reply.text[input_at..end].trim();
            ((!input.is_empty()).then(|| Value::String(input.to_string())), end)
        }
    };
    vec![Written::new(at..end, marker.dialect, name, arguments)]
}

/// The calls in the JSON `objects`, a call being within `span`: the whole span
/// when there is one, each object's own when there are several.
pub(super) fn json_calls(
    text: &str,
    span: Range<usize>,
    objects: Vec<Range<usize>>,
    dialect: Dialect,
    missing_close: Option<Repair>,
) -> Vec<Written> {
    let several = objects.len() > 1;
    objects
        .into_iter()
        .filter_map(|object| {
            let (value, read_repair) = super::super::read(&text[object.clone()])?;
            let (name, arguments) = parts(dialect, value.as_object()?)?;
            let read = read_repair.map(|how| Repair::ArgumentText { how });
            let span = if several { object } else { span.clone() };
            let mut written = Written::new(span, dialect, name, arguments);
            written.repairs = missing_close.clone().into_iter().chain(read).collect();
            Some(written)
        })
        .collect()
}

/// A call's name and arguments from one object, as `dialect` writes them: Apertus
/// as `{"name": {arguments}}`, Command as `{"tool_name": …, "parameters": …}`,
/// Inkling as `{"name": …, "args": …}`, the others as [`ToolCall::from_object`] reads.
fn parts(dialect: Dialect, object: &Map<String, Value>) -> Option<(String, Option<Value>)> {
    match dialect {
        Dialect::Apertus => {
            let mut entries = object.iter();
            let (name, arguments @ Value::Object(_)) = entries.next()? else { return None };
            entries.next().is_none().then(|| (name.clone(), Some(arguments.clone())))
        }
        Dialect::Command => {
            let name = object.get("tool_name")?.as_str()?.to_string();
            Some((name, object.get("parameters").cloned()))
        }
        Dialect::Inkling => {
            let name = object.get("name")?.as_str()?.to_string();
            Some((name, object.get("args").cloned()))
        }
        _ => ToolCall::from_object(object).map(|call| (call.name, call.arguments)),
    }
}

/// The JSON object at `at` (ending by `limit`) as text to read, and where it ends.
pub(super) fn json_after(text: &str, at: usize, limit: usize) -> (Option<Value>, usize) {
    if text.as_bytes().get(at) != Some(&b'{') {
        return (None, at);
    }
    let end = value_end(text, at, limit);
    (Some(Value::String(text[at..end].to_string())), end)
}
