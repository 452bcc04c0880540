//! Dialects that write each parameter as a tag, its value as text: `<function=name>`
//! with `<parameter=key>value</parameter>` (Qwen3-Coder, Seed-OSS, Step 3.5, and
//! with a JSON body Functionary v3.1), `<invoke name="…">` or `<function name="…">`
//! with `<parameter name="key">value</parameter>` (MiniMax-M2, Qwen3's XML, Step3's
//! `steptml:`, DeepSeek V3.2's DSML), and GLM's name then `<arg_key>`/`<arg_value>`
//! pairs. Values stay text here; resolving the tool reads each as its parameter's
//! type.

use std::ops::Range;

use serde_json::{Map, Value};

use crate::tool::Repair;

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
/// name="key" …>value</PREFIXparameter>` tags (MiniCPM 5: `<param name="key">`,
/// a value perhaps in `<![CDATA[…]]>`), to its closing tag.
pub(super) fn invoke(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let name_at = at + marker.pattern.len();
    let Some((name, open_end)) = attribute(reply.text, name_at) else { return Vec::new() };
    // `<steptml:invoke name=` → `<steptml:parameter name="`, `</steptml:parameter>`.
    let element = marker.pattern.trim_start_matches('<').trim_end_matches(" name=");
    let prefix = element.trim_end_matches("invoke").trim_end_matches("function");
    let close_tag = marker.closes[0];
    let body_end = reply.find(close_tag, open_end).unwrap_or(reply.text.len());
    // MiniCPM 5 writes `<param name=…>`; the others `<parameter name=…>`.
    let tag = if reply.lower[open_end..body_end].contains(&format!("<{prefix}parameter name=")) {
        "parameter"
    } else {
        "param"
    };
    let parameter_open = format!("<{prefix}{tag} name=");
    let parameter_close = format!("</{prefix}{tag}>");
    let mut parameters = Map::new();
    let mut from = open_end;
    while let Some(open) = reply.lower[from..body_end].find(&parameter_open).map(|i| from + i) {
        let Some((key, value_at)) = attribute(reply.text, open + parameter_open.len()) else { break };
        if value_at > body_end {
            break;
        }
        let close = reply.lower[value_at..body_end].find(&parameter_close).map_or(body_end, |i| value_at + i);
        let value = trim_newlines(&reply.text[value_at..close]);
        parameters.insert(key, Value::String(strip_cdata(value).to_string()));
        from = (close + parameter_close.len()).min(body_end);
    }
    let (span_end, repair) = marker.close(reply, body_end, true);
    let mut written = text_call(at..span_end, marker, name, parameters);
    written.repairs.extend(repair);
    vec![written]
}

/// Kimi K3's XTML: `<|open|>call tool="name" index="1"<|sep|>` then arguments
/// `<|open|>argument key="k" type="string"<|sep|>value<|close|>argument<|sep|>`, to
/// `<|close|>call<|sep|>`. A value of type string is its text as written; any other
/// type is JSON (kept as text when it is not).
pub(super) fn xtml(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    const SEP: &str = "<|sep|>";
    const ARGUMENT: &str = "<|open|>argument";
    const ARGUMENT_END: &str = "<|close|>argument<|sep|>";
    let attrs_at = at + marker.pattern.len();
    let end = reply.first_of(&[marker.closes[0], marker.pattern], attrs_at);
    let Some(sep) = reply.find(SEP, attrs_at).filter(|&s| s < end) else { return Vec::new() };
    let Some(name) = xtml_attribute(&reply.text[attrs_at..sep], "tool").filter(|n| !n.is_empty()) else {
        return Vec::new();
    };
    let mut arguments = Map::new();
    let mut from = sep + SEP.len();
    while let Some(open) = reply.find(ARGUMENT, from).filter(|&a| a < end) {
        let Some(value_at) = reply.find(SEP, open).filter(|&s| s < end).map(|s| s + SEP.len()) else { break };
        let attrs = &reply.text[open + ARGUMENT.len()..value_at - SEP.len()];
        let value_end = reply.find(ARGUMENT_END, value_at).filter(|&v| v <= end).unwrap_or(end);
        let text = &reply.text[value_at..value_end];
        let value = match xtml_attribute(attrs, "type").as_deref() {
            None | Some("string") => Value::String(text.to_string()),
            Some(_) => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string())),
        };
        arguments.insert(xtml_attribute(attrs, "key").unwrap_or_default(), value);
        from = (value_end + ARGUMENT_END.len()).min(end);
    }
    let (span_end, repair) = marker.close(reply, end, true);
    let mut written = Written::new(at..span_end, marker.dialect, name, Some(Value::Object(arguments)));
    written.repairs.extend(repair);
    vec![written]
}

/// The value of `key="…"` among XTML attributes, its `&quot;` and `&amp;` read.
fn xtml_attribute(attrs: &str, key: &str) -> Option<String> {
    let mut rest = attrs;
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq].rsplit(|c: char| c.is_whitespace()).next().unwrap_or_default();
        let value_at = eq + 2;
        let value_end = rest[value_at..].find('"').map(|i| value_at + i)?;
        if name == key {
            return Some(rest[value_at..value_end].replace("&quot;", "\"").replace("&amp;", "&"));
        }
        rest = &rest[value_end + 1..];
    }
    None
}

/// MiniMax M3's namespace marker, written before every tag of a call.
const MINIMAX_NS: &str = "]<]minimax[>[";

/// How deep MiniMax M3 elements are read inside one another.
const MAX_NESTING: usize = 32;

/// MiniMax M3: `NS<invoke name="x">` with each parameter a tag of its own name
/// (`NS<city>Paris NS</city>`, NS being `]<]minimax[>[`), nested tags for objects
/// and repeated tags for lists, to `NS</invoke>`.
pub(super) fn minimax_m3(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let name_at = at + marker.pattern.len();
    let Some((name, open_end)) = attribute(reply.text, name_at) else { return Vec::new() };
    let end = reply.first_of(&[marker.closes[0], marker.pattern], open_end);
    let (value, _) = ns_content(&reply.text[..end], open_end, 0);
    let parameters = match value {
        Value::Object(parameters) => parameters,
        _ => Map::new(),
    };
    let (span_end, repair) = marker.close(reply, end, true);
    let mut written = text_call(at..span_end, marker, name, parameters);
    written.repairs.extend(repair);
    vec![written]
}

/// The content of a MiniMax M3 element from `at` to its closing tag (or the end of
/// `text`): text, or an object of its child elements (a name repeated becomes a
/// list); and where it ends.
fn ns_content(text: &str, at: usize, depth: usize) -> (Value, usize) {
    let mut children = Map::new();
    let mut listed = Vec::new();
    let mut from = at;
    let mut close = text.len();
    while let Some(tag) = text[from..].find(MINIMAX_NS).map(|i| from + i + MINIMAX_NS.len()) {
        let rest = &text[tag..];
        if rest.starts_with("</") {
            close = tag - MINIMAX_NS.len();
            break;
        }
        let name_end = rest.find('>').filter(|_| rest.starts_with('<') && depth < MAX_NESTING);
        let Some(name_end) = name_end else {
            from = tag;
            continue;
        };
        let name = rest[1..name_end].trim().to_string();
        let (value, child_close) = ns_content(text, tag + name_end + 1, depth + 1);
        from = text[child_close..].find('>').map_or(text.len(), |i| child_close + i + 1);
        match children.get_mut(&name) {
            Some(Value::Array(items)) if listed.contains(&name) => items.push(value),
            Some(earlier) => {
                *earlier = Value::Array(vec![earlier.take(), value]);
                listed.push(name);
            }
            None => {
                children.insert(name, value);
            }
        }
    }
    if children.is_empty() {
        return (Value::String(text[at..close].trim().to_string()), close);
    }
    (Value::Object(children), close)
}

/// A value written as an XML CDATA section, without its wrapper.
fn strip_cdata(value: &str) -> &str {
    value.strip_prefix("<![CDATA[").and_then(|v| v.strip_suffix("]]>")).unwrap_or(value)
}

/// A quoted attribute value at `at` (`"x"` or `'x'`), and where its tag ends (past
/// any other attributes and the `>`). Each is looked for within [`MAX_ATTRIBUTE`]
/// bytes, so a reply of unclosed quotes is still read in linear time.
fn attribute(text: &str, at: usize) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let quote = *bytes.get(at).filter(|b| matches!(b, b'"' | b'\''))?;
    let within = |from: usize, byte: u8| {
        bytes[from..(from + MAX_ATTRIBUTE).min(bytes.len())].iter().position(|&b| b == byte).map(|i| from + i)
    };
    let value_end = within(at + 1, quote)?;
    let tag_end = within(value_end, b'>')? + 1;
    (!text[value_end..tag_end].contains('\n')).then(|| (text[at + 1..value_end].to_string(), tag_end))
}

/// How far an attribute's value, and the rest of its tag, may run.
const MAX_ATTRIBUTE: usize = 1024;

/// The tags of GLM's key/value pairs: key, its end, value, its end, type.
const GLM_TAGS: [&str; 5] = ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<arg_type>"];

/// K2 Horizon's, in its `ifm|` namespace.
const IFM_TAGS: [&str; 5] =
    ["<ifm|arg_key>", "</ifm|arg_key>", "<ifm|arg_value>", "</ifm|arg_value>", "<ifm|arg_type>"];

/// GLM's `<tool_call>name` then `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs
/// (Hunyuan's with `<tool_sep>` after the name; iQuest Coder's in
/// `<iquestcoder_tool_call>`; K2 Horizon's tags as `<ifm|arg_key>`, perhaps with an
/// `<ifm|arg_type>`) to the marker's closing tag. A value is kept as written.
pub(super) fn arg_pairs(reply: &Reply<'_>, marker: &Marker, at: usize) -> Option<Written> {
    let tags = if marker.pattern.starts_with("<ifm|") { IFM_TAGS } else { GLM_TAGS };
    let name_at = skip_whitespace(reply.text, at + marker.pattern.len());
    let end = reply.first_of(&[marker.closes[0], marker.pattern], name_at);
    let name_end = reply.first_of(&[tags[0], "<tool_sep>", "\n"], name_at).min(end);
    // Ling 3 may write the new line after the name as the two characters `\n`.
    let name = reply.text[name_at..name_end].trim().trim_end_matches("\\n").trim_end();
    if name.is_empty() || name.contains(['<', '{', ' ']) {
        return None;
    }
    let arguments = key_value_pairs(reply, tags, name_end..end)?;
    let (span_end, repair) = marker.close(reply, end, true);
    let mut written = text_call(at..span_end, marker, name.to_string(), arguments);
    written.dialect = Dialect::Glm;
    written.repairs.extend(repair);
    Some(written)
}

/// The `key`/`value` tag pairs within `range` (`tags`: key, its end, value, its end,
/// type), each value kept as written unless a type written beside it (K2 Horizon)
/// says otherwise; `None` when a key has no value. Searches stay within `range`,
/// which ends before the next marker, so reading stays linear in the reply.
fn key_value_pairs(reply: &Reply<'_>, tags: [&str; 5], range: Range<usize>) -> Option<Map<String, Value>> {
    let [key_open, key_close, value_open, value_close, type_open] = tags;
    let end = range.end;
    let find = |pattern: &str, from: usize| reply.lower[from..end].find(pattern).map(|i| from + i);
    let mut arguments = Map::new();
    let mut from = range.start;
    while let Some(key_at) = find(key_open, from).map(|k| k + key_open.len()) {
        let key_end = find(key_close, key_at)?;
        let value_tag = find(value_open, key_end)?;
        let value_at = value_tag + value_open.len();
        let value_end = find(value_close, value_at).unwrap_or(end);
        let key = reply.text[key_at..key_end].trim().to_string();
        let value = &reply.text[value_at..value_end];
        let declared = reply.lower[key_end..value_tag].find(type_open).map(|t| {
            let ty = &reply.text[key_end + t + type_open.len()..value_tag];
            ty.split('<').next().unwrap_or_default().trim()
        });
        let value = match declared {
            Some(ty) if ty != "string" => {
                serde_json::from_str(value.trim()).unwrap_or_else(|_| Value::String(value.to_string()))
            }
            _ => Value::String(value.to_string()),
        };
        arguments.insert(key, value);
        from = value_end;
    }
    Some(arguments)
}

/// Hunyuan V4: GLM's tags with the suffix its tokenizer gives them
/// (`<tool_call:opensource>name<arg_key:opensource>k</arg_key:opensource>…`), the
/// suffix read from the opening tag and expected on every other.
pub(super) fn suffixed_pairs(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    suffixed_call(reply, marker, at).into_iter().collect()
}

fn suffixed_call(reply: &Reply<'_>, marker: &Marker, at: usize) -> Option<Written> {
    let suffix_at = at + "<tool_call".len();
    let suffix_len = reply.lower.as_bytes()[suffix_at..].iter().take(MAX_SUFFIX + 1).position(|&b| b == b'>')?;
    let suffix = &reply.lower[suffix_at..suffix_at + suffix_len];
    if suffix.contains(|c: char| c.is_whitespace() || c == '<') {
        return None;
    }
    let name_at = skip_whitespace(reply.text, suffix_at + suffix_len + 1);
    // Every search stays before the next marker, so a reply full of unclosed tags
    // is still read in linear time.
    let next = reply.find(marker.pattern, name_at).unwrap_or(reply.text.len());
    let find = |pattern: &str, from: usize| reply.lower[from..next].find(pattern).map(|i| from + i);
    let [close, key_open, key_close, value_open, value_close, type_open] =
        ["</tool_call", "<arg_key", "</arg_key", "<arg_value", "</arg_value", "<arg_type"]
            .map(|tag| format!("{tag}{suffix}>"));
    let end = find(&close, name_at).unwrap_or(next);
    let name_end = [find(&key_open, name_at), find("\n", name_at)].into_iter().flatten().fold(end, usize::min);
    let name = reply.text[name_at..name_end].trim();
    if name.is_empty() || name.contains(['<', '{', ' ']) {
        return None;
    }
    let tags = [&*key_open, &key_close, &value_open, &value_close, &type_open];
    let arguments = key_value_pairs(reply, tags, name_end..end)?;
    let closed = reply.lower[end..].starts_with(&close);
    let span_end = if closed { end + close.len() } else { end };
    let mut written = text_call(at..span_end, marker, name.to_string(), arguments);
    if !closed {
        let tag = format!("</tool_call{}>", &reply.text[suffix_at..suffix_at + suffix_len]);
        written.repairs.push(Repair::ClosingTag { tag });
    }
    Some(written)
}

/// How long a Hunyuan V4 tag suffix (`:opensource`) may be.
const MAX_SUFFIX: usize = 64;

/// Solar Open 2: `<|tool_call:start|>name` on its line, then
/// `<|tool_arg:start|>key<|tool_arg:value|>value<|tool_arg:end|>` for each argument,
/// to `<|tool_call:end|>`. A value cut off by the end of the reply is not read (it
/// would be only part of what was meant); a call whose name runs into a tag names
/// no tool.
pub(super) fn solar(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    solar_call(reply, marker, at).into_iter().collect()
}

fn solar_call(reply: &Reply<'_>, marker: &Marker, at: usize) -> Option<Written> {
    const KEY: &str = "<|tool_arg:start|>";
    const VALUE: &str = "<|tool_arg:value|>";
    const VALUE_END: &str = "<|tool_arg:end|>";
    let name_at = at + marker.pattern.len();
    let end = reply.first_of(&[marker.closes[0], marker.pattern], name_at);
    let name_end = reply.text[name_at..end].find('\n').map_or(end, |i| name_at + i);
    let name = reply.text[name_at..name_end].trim();
    if name.is_empty() || name.contains('<') {
        return None;
    }
    let mut arguments = Map::new();
    let mut from = name_end;
    while let Some(key_open) = reply.find(KEY, from).filter(|&k| k < end) {
        let key_at = key_open + KEY.len();
        let Some(value_open) = reply.find(VALUE, key_at).filter(|&v| v < end) else { break };
        let value_at = value_open + VALUE.len();
        let next_key = reply.find(KEY, value_at).unwrap_or(end).min(end);
        let value_close = match reply.find(VALUE_END, value_at).filter(|&v| v <= next_key) {
            Some(close) => close,
            None if end == reply.text.len() => return None,
            None => next_key,
        };
        let key = reply.text[key_at..value_open].trim().to_string();
        arguments.entry(key).or_insert_with(|| Value::String(reply.text[value_at..value_close].to_string()));
        from = value_close;
    }
    let (span_end, repair) = marker.close(reply, end, true);
    let mut written = text_call(at..span_end, marker, name.to_string(), arguments);
    written.repairs.extend(repair);
    Some(written)
}

/// A call whose parameters were written as text.
fn text_call(span: Range<usize>, marker: &Marker, name: String, parameters: Map<String, Value>) -> Written {
    let mut written = Written::new(span, marker.dialect, name, Some(Value::Object(parameters)));
    written.text_values = true;
    written
}
