//! Dialects that write each parameter as a tag, its value as text: `<function=name>`
//! with `<parameter=key>value</parameter>` (Qwen3-Coder, Seed-OSS, Step 3.5, and
//! with a JSON body Functionary v3.1), `<invoke name="…">` or `<function name="…">`
//! with `<parameter name="key">value</parameter>` (MiniMax-M2, Qwen3's XML, Step3's
//! `steptml:`, DeepSeek V3.2's DSML), and GLM's name then `<arg_key>`/`<arg_value>`
//! pairs. Values stay text here; resolving the tool reads each as its parameter's
//! type.

use std::ops::Range;

use serde_json::{Map, Value};

use super::super::Dialect;
use super::super::json::value_end;
use super::{Marker, Reply, Written, skip_whitespace, trim_newlines};

/// `<function=name>` then a JSON object, or `<parameter=key>value</parameter>` tags,
/// to `</function>`, the next `<function=`, or the end.
pub(super) fn function_tag(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let name_at = at + marker.pattern.len();
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
    let (span_end, repair) = marker.close(reply, end, true);
    let mut written = match json_end {
        Some(json_end) => {
            let arguments = Value::String(reply.text[json_at..json_end].to_string());
            Written::new(at..span_end, marker.dialect, name, Some(arguments))
        }
        None => text_call(at..span_end, marker, name, parameter_tags(reply, body..end)),
    };
    written.repairs.extend(repair);
    vec![written]
}

/// `<parameter=key>value</parameter>` tags in `body`, each value as text.
fn parameter_tags(reply: &Reply<'_>, body: Range<usize>) -> Map<String, Value> {
    let mut parameters = Map::new();
    let mut from = body.start;
    while let Some(open) = reply.find("<parameter=", from).filter(|&open| open < body.end) {
        let key_at = open + "<parameter=".len();
        let Some(key_end) = reply.text[key_at..body.end].find('>').map(|i| i + key_at) else { break };
        let close = reply.find("</parameter>", key_end).filter(|&c| c <= body.end).unwrap_or(body.end);
        let value = trim_newlines(&reply.text[key_end + 1..close]).to_string();
        parameters.insert(reply.text[key_at..key_end].trim().to_string(), Value::String(value));
        from = close;
    }
    parameters
}

/// `<PREFIXinvoke name="x">` (or `<function name="x">`) with `<PREFIXparameter
/// name="key" …>value</PREFIXparameter>` tags, to its closing tag.
pub(super) fn invoke(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let name_at = at + marker.pattern.len();
    let Some((name, open_end)) = attribute(reply.text, name_at) else { return Vec::new() };
    // `<steptml:invoke name=` → `<steptml:parameter name="`, `</steptml:parameter>`.
    let element = marker.pattern.trim_start_matches('<').trim_end_matches(" name=");
    let prefix = element.trim_end_matches("invoke").trim_end_matches("function");
    let close_tag = marker.closes[0];
    let body_end = reply.find(close_tag, open_end).unwrap_or(reply.text.len());
    let parameter_open = format!("<{prefix}parameter name=");
    let parameter_close = format!("</{prefix}parameter>");
    let mut parameters = Map::new();
    let mut from = open_end;
    while let Some(open) = reply.lower[from..body_end].find(&parameter_open).map(|i| from + i) {
        let Some((key, value_at)) = attribute(reply.text, open + parameter_open.len()) else { break };
        let close = reply.lower[value_at..body_end].find(&parameter_close).map_or(body_end, |i| value_at + i);
        parameters.insert(key, Value::String(trim_newlines(&reply.text[value_at..close]).to_string()));
        from = (close + parameter_close.len()).min(body_end);
    }
    let (span_end, repair) = marker.close(reply, body_end, true);
    let mut written = text_call(at..span_end, marker, name, parameters);
    written.repairs.extend(repair);
    vec![written]
}

/// A quoted attribute value at `at` (`"x"` or `'x'`), and where its tag ends (past
/// any other attributes and the `>`).
fn attribute(text: &str, at: usize) -> Option<(String, usize)> {
    let quote = *text.as_bytes().get(at).filter(|b| matches!(b, b'"' | b'\''))?;
    let value_end = text[at + 1..].find(quote as char)? + at + 1;
    let tag_end = text[value_end..].find('>')? + value_end + 1;
    (!text[value_end..tag_end].contains('\n')).then(|| (text[at + 1..value_end].to_string(), tag_end))
}

/// GLM's `<tool_call>name` then `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs
/// (Hunyuan's with `<tool_sep>` after the name) to `</tool_call>`.
pub(super) fn arg_pairs(reply: &Reply<'_>, marker: &Marker, at: usize) -> Option<Written> {
    let name_at = skip_whitespace(reply.text, at + marker.pattern.len());
    let end = reply.first_of(&["</tool_call>", "<tool_call>"], name_at);
    let name_end = reply.first_of(&["<arg_key>", "<tool_sep>", "\n"], name_at).min(end);
    let name = reply.text[name_at..name_end].trim();
    if name.is_empty() || name.contains(['<', '{', ' ']) {
        return None;
    }
    let mut arguments = Map::new();
    let mut from = name_end;
    while let Some(key_open) = reply.find("<arg_key>", from).filter(|&k| k < end) {
        let key_at = key_open + "<arg_key>".len();
        let key_close = reply.find("</arg_key>", key_at).filter(|&k| k < end)?;
        let value_open = reply.find("<arg_value>", key_close).filter(|&v| v < end)?;
        let value_at = value_open + "<arg_value>".len();
        let value_close = reply.find("</arg_value>", value_at).filter(|&v| v <= end).unwrap_or(end);
        let key = reply.text[key_at..key_close].trim().to_string();
        arguments.insert(key, Value::String(trim_newlines(&reply.text[value_at..value_close]).to_string()));
        from = value_close;
    }
    let (span_end, repair) = marker.close(reply, end, true);
    let mut written = text_call(at..span_end, marker, name.to_string(), arguments);
    written.dialect = Dialect::Glm;
    written.repairs.extend(repair);
    Some(written)
}

/// A call whose parameters were written as text.
fn text_call(span: Range<usize>, marker: &Marker, name: String, parameters: Map<String, Value>) -> Written {
    let mut written = Written::new(span, marker.dialect, name, Some(Value::Object(parameters)));
    written.text_values = true;
    written
}
