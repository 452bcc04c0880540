//! Dialects that write the name, then the arguments as JSON: Kimi K2's
//! `<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{…}`, DeepSeek's
//! `<｜tool▁call▁begin｜>…<｜tool▁sep｜>…`, gpt-oss's harmony commentary channel
//! (`to=functions.name … <|message|>{…}<|call|>`), Functionary's `>>>name` and
//! PLaMo 3's `<|plamo:begin_tool_name:plamo|>`.

use super::super::json::value_end;
use super::{Marker, Reply, Written, skip_spaces, skip_whitespace};
use serde_json::Value;

/// How far a harmony header (`to=… <|constrain|>json`) may run before its message.
const MAX_HEADER: usize = 256;

/// `<|tool_call_begin|>ID<|tool_call_argument_begin|>{…}<|tool_call_end|>`, the ID
/// being `functions.name:index` (or `name:index`); a bare index names no tool.
pub(super) fn kimi(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let id_at = at + marker.pattern.len();
    let end = reply.first_of(&["<|tool_call_end|>", "<|tool_call_begin|>"], id_at);
    let Some(arguments_at) = reply.find("<|tool_call_argument_begin|>", id_at).filter(|&a| a < end) else {
        return Vec::new();
    };
    let id = reply.text[id_at..arguments_at].trim();
    let name =
        id.rsplit_once(':').filter(|(_, index)| index.bytes().all(|b| b.is_ascii_digit())).map_or(id, |(n, _)| n);
    let body = skip_whitespace(reply.text, arguments_at + "<|tool_call_argument_begin|>".len());
    named_call(reply, marker, at, name, body, end)
}

/// `<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` then the arguments in a JSON code
/// fence (DeepSeek V3, R1), or `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}` (V3.1),
/// to `<｜tool▁call▁end｜>`.
pub(super) fn deepseek(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    const SEP: &str = "<\u{ff5c}tool\u{2581}sep\u{ff5c}>";
    let head_at = at + marker.pattern.len();
    let end = reply.first_of(&[marker.closes[0], marker.pattern], head_at);
    let Some(sep) = reply.find(SEP, head_at).filter(|&s| s < end) else { return Vec::new() };
    let head = reply.text[head_at..sep].trim();
    let after = sep + SEP.len();
    let (name, body) = if head == "function" {
        let line_end = reply.text[after..end].find('\n').map_or(end, |i| after + i);
        let fence = skip_whitespace(reply.text, line_end);
        let body = match reply.text[fence..end].strip_prefix("```") {
            Some(rest) => fence + 3 + rest.find('\n').map_or(rest.len(), |i| i + 1),
            None => fence,
        };
        (reply.text[after..line_end].trim(), body)
    } else {
        (head, skip_whitespace(reply.text, after))
    };
    named_call(reply, marker, at, name, body, end)
}

/// gpt-oss's harmony format: a commentary message to a function,
/// `<|channel|>commentary to=functions.name <|constrain|>json<|message|>{…}<|call|>`
/// (or `<|start|>assistant to=functions.name<|channel|>commentary json<|message|>…`).
pub(super) fn harmony(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let stands_alone = at == 0 || matches!(reply.text.as_bytes()[at - 1], b' ' | b'>' | b'\t');
    let name_at = at + marker.pattern.len();
    let name_len =
        reply.text[name_at..].bytes().take_while(|b| b.is_ascii_alphanumeric() || b"._-".contains(b)).count();
    let Some(message) = reply.find("<|message|>", name_at) else { return Vec::new() };
    let header = &reply.text[name_at..message];
    if !stands_alone || name_len == 0 || header.len() > MAX_HEADER || header.contains('\n') {
        return Vec::new();
    }
    let name = &reply.text[name_at..name_at + name_len];
    let body = skip_whitespace(reply.text, message + "<|message|>".len());
    // A function's message is JSON; any other is prose to a channel (`to=self`,
    // `to=user`) or another format's framing (MuseGlimmer's ATEM calls follow
    // `to=tool<|message|>`), read by its own marker.
    if !reply.text[body..].starts_with('{') {
        return Vec::new();
    }
    let end = reply.first_of(&["<|call|>", "<|end|>", "<|start|>"], body);
    named_call(reply, marker, at, name, body, end)
}

/// Functionary v3.2: `>>>name` on its own line, then the JSON arguments (`>>>all`
/// is text for the user, not a call).
pub(super) fn functionary(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let name_at = skip_spaces(reply.text, at + marker.pattern.len());
    let line_end = reply.text[name_at..].find('\n').map_or(reply.text.len(), |i| name_at + i);
    let name = reply.text[name_at..line_end].trim();
    let body = skip_whitespace(reply.text, line_end);
    if name == "all" || name.contains(char::is_whitespace) || reply.text.as_bytes().get(body) != Some(&b'{') {
        return Vec::new();
    }
    let end = reply.first_of(&["\n>>>"], body);
    named_call(reply, marker, at, name, body, end)
}

/// PLaMo 3: `<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>name
/// <|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json
/// <|plamo:msg|>{…}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>`.
pub(super) fn plamo(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    const NAME: &str = "<|plamo:begin_tool_name:plamo|>";
    const NAME_END: &str = "<|plamo:end_tool_name:plamo|>";
    const ARGUMENTS: &str = "<|plamo:begin_tool_arguments:plamo|>";
    const MESSAGE: &str = "<|plamo:msg|>";
    let head = skip_whitespace(reply.text, at + marker.pattern.len());
    let end = reply.first_of(&["<|plamo:end_tool_arguments:plamo|>", marker.closes[1], marker.pattern], head);
    if !reply.has_at(head, NAME) {
        return Vec::new();
    }
    let name_at = head + NAME.len();
    let Some(name_end) = reply.find(NAME_END, name_at).filter(|&n| n < end) else { return Vec::new() };
    let arguments = reply.find(ARGUMENTS, name_end).filter(|&a| a < end).map_or(end, |a| a + ARGUMENTS.len());
    let body = reply.find(MESSAGE, arguments).filter(|&m| m < end).map_or(arguments, |m| m + MESSAGE.len());
    let body = skip_whitespace(reply.text, body.min(end));
    named_call(reply, marker, at, reply.text[name_at..name_end].trim(), body, end)
}

/// The call to `name` whose arguments start at `body` (a JSON object, other text
/// that is then refused as not JSON, or nothing: no arguments), its span running to
/// its closing token.
fn named_call(reply: &Reply<'_>, marker: &Marker, at: usize, name: &str, body: usize, end: usize) -> Vec<Written> {
    let (arguments, json_end) = match reply.text.as_bytes().get(body) {
        Some(b'{') if body < end => {
            let json_end = value_end(reply.text, body, end);
            (Some(Value::String(reply.text[body..json_end].to_string())), json_end)
        }
        _ => {
            let text = reply.text[body.min(end)..end].trim();
            ((!text.is_empty()).then(|| Value::String(text.to_string())), end)
        }
    };
    // A code fence closing the arguments (DeepSeek V3) belongs to the call.
    let next = skip_whitespace(reply.text, json_end);
    let call_end = if reply.text[next..].starts_with("```") { next + 3 } else { json_end };
    let (span_end, repair) = marker.close(reply, call_end, true);
    let mut written = Written::new(at..span_end, marker.dialect, name.to_string(), arguments);
    written.repairs.extend(repair);
    vec![written]
}
