//! Calls written as Python: `[get_weather(city="Paris"), get_time()]`, keyword
//! arguments whose values are Python literals (strings in either quote, numbers,
//! `True`/`False`/`None`, lists, dicts). Inside Llama 4's `<|python_start|>`,
//! LFM2's `<|tool_call_start|>` or Olmo 3's `<function_calls>`; or the whole reply
//! (Llama 3.2, ToolACE: vLLM's `pythonic`; Granite's, a call a line, unbracketed). A
//! positional argument cannot be matched to a parameter, so a call with one is not
//! read.

use serde_json::{Map, Value};

use super::super::Dialect;
use super::{Marker, Reply, Written, skip_whitespace};
use crate::bind::read_value_at;

/// The calls in a marker's block, to its closing token.
pub(super) fn block(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let body = at + marker.pattern.len();
    let Some((calls, end)) = calls(reply.text, body) else { return Vec::new() };
    let (span_end, repair) = marker.close(reply, end, true);
    let several = calls.len() > 1;
    calls
        .into_iter()
        .map(|(span, name, arguments)| {
            let span = if several { span } else { at..span_end };
            let mut written = Written::new(span, marker.dialect, name, Some(Value::Object(arguments)));
            written.repairs.extend(repair.clone());
            written
        })
        .collect()
}

/// The calls of a reply that is nothing but Python calls: a bracketed list, or
/// (Granite's pythonic format) calls one after another on their own lines.
pub(in crate::extract) fn whole_reply(text: &str) -> Vec<Written> {
    let start = text.len() - text.trim_start().len();
    if !text[start..].starts_with(|c: char| c == '[' || c.is_ascii_alphabetic() || c == '_') {
        return Vec::new();
    }
    match calls(text, start) {
        Some((calls, end)) if text[end..].trim().is_empty() => calls
            .into_iter()
            .map(|(span, name, arguments)| Written::new(span, Dialect::Pythonic, name, Some(Value::Object(arguments))))
            .collect(),
        _ => Vec::new(),
    }
}

/// One call found: its span, name and arguments.
type Call = (std::ops::Range<usize>, String, Map<String, Value>);

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
            None => return None,
        }
    }
    (!found.is_empty()).then_some((found, i))
}

/// `name(key=value, …)` at `at`, and where it ends.
fn call(text: &str, at: usize) -> Option<(Call, usize)> {
    let name_len =
        text[at..].bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')).count();
    let name = &text[at..at + name_len];
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let mut i = skip_whitespace(text, at + name_len);
    if !text[i..].starts_with('(') {
        return None;
    }
    i += 1;
    let mut arguments = Map::new();
    loop {
        i = skip_whitespace(text, i);
        if text[i..].starts_with(')') {
            return Some(((at..i + 1, name.to_string(), arguments), i + 1));
        }
        let key_len = text[i..].bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
        let key = &text[i..i + key_len];
        let equals = skip_whitespace(text, i + key_len);
        if key.is_empty() || !text[equals..].starts_with('=') || arguments.contains_key(key) {
            return None;
        }
        let (value, end) = read_value_at(text, equals + 1).ok()?;
        arguments.insert(key.to_string(), value);
        i = skip_whitespace(text, end);
        if text[i..].starts_with(',') {
            i += 1;
        } else if !text[i..].starts_with(')') {
            return None;
        }
    }
}
