//! The ways models write a tool call into their reply, each read from the marker
//! that starts it to where it ends: `<tool_call>…</tool_call>` (Hermes, Qwen),
//! `<|python_tag|>{…}` (Llama 3.x), `[TOOL_CALLS][…]` and `[TOOL_CALLS]name[ARGS]{…}`
//! (Mistral), `<function=name>…</function>` (with a JSON body or `<parameter=…>`
//! tags), and a ReAct `Action:` / `Action Input:` pair. Tags are matched in any case;
//! a closing tag missing at the end of the reply is repaired.

use std::ops::Range;

use serde_json::{Map, Value};

use super::Dialect;
use super::json::{call_parts, value_end, values_from};
use crate::tool::Repair;

/// A call as written, before its name is resolved and its arguments read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Written {
    pub(super) span: Range<usize>,
    pub(super) dialect: Dialect,
    /// The name as written (empty when the call names none).
    pub(super) name: String,
    /// The arguments as written: an object, a string of JSON, or absent.
    pub(super) arguments: Option<Value>,
    pub(super) repairs: Vec<Repair>,
}

/// A marker that starts a written call, as it appears in lower case.
pub(super) struct Marker {
    pub(super) pattern: &'static str,
    /// Only at the start of a line (after spaces).
    pub(super) line_start: bool,
    read: fn(&Reply<'_>, usize) -> Vec<Written>,
}

/// Every marker, each with its reader.
pub(super) const MARKERS: [Marker; 5] = [
    Marker { pattern: "<tool_call>", line_start: false, read: tool_call_tag },
    Marker { pattern: "<|python_tag|>", line_start: false, read: python_tag },
    Marker { pattern: "[tool_calls]", line_start: false, read: mistral },
    Marker { pattern: "<function=", line_start: false, read: function_tag },
    Marker { pattern: "action:", line_start: true, read: react },
];

/// The reply, and its lower-case copy (same byte offsets) that markers are found in.
pub(super) struct Reply<'t> {
    pub(super) text: &'t str,
    pub(super) lower: String,
    /// Each pattern's last search: from where, and what it found. Searches only move
    /// forward, so a result still ahead is reused: finding is linear in the reply
    /// however many markers it holds.
    found: std::cell::RefCell<std::collections::HashMap<&'static str, (usize, Option<usize>)>>,
}

impl<'t> Reply<'t> {
    pub(super) fn new(text: &'t str) -> Reply<'t> {
        Reply { text, lower: text.to_ascii_lowercase(), found: Default::default() }
    }

    /// Where `pattern` (lower case) next occurs at or after `from`.
    pub(super) fn find(&self, pattern: &'static str, from: usize) -> Option<usize> {
        let mut found = self.found.borrow_mut();
        if let Some(&(searched_from, result)) = found.get(pattern)
            && searched_from <= from
            && result.is_none_or(|at| at >= from)
        {
            return result;
        }
        let result = self.lower.get(from..).and_then(|rest| rest.find(pattern)).map(|at| at + from);
        found.insert(pattern, (from, result));
        result
    }

    /// The first of `patterns` at or after `from`, or the end of the reply.
    fn first_of(&self, patterns: &[&'static str], from: usize) -> usize {
        patterns.iter().filter_map(|p| self.find(p, from)).min().unwrap_or(self.text.len())
    }
}

impl Marker {
    /// The calls written from the marker found at `at`.
    pub(super) fn read(&self, reply: &Reply<'_>, at: usize) -> Vec<Written> {
        (self.read)(reply, at)
    }
}

/// `<tool_call>` then one JSON object (or several, or an array of them), then
/// `</tool_call>` (repaired when missing).
fn tool_call_tag(reply: &Reply<'_>, at: usize) -> Vec<Written> {
    let (objects, end) = values_from(reply.text, at + "<tool_call>".len());
    let close = skip_whitespace(reply.text, end);
    let (span_end, repair) = match reply.lower[close..].starts_with("</tool_call>") {
        true => (close + "</tool_call>".len(), None),
        false => (end, Some("</tool_call>")),
    };
    json_calls(reply.text, at..span_end, objects, Dialect::ToolCallTag, repair)
}

/// `<|python_tag|>` then JSON objects (separated by `;` or new lines), then perhaps
/// `<|eom_id|>` or `<|eot_id|>`.
fn python_tag(reply: &Reply<'_>, at: usize) -> Vec<Written> {
    let (objects, end) = values_from(reply.text, at + "<|python_tag|>".len());
    let token_at = skip_whitespace(reply.text, end);
    let span_end = ["<|eom_id|>", "<|eot_id|>"]
        .iter()
        .find(|token| reply.lower[token_at..].starts_with(*token))
        .map_or(end, |token| token_at + token.len());
    json_calls(reply.text, at..span_end, objects, Dialect::PythonTag, None)
}

/// `[TOOL_CALLS]` then a JSON array of calls; or `[TOOL_CALLS]name[ARGS]{…}`.
fn mistral(reply: &Reply<'_>, at: usize) -> Vec<Written> {
    let body = at + "[tool_calls]".len();
    let start = skip_spaces(reply.text, body);
    match reply.text.as_bytes().get(start) {
        Some(b'[' | b'{') => {
            let (objects, end) = values_from(reply.text, start);
            json_calls(reply.text, at..end, objects, Dialect::Mistral, None)
        }
        _ => {
            let next = reply.first_of(&["[tool_calls]"], body);
            let args = reply.find("[args]", body).filter(|&a| a < next && !reply.text[body..a].contains('\n'));
            let Some(args) = args else { return Vec::new() };
            let name = reply.text[body..args].trim().to_string();
            let arguments_at = skip_spaces(reply.text, args + "[args]".len());
            let (arguments, end) = json_after(reply.text, arguments_at, reply.text.len());
            vec![Written { span: at..end, dialect: Dialect::Mistral, name, arguments, repairs: Vec::new() }]
        }
    }
}

/// `<function=name>` then a JSON object, or `<parameter=key>value</parameter>` tags,
/// to `</function>`, the next `<function=`, or the end.
fn function_tag(reply: &Reply<'_>, at: usize) -> Vec<Written> {
    let name_at = at + "<function=".len();
    let Some(name_end) = reply.text[name_at..].find(['>', '\n']).map(|i| i + name_at) else { return Vec::new() };
    if reply.text.as_bytes()[name_end] != b'>' {
        return Vec::new();
    }
    let name = reply.text[name_at..name_end].trim().trim_matches(['"', '\'']).to_string();
    let body = name_end + 1;
    let json_at = skip_whitespace(reply.text, body);
    let json_end = match reply.text.as_bytes().get(json_at) {
        Some(b'{') => Some(value_end(reply.text, json_at, reply.text.len())),
        _ => None,
    };
    let end = match json_end {
        Some(json_end) => skip_whitespace(reply.text, json_end),
        None => reply.first_of(&["</function>", "<function="], body),
    };
    let closed = reply.lower[end..].starts_with("</function>");
    let mut repairs = Vec::new();
    if !closed {
        repairs.push(Repair::ClosingTag { tag: "</function>".into() });
    }
    let span_end = if closed { end + "</function>".len() } else { end };
    let arguments = match json_end {
        Some(json_end) => Some(Value::String(reply.text[json_at..json_end].to_string())),
        None => parameter_tags(reply, body..end).map(Value::Object),
    };
    vec![Written { span: at..span_end, dialect: Dialect::FunctionTag, name, arguments, repairs }]
}

/// `<parameter=key>value</parameter>` tags (Qwen's XML style), each value a string
/// (binding converts it), if the body has any.
fn parameter_tags(reply: &Reply<'_>, body: Range<usize>) -> Option<Map<String, Value>> {
    let mut parameters = Map::new();
    let mut from = body.start;
    while let Some(open) = reply.find("<parameter=", from).filter(|&open| open < body.end) {
        let key_at = open + "<parameter=".len();
        let key_end = reply.text[key_at..body.end].find('>')? + key_at;
        let close = reply.find("</parameter>", key_end).filter(|&c| c <= body.end).unwrap_or(body.end);
        let value = reply.text[key_end + 1..close].trim().to_string();
        parameters.insert(reply.text[key_at..key_end].trim().to_string(), Value::String(value));
        from = close;
    }
    (!parameters.is_empty()).then_some(parameters)
}

/// `Action: name` on its own line, then (past blank lines) `Action Input: …` to the
/// next `Observation:`, `Thought:`, `Final Answer:` or `Action:` line, or the end.
fn react(reply: &Reply<'_>, at: usize) -> Vec<Written> {
    let name_at = at + "action:".len();
    let line_end = reply.text[name_at..].find('\n').map_or(reply.text.len(), |i| i + name_at);
    let name = reply.text[name_at..line_end].trim().trim_matches(['`', '"', '\'']).to_string();
    let input_line = skip_whitespace(reply.text, line_end);
    if !reply.lower[input_line..].starts_with("action input:") {
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
    vec![Written { span: at..end, dialect: Dialect::ReAct, name, arguments, repairs: Vec::new() }]
}

/// The calls in the JSON `objects`, a call being within `span`: the whole span
/// when there is one, each object's own when there are several.
fn json_calls(
    text: &str,
    span: Range<usize>,
    objects: Vec<Range<usize>>,
    dialect: Dialect,
    missing_tag: Option<&str>,
) -> Vec<Written> {
    let several = objects.len() > 1;
    objects
        .into_iter()
        .filter_map(|object| {
            let (value, read_repair) = super::read(&text[object.clone()])?;
            let (name, arguments) = call_parts(value.as_object()?)?;
            let closing = missing_tag.map(|tag| Repair::ClosingTag { tag: tag.to_string() });
            let read = read_repair.map(|how| Repair::ArgumentText { how: how.to_string() });
            let repairs = closing.into_iter().chain(read).collect();
            let span = if several { object } else { span.clone() };
            Some(Written { span, dialect, name, arguments, repairs })
        })
        .collect()
}

/// The JSON object at `at` (ending by `limit`) as text to read, and where it ends.
fn json_after(text: &str, at: usize, limit: usize) -> (Option<Value>, usize) {
    if text.as_bytes().get(at) != Some(&b'{') {
        return (None, at);
    }
    let end = value_end(text, at, limit);
    (Some(Value::String(text[at..end].to_string())), end)
}

fn skip_spaces(text: &str, from: usize) -> usize {
    from + text[from..].bytes().take_while(|b| *b == b' ' || *b == b'\t').count()
}

fn skip_whitespace(text: &str, from: usize) -> usize {
    from + text[from..].bytes().take_while(u8::is_ascii_whitespace).count()
}
