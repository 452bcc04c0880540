//! The ways models write a tool call into their reply, each read from the marker
//! that starts it to where it ends. [`MARKERS`] is the table: each marker with its
//! dialect, the tokens that may close it and its reader. The readers are grouped by
//! what a call's body is: JSON call objects (`objects.rs`), a name then JSON
//! arguments (`named.rs`), parameters as tags (`tags.rs`), Python-style calls
//! (`pythonic.rs`), and Gemma's `call:name{…}` (`gemma.rs`). Markers are matched in
//! any ASCII case; a closing token missing at the end of the reply is repaired.

mod gemma;
mod named;
mod objects;
mod pythonic;
mod tags;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use serde_json::Value;

use super::Dialect;
use crate::tool::Repair;
pub(super) use pythonic::{calls_at as pythonic_at, whole_reply as pythonic_reply};

/// A call as written, before its name is resolved and its arguments read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Written {
    pub(super) span: Range<usize>,
    pub(super) dialect: Dialect,
    /// The name as written (empty when the call names none).
    pub(super) name: String,
    /// The arguments as written: an object, a string of JSON, or absent.
    pub(super) arguments: Option<Value>,
    /// Whether the argument values are text as the dialect writes every value
    /// (`<parameter=n>5</parameter>`), each to be read as its parameter's type.
    pub(super) text_values: bool,
    /// An argument that could not be read: the call is found, and refused for it.
    pub(super) unread: Option<Unread>,
    pub(super) repairs: Vec<Repair>,
}

impl Written {
    pub(super) fn new(span: Range<usize>, dialect: Dialect, name: String, arguments: Option<Value>) -> Written {
        Written { span, dialect, name, arguments, text_values: false, unread: None, repairs: Vec::new() }
    }
}

/// An argument of a Python-style call that is not read, so the call is refused.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Unread {
    /// A value that is an expression, not a literal (`end=2*pi`).
    Expression { key: String, expression: String },
    /// A value given without its parameter's name (`factorial(5)`); the dict, when
    /// it is one.
    Positional { value: String, dict: Option<serde_json::Map<String, Value>> },
    /// The arguments written as one dict (`f({'a': 1})`): read as the arguments
    /// when every key is a parameter of the tool, else refused as positional.
    OneDict,
    /// A parameter given twice.
    Repeated { key: String },
}

impl Unread {
    /// The sentence that tells the model what to change, for a call of `tool`.
    pub(super) fn sentence(&self, tool: &str) -> String {
        let shown = |text: &str| crate::bind::shorten_text(text);
        match self {
            Unread::Expression { key, expression } => format!(
                "Invalid arguments for '{tool}': the value of '{key}' is the expression {}, which the host does not \
                 compute; write the value itself (a string in quotes, a number, True, False or None, a list or a dict).",
                shown(expression)
            ),
            Unread::Positional { value, .. } => format!(
                "Invalid arguments for '{tool}': the value {} is given without a parameter name; name every \
                 argument (parameter=value).",
                shown(value)
            ),
            Unread::OneDict => format!(
                "Invalid arguments for '{tool}': the arguments are written as one dict, not as parameter=value \
                 pairs; name every argument (parameter=value)."
            ),
            Unread::Repeated { key } => {
                format!("Invalid arguments for '{tool}': the parameter '{key}' is given more than once; give it once.")
            }
        }
    }
}

/// A marker that starts a written call.
pub(super) struct Marker {
    /// The marker, as it appears in ASCII lower case.
    pub(super) pattern: &'static str,
    /// Only at the start of a line (after spaces).
    pub(super) line_start: bool,
    pub(super) dialect: Dialect,
    /// The tokens that end a call of this marker, if it has one (lower case); the
    /// first is the one a missing close is repaired with.
    closes: &'static [&'static str],
    read: fn(&Reply<'_>, &Marker, usize) -> Vec<Written>,
}

/// A marker with its reader (no closing token).
const fn marker(
    pattern: &'static str,
    dialect: Dialect,
    read: fn(&Reply<'_>, &Marker, usize) -> Vec<Written>,
) -> Marker {
    Marker { pattern, line_start: false, dialect, closes: &[], read }
}

/// A marker whose calls end with one of `closes`.
const fn closed(
    pattern: &'static str,
    closes: &'static [&'static str],
    dialect: Dialect,
    read: fn(&Reply<'_>, &Marker, usize) -> Vec<Written>,
) -> Marker {
    Marker { pattern, line_start: false, dialect, closes, read }
}

/// Every marker. Where two start at the same place the first listed wins.
pub(super) const MARKERS: [Marker; 41] = [
    closed("<tool_call>", &["</tool_call>"], Dialect::ToolCallTag, objects::tool_call_tag),
    closed("<|python_tag|>", &["<|eom_id|>", "<|eot_id|>"], Dialect::PythonTag, objects::optionally_closed),
    marker("[tool_calls]", Dialect::Mistral, objects::mistral),
    closed("<function=", &["</function>"], Dialect::FunctionTag, tags::function_tag),
    Marker { pattern: "action:", line_start: true, dialect: Dialect::ReAct, closes: &[], read: objects::react },
    closed("<tool_calls>", &["</tool_calls>"], Dialect::ToolCallsTag, objects::closed_block),
    closed("<toolcall>", &["</toolcall>"], Dialect::Nemotron, objects::closed_block),
    closed("[tool_request]", &["[end_tool_request]"], Dialect::LmStudio, objects::closed_block),
    closed("<longcat_tool_call>", &["</longcat_tool_call>"], Dialect::LongCat, objects::closed_block),
    marker("<|tool_call|>", Dialect::Granite, objects::optionally_closed),
    closed("<function_call>", &["</function_call>"], Dialect::Granite, objects::optionally_closed),
    closed("<|action_start|><|plugin|>", &["<|action_end|>"], Dialect::InternLm, objects::closed_block),
    marker("functools[", Dialect::Functools, objects::functools),
    closed("<|start_action|>", &["<|end_action|>"], Dialect::Command, objects::closed_block),
    closed("<|tools_prefix|>", &["<|tools_suffix|>"], Dialect::Apertus, objects::closed_block),
    marker("<|function_call|>", Dialect::GigaChat, objects::optionally_closed),
    marker("function call<|role_sep|>", Dialect::GigaChat, objects::optionally_closed),
    closed("<|tool_call_begin|>", &["<|tool_call_end|>"], Dialect::Kimi, named::kimi),
    closed(
        "<\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>",
        &["<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}>"],
        Dialect::DeepSeek,
        named::deepseek,
    ),
    closed("to=", &["<|call|>", "<|end|>"], Dialect::Harmony, named::harmony),
    Marker { pattern: ">>>", line_start: true, dialect: Dialect::Functionary, closes: &[], read: named::functionary },
    closed("<function name=", &["</function>"], Dialect::XmlInvoke, tags::invoke),
    closed("<invoke name=", &["</invoke>"], Dialect::XmlInvoke, tags::invoke),
    closed("<steptml:invoke name=", &["</steptml:invoke>"], Dialect::XmlInvoke, tags::invoke),
    closed("<atem:invoke name=", &["</atem:invoke>"], Dialect::XmlInvoke, tags::invoke),
    closed("<\u{ff5c}dsml\u{ff5c}invoke name=", &["</\u{ff5c}dsml\u{ff5c}invoke>"], Dialect::XmlInvoke, tags::invoke),
    closed("<|python_start|>", &["<|python_end|>"], Dialect::Pythonic, pythonic::block),
    closed("<|tool_call_start|>", &["<|tool_call_end|>"], Dialect::Pythonic, pythonic_or_json),
    closed("<function_calls>", &["</function_calls>"], Dialect::Pythonic, pythonic::block),
    closed("<start_function_call>", &["<end_function_call>"], Dialect::Gemma, gemma::call),
    closed("<|tool_call>", &["<tool_call|>"], Dialect::Gemma, gemma::call),
    closed("]<]minimax[>[<invoke name=", &["]<]minimax[>[</invoke>"], Dialect::XmlInvoke, tags::minimax_m3),
    closed("<|tool_call:start|>", &["<|tool_call:end|>"], Dialect::Solar, tags::solar),
    closed("<ifm|tool_call>", &["</ifm|tool_call>"], Dialect::ToolCallTag, objects::tool_call_tag),
    closed("<iquestcoder_tool_call>", &["</iquestcoder_tool_call>"], Dialect::ToolCallTag, objects::tool_call_tag),
    closed("<tools>", &["</tools>"], Dialect::ToolCallsTag, objects::closed_block),
    closed("<dots_function_call>", &["</dots_function_call>"], Dialect::Dots, objects::closed_block),
    marker("<tool_call:", Dialect::Glm, tags::suffixed_pairs),
    closed(
        "<|content_invoke_tool_json|>",
        &["<|end_message|>", "<|content_model_end_sampling|>"],
        Dialect::Inkling,
        objects::closed_block,
    ),
    closed("<|open|>call ", &["<|close|>call<|sep|>"], Dialect::Kimi, tags::xtml),
    closed(
        "<|plamo:begin_tool_request:plamo|>",
        &["<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>"],
        Dialect::Plamo,
        named::plamo,
    ),
];

/// LFM2's Python-style calls after `<|tool_call_start|>`, or openPangu's JSON array
/// of call objects after the same marker.
fn pythonic_or_json(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let calls = pythonic::block(reply, marker, at);
    if !calls.is_empty() {
        return calls;
    }
    let mut calls = objects::closed_block(reply, marker, at);
    for call in &mut calls {
        call.dialect = Dialect::OpenPangu;
    }
    calls
}

/// The reply, and its ASCII-lower-case copy (same byte offsets) that markers are
/// found in.
pub(super) struct Reply<'t> {
    pub(super) text: &'t str,
    pub(super) lower: String,
    /// Each pattern's last search: from where, and what it found. Searches only move
    /// forward, so a result still ahead is reused: finding is linear in the reply
    /// however many markers it holds.
    found: RefCell<HashMap<&'static str, (usize, Option<usize>)>>,
}

impl<'t> Reply<'t> {
    pub(super) fn new(text: &'t str) -> Reply<'t> {
        Reply { text, lower: text.to_ascii_lowercase(), found: RefCell::default() }
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

    /// Whether `pattern` (lower case) stands at `at`.
    fn has_at(&self, at: usize, pattern: &str) -> bool {
        self.lower.get(at..).is_some_and(|rest| rest.starts_with(pattern))
    }
}

impl Marker {
    /// The calls written from the marker found at `at`.
    pub(super) fn read(&self, reply: &Reply<'_>, at: usize) -> Vec<Written> {
        (self.read)(reply, self, at)
    }

    /// Where a call ending at `end` (past white space) ends with its closing token,
    /// and the repair made when the token it needs is missing (`required`).
    fn close(&self, reply: &Reply<'_>, end: usize, required: bool) -> (usize, Option<Repair>) {
        let at = skip_whitespace(reply.text, end);
        if let Some(token) = self.closes.iter().find(|token| reply.has_at(at, token)) {
            return (at + token.len(), None);
        }
        let missing = self.closes.first().filter(|_| required).map(|tag| Repair::ClosingTag { tag: original(tag) });
        (end, missing)
    }
}

/// A closing token as models write it (the table keeps them in lower case).
fn original(tag: &str) -> String {
    match tag {
        "</toolcall>" => "</TOOLCALL>".into(),
        "[end_tool_request]" => "[END_TOOL_REQUEST]".into(),
        "<|end_action|>" => "<|END_ACTION|>".into(),
        other => other.to_string(),
    }
}

fn skip_spaces(text: &str, from: usize) -> usize {
    from + text[from..].bytes().take_while(|b| *b == b' ' || *b == b'\t').count()
}

fn skip_whitespace(text: &str, from: usize) -> usize {
    from + text[from..].bytes().take_while(u8::is_ascii_whitespace).count()
}

/// `s` without one new line at each end (a value on lines of its own between tags).
fn trim_newlines(s: &str) -> &str {
    let s = s.strip_prefix("\r\n").or_else(|| s.strip_prefix('\n')).unwrap_or(s);
    s.strip_suffix("\r\n").or_else(|| s.strip_suffix('\n')).unwrap_or(s)
}
