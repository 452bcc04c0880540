//! Calls written as Python: `[get_weather(city="Paris"), get_time()]`, keyword
//! arguments whose values are Python literals (`../python.rs`: strings in any quote,
//! numbers, `True`/`False`/`None`, lists, tuples, dicts). Inside Llama 4's
//! `<|python_start|>`, LFM2's `<|tool_call_start|>` or Olmo 3's `<function_calls>`; or
//! the whole reply (Llama 3.2, ToolACE: vLLM's `pythonic`; Granite's, a call a line,
//! unbracketed; or in strings, `["get_weather(city='Paris')"]`). A name in quotes
//! (`"get_weather"(city="Paris")`) is read without them, Markdown's escaped
//! underscores in a name or key (`get\_weather`) as `_`; arguments written as one
//! dict (`f({'city': 'Paris'})`) are the arguments when its keys are the tool's
//! parameters. A call whose arguments cannot all be read
//! — a value that is an expression (`2*pi`), an argument without its parameter's
//! name — is still found whole, so the reply's other calls are read, and is refused
//! with a message saying which.

use std::ops::Range;

use serde_json::{Map, Value};

use super::super::Dialect;
use super::super::python::{self, Read};
use super::{Marker, Reply, Unread, Written, skip_whitespace};
use crate::tool::Repair;

/// The calls in a marker's block, to its closing token.
pub(super) fn block(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let body = at + marker.pattern.len();
    let Some((calls, end)) = calls(reply.text, body) else { return Vec::new() };
    let (span_end, repair) = marker.close(reply, end, true);
    let several = calls.len() > 1;
    calls
        .into_iter()
        .map(|call| {
            let span = if several { call.span.clone() } else { at..span_end };
            let mut written = call.written(span, marker.dialect);
            written.repairs.extend(repair.clone());
            written
        })
        .collect()
}

/// The calls of a reply that is nothing but Python calls: a bracketed list (its
/// closing `]` may be missing at the end), several (`[a(x=1)], [b(y=2)]`, a list a
/// line), or (Granite's pythonic format) calls one after another on their own lines;
/// or a string holding calls, or a list of such strings (`["a(x=1)"]`).
pub(in crate::extract) fn whole_reply(text: &str) -> Vec<Written> {
    let mut at = skip_whitespace(text, 0);
    if !text[at..].starts_with(|c: char| c == '[' || c == '"' || c == '\'' || c.is_ascii_alphabetic() || c == '_') {
        return Vec::new();
    }
    if let Some(quoted) = quoted_calls(text, at) {
        return quoted;
    }
    let mut found = Vec::new();
    loop {
        let Some((calls, end)) = calls(text, at) else { return Vec::new() };
        let unclosed = text[at..].starts_with('[') && !text[..end].ends_with(']');
        let mut calls: Vec<Written> = calls.into_iter().map(Call::in_place).collect();
        if unclosed {
            calls.iter_mut().for_each(|call| call.repairs.push(Repair::ClosingTag { tag: "]".into() }));
        }
        found.extend(calls);
        at = skip_separators(text, end);
        if at == text.len() {
            return found;
        }
        if !text[at..].starts_with('[') {
            return Vec::new();
        }
    }
}

/// Past white space and commas.
fn skip_separators(text: &str, from: usize) -> usize {
    from + text[from..].bytes().take_while(|b| b.is_ascii_whitespace() || *b == b',').count()
}

/// A reply that is a string holding Python-style calls, or a bracketed list of such
/// strings, and nothing else: the calls, each spanning the string that held it.
fn quoted_calls(text: &str, at: usize) -> Option<Vec<Written>> {
    let Some(Read::Value(value, end)) = python::value_at(text, at) else { return None };
    if !text[end..].trim().is_empty() {
        return None;
    }
    let strings = match value {
        Value::String(_) => vec![value],
        Value::Array(items) if !items.is_empty() => items,
        _ => return None,
    };
    let mut found = Vec::new();
    let mut from = at;
    for item in strings {
        let Value::String(inner) = item else { return None };
        let (calls, calls_end) = calls(&inner, 0)?;
        if !inner[calls_end..].trim().is_empty() {
            return None;
        }
        // The string that held them, found where it was written: each call spans its
        // own text in it where the string is written as it reads (no escapes), else
        // a lone call spans the string; several calls in an escaped string are not
        // told apart, so not read.
        let start = from + text[from..].find(['"', '\''])?;
        let Some(Read::Value(_, string_end)) = python::value_at(text, start) else { return None };
        from = string_end;
        let content = text[start..string_end].find(inner.as_str()).map(|offset| start + offset);
        if content.is_none() && calls.len() > 1 {
            return None;
        }
        for call in calls {
            let span = content.map_or(start..string_end, |at| call.span.start + at..call.span.end + at);
            let mut written = call.written(span, Dialect::Pythonic);
            written.repairs.push(Repair::CallText { how: "the quotes around the call removed".into() });
            found.push(written);
        }
    }
    Some(found)
}

/// The Python-style calls at `at`, when a bracketed list of them or one call with
/// keyword arguments starts there: the calls, and where they end. For a reply where
/// calls stand among prose.
pub(in crate::extract) fn calls_at(text: &str, at: usize) -> Option<(Vec<Written>, usize)> {
    let (calls, end) = if text[at..].starts_with('[') {
        calls(text, at)?
    } else {
        let (call, end) = call(text, at)?;
        if call.arguments.is_empty() && call.unread.is_none() {
            return None;
        }
        (vec![call], end)
    };
    Some((calls.into_iter().map(Call::in_place).collect(), end))
}

/// One call found, before it is a [`Written`].
struct Call {
    span: Range<usize>,
    name: String,
    /// Whether the name was written in quotes.
    quoted: bool,
    /// Whether the name or a key was written with Markdown's escaped underscores (`\_`).
    escaped: bool,
    arguments: Map<String, Value>,
    /// How many arguments were written, read or not.
    written_arguments: usize,
    /// The first argument that could not be read.
    unread: Option<Unread>,
}

impl Call {
    /// The call as written where it stands, not in a marker's block.
    fn in_place(self) -> Written {
        let span = self.span.clone();
        self.written(span, Dialect::Pythonic)
    }

    fn written(self, span: Range<usize>, dialect: Dialect) -> Written {
        let mut arguments = self.arguments;
        if self.escaped {
            arguments = arguments.into_iter().map(|(key, value)| (key, unescaped_strings(value))).collect();
        }
        let (arguments, unread) = match self.unread {
            // `f({'a': 1})`: the arguments written as one dict, for the tool to judge.
            Some(Unread::Positional { dict: Some(dict), .. }) if self.written_arguments == 1 => {
                (dict, Some(Unread::OneDict))
            }
            unread => (arguments, unread),
        };
        let mut written = Written::new(span, dialect, self.name, Some(Value::Object(arguments)));
        written.unread = unread;
        if self.quoted {
            written.repairs.push(Repair::CallText { how: "quotes around the name removed".into() });
        }
        if self.escaped {
            written.repairs.push(Repair::CallText { how: "Markdown's escaped underscores (\\_) read as _".into() });
        }
        written
    }
}

/// The calls from `at`: a bracketed list, or calls one after another (separated by
/// white space or commas); and where they end. `None` unless at least one call is
/// there and each is whole.
fn calls(text: &str, at: usize) -> Option<(Vec<Call>, usize)> {
    let mut i = skip_whitespace(text, at);
    let bracketed = text[i..].starts_with('[');
    if bracketed {
        i += 1;
    }
    let mut found = Vec::new();
    loop {
        i = skip_whitespace(text, i);
        if text[i..].starts_with(',') {
            i += 1;
            continue;
        }
        if bracketed && text[i..].starts_with(']') {
            i += 1;
            break;
        }
        match call(text, i) {
            Some((call, end)) => {
                found.push(call);
                i = end;
            }
            None if !bracketed && !found.is_empty() => break,
            // A list left open at the end of the text (`[a(x=1)`): its `]` was left out.
            None if i == text.len() && !found.is_empty() => break,
            None => return None,
        }
    }
    (!found.is_empty()).then_some((found, i))
}

/// `name(key=value, …)` at `at`, and where it ends.
fn call(text: &str, at: usize) -> Option<(Call, usize)> {
    let (name, quoted, after_name) = name(text, at)?;
    let mut i = skip_whitespace(text, after_name);
    if !text[i..].starts_with('(') {
        return None;
    }
    i += 1;
    let escaped = name.contains("\\_");
    let name = unescaped(&name);
    let mut call =
        Call { span: at..at, name, quoted, escaped, arguments: Map::new(), written_arguments: 0, unread: None };
    loop {
        i = skip_whitespace(text, i);
        if text[i..].starts_with(')') {
            call.span = at..i + 1;
            return Some((call, i + 1));
        }
        i = argument(text, i, &mut call)?;
        call.written_arguments += 1;
        i = skip_whitespace(text, i);
        if text[i..].starts_with(',') {
            i += 1;
        } else if !text[i..].starts_with(')') {
            return None;
        }
    }
}

/// The length of the identifier at the start of `text` (ASCII letters, digits, `_`,
/// and `also`), counting Markdown's escaped underscore (`\_`) as part of it.
fn identifier_length(text: &str, also: &[u8]) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || also.contains(&bytes[i]) {
            i += 1;
        } else if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'_') {
            i += 2;
        } else {
            break;
        }
    }
    i
}

/// The call's name at `at`: a dotted name (`-` allowed), or one in quotes; whether it
/// was quoted, and where it ends.
fn name(text: &str, at: usize) -> Option<(String, bool, usize)> {
    let quote = text[at..].chars().next().filter(|&c| c == '"' || c == '\'');
    let start = at + usize::from(quote.is_some());
    let length = identifier_length(&text[start..], b".-");
    let name = &text[start..start + length];
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let end = match quote {
        Some(q) if text[start + length..].starts_with(q) => start + length + 1,
        Some(_) => return None,
        None => start + length,
    };
    Some((name.to_string(), quote.is_some(), end))
}

/// `text` with Markdown's escaped underscores (`\_`) as plain ones.
fn unescaped(text: &str) -> String {
    text.replace("\\_", "_")
}

/// A value whose strings are read as [`unescaped`]: where a model escaped the
/// underscores of a call's name or keys for Markdown, it escaped those of its text too.
fn unescaped_strings(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(unescaped(&text)),
        Value::Array(items) => Value::Array(items.into_iter().map(unescaped_strings).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (unescaped(&k), unescaped_strings(v))).collect())
        }
        other => other,
    }
}

/// One argument at `at` (`key=value`, or a value without a key), added to the call or
/// noted as unread; where it ends.
fn argument(text: &str, at: usize, call: &mut Call) -> Option<usize> {
    let key_length = identifier_length(&text[at..], b"");
    let written_key = &text[at..at + key_length];
    let key = &unescaped(written_key);
    let equals = skip_whitespace(text, at + key_length);
    let keyed = !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && text[equals..].starts_with('=')
        && !text[equals..].starts_with("==");
    call.escaped |= keyed && written_key.contains("\\_");
    if !keyed {
        let (dict, end) = match python::value_at(text, at)? {
            Read::Value(Value::Object(dict), end) => (Some(dict), end),
            Read::Value(_, end) | Read::Expression(end) => (None, end),
        };
        call.unread.get_or_insert_with(|| Unread::Positional { value: text[at..end].to_string(), dict });
        return Some(end);
    }
    match python::value_at(text, equals + 1)? {
        Read::Value(_, end) if call.arguments.contains_key(key) => {
            call.unread.get_or_insert_with(|| Unread::Repeated { key: key.to_string() });
            Some(end)
        }
        Read::Value(value, end) => {
            call.arguments.insert(key.to_string(), value);
            Some(end)
        }
        Read::Expression(end) => {
            let expression = text[equals + 1..end].trim().to_string();
            call.unread.get_or_insert_with(|| Unread::Expression { key: key.to_string(), expression });
            Some(end)
        }
    }
}
