//! Calls written where no dialect puts them, read only where that has one reading
//! (tried when the reply has no dialect's marker and is not itself a call):
//!
//! - the whole reply in one code fence (or inline code) holding nothing but calls:
//!   the fence wraps the reply, it is not an example beside prose;
//! - calls in a tag pair that no dialect's table names but whose name says it holds
//!   a tool call (`<functioncall>…</functioncall>`, `[TOOL_CALL]…[/TOOL_CALL]`);
//! - one call-shaped span among prose: a JSON call object (or an array of them), or
//!   a bracketed list of Python-style calls (`[f(a=1)]`, the prompt-mode form; a bare
//!   `f(a=1)` in a sentence is how prose shows code), when it is the only one outside
//!   code, quotes and quoted lines, and no other JSON object stands in the reply. Two
//!   spans, or another object beside one: nothing is read, as nothing is guessed.
//!
//! Each call read so says how (`Repair::CallText`). One pass over the reply.

use std::collections::HashMap;
use std::ops::Range;

use super::dialects::{Written, pythonic_at};
use super::json::{value_end, values_from};
use super::{Dialect, code, whole_reply};
use crate::tool::{Repair, ToolCall};

/// The calls of a reply that holds them in one of the ways above.
pub(super) fn calls(text: &str) -> Vec<Written> {
    let fenced = fenced_reply(text);
    if !fenced.is_empty() {
        return fenced;
    }
    let tagged = tag_pairs(text);
    if !tagged.is_empty() {
        return tagged;
    }
    one_among_prose(text)
}

/// The calls of a reply that is one fenced block or inline code span and nothing
/// else, holding nothing but calls.
fn fenced_reply(text: &str) -> Vec<Written> {
    let start = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let fence = trimmed.bytes().take_while(|&b| b == b'`').count();
    let fence = if fence == 0 { trimmed.bytes().take_while(|&b| b == b'~').count() } else { fence };
    if fence == 0 || trimmed.len() < 2 * fence || (trimmed.starts_with('~') && fence < 3) {
        return Vec::new();
    }
    let close = &trimmed[..fence];
    let Some(inner) = trimmed[fence..].strip_suffix(close) else { return Vec::new() };
    if inner.contains(close) {
        return Vec::new();
    }
    // An info string (```json, ```python, ```tool_code) on the opening line.
    let info = inner.find('\n').filter(|&line| {
        inner[..line].trim().bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+'))
    });
    let body_at = start + fence + info.map_or(0, |line| line + 1);
    let body = &text[body_at..start + trimmed.len() - fence];
    let mut calls = whole_reply(body);
    for call in &mut calls {
        call.span = call.span.start + body_at..call.span.end + body_at;
        call.repairs.push(Repair::CallText { how: "the code fence around the reply removed".into() });
    }
    calls
}

/// The calls in tag pairs (`<name>…</name>` or `[name]…[/name]`, any case) whose
/// name says they hold a tool call, outside code; the last such tag may be left
/// open at the end of the reply. Tags are found in one pass and paired by their
/// positions, and each stretch of the reply is read once, so that a reply of many
/// unpaired tags costs no more than one pass.
fn tag_pairs(text: &str) -> Vec<Written> {
    let code = code::regions(text);
    let lower = text.to_ascii_lowercase();
    let mut region = code.iter().peekable();
    let outside_code = |tag: &Tag| {
        while region.next_if(|r| r.end <= tag.start).is_some() {}
        region.peek().is_none_or(|r| r.start > tag.start)
    };
    let tags: Vec<Tag> = tags(&lower).filter(outside_code).collect();
    let mut positions: HashMap<(&str, bool, bool), Vec<usize>> = HashMap::new();
    for tag in &tags {
        positions.entry((&lower[tag.name.clone()], tag.angle, tag.closing)).or_default().push(tag.start);
    }
    let next = |tag: &Tag, closing: bool| {
        let found = positions.get(&(&lower[tag.name.clone()], tag.angle, closing))?;
        found.get(found.partition_point(|&at| at < tag.end)).copied()
    };
    let mut calls = Vec::new();
    let mut from = 0;
    for tag in tags.iter().filter(|tag| !tag.closing) {
        if tag.start < from {
            continue;
        }
        // Left open only as the last of its kind, to the end of the reply.
        let close = next(tag, true);
        if close.is_none() && next(tag, false).is_some() {
            continue;
        }
        let body_end = close.unwrap_or(text.len());
        let span_end = close.map_or(body_end, |at| at + tag.close_token(&lower).len());
        from = span_end;
        let Some(mut found) = calls_in(text, tag.end..body_end) else { continue };
        let several = found.len() > 1;
        let how = format!("the {} tags around the call read", &text[tag.start..tag.end]);
        for call in &mut found {
            if !several {
                call.span = tag.start..span_end;
            }
            call.repairs.push(Repair::CallText { how: how.clone() });
            if close.is_none() {
                call.repairs.push(Repair::ClosingTag { tag: tag.close_token(text) });
            }
        }
        calls.extend(found);
    }
    calls
}

/// An opening or closing tag found.
struct Tag {
    start: usize,
    end: usize,
    /// The name's place in the text.
    name: Range<usize>,
    /// `<…>` or `[…]`.
    angle: bool,
    /// `</…>` or `[/…]`.
    closing: bool,
}

impl Tag {
    /// The tag that closes this one, spelt from `text` (the reply or its lower case).
    fn close_token(&self, text: &str) -> String {
        let name = &text[self.name.clone()];
        if self.angle { format!("</{name}>") } else { format!("[/{name}]") }
    }
}

/// Every opening and closing tag in `lower` whose name says it holds a tool call, in
/// order.
fn tags(lower: &str) -> impl Iterator<Item = Tag> + '_ {
    let bytes = lower.as_bytes();
    (0..bytes.len()).filter_map(move |i| {
        let angle = match bytes[i] {
            b'<' => true,
            b'[' => false,
            _ => return None,
        };
        let closing = bytes.get(i + 1) == Some(&b'/');
        let name_at = i + 1 + usize::from(closing);
        let length = bytes[name_at..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':'))
            .count();
        let end = if angle { b'>' } else { b']' };
        let is_tag = length > 0
            && bytes.get(name_at + length) == Some(&end)
            && says_tool_call(&lower[name_at..name_at + length]);
        is_tag.then(|| Tag { start: i, end: name_at + length + 1, name: name_at..name_at + length, angle, closing })
    })
}

/// Whether a tag's name (lower case) says it holds a tool call.
fn says_tool_call(name: &str) -> bool {
    ["tool", "function", "call", "invoke"].iter().any(|word| name.contains(word))
}

/// The calls written in `range` of `text` and nothing else there: JSON call objects
/// (alone, several, or in an array) or Python-style calls.
fn calls_in(text: &str, range: Range<usize>) -> Option<Vec<Written>> {
    let body = &text[range.clone()];
    let at = range.start + (body.len() - body.trim_start().len());
    let end = range.start + body.trim_end().len();
    if at >= end {
        return None;
    }
    let (objects, objects_end) = values_from(text, at);
    if !objects.is_empty() && objects_end == end {
        let calls: Vec<Written> = objects.into_iter().filter_map(|object| json_call(text, object)).collect();
        return (!calls.is_empty()).then_some(calls);
    }
    let (calls, calls_end) = pythonic_at(text, at)?;
    (text[calls_end..end].trim().is_empty()).then_some(calls)
}

/// The call written as the JSON object at `object`, read as argument text is.
fn json_call(text: &str, object: Range<usize>) -> Option<Written> {
    let (value, repair) = super::read(&text[object.clone()])?;
    let object_value =
        value.as_object().filter(|object| ToolCall::looks_like_call(object) && !ToolCall::is_definition(object))?;
    let call = ToolCall::from_object(object_value)?;
    let mut written = Written::new(object, Dialect::BareJson, call.name, call.arguments);
    written.repairs.extend(repair.map(|how| Repair::ArgumentText { how }));
    Some(written)
}

/// What the prose scan found at a place.
enum Found {
    /// Calls, and where they end.
    Calls(Vec<Written>, usize),
    /// A JSON object that is not a call: the reply is not prose around one call.
    OtherJson,
    /// Nothing here; go on from this offset.
    Nothing(usize),
}

/// The calls of the one call-shaped span among prose, if there is exactly one (calls
/// or lists of them separated only by white space and commas are one span). A
/// bracket or object that holds no call is passed over whole: one pass.
fn one_among_prose(text: &str) -> Vec<Written> {
    let code = code::regions(text);
    let mut region = code.iter().peekable();
    let mut found: Option<(Vec<Written>, usize)> = None;
    // The start of the current line, found from where the last search stopped.
    let (mut line_start, mut searched) = (0, 0);
    let mut i = 0;
    while i < text.len() {
        while region.next_if(|r| r.end <= i).is_some() {}
        if let Some(r) = region.peek().filter(|r| r.start <= i) {
            i = r.end;
            continue;
        }
        let next = match found_at(text, i) {
            Found::Nothing(next) => next,
            Found::OtherJson => return Vec::new(),
            Found::Calls(calls, end) => {
                if let Some(at) = text[searched..i].rfind('\n') {
                    line_start = searched + at + 1;
                }
                searched = i;
                if quoted(text, i, end, line_start) {
                    end
                } else {
                    match &mut found {
                        None => found = Some((calls, end)),
                        Some((run, run_end))
                            if text[*run_end..i].bytes().all(|b| b.is_ascii_whitespace() || b == b',') =>
                        {
                            run.extend(calls);
                            *run_end = end;
                        }
                        Some(_) => return Vec::new(),
                    }
                    end
                }
            }
        };
        i = next.max(i + 1);
    }
    let mut calls = found.map(|(calls, _)| calls).unwrap_or_default();
    for call in &mut calls {
        call.repairs.push(Repair::CallText { how: "prose around the call left out".into() });
    }
    calls
}

/// What starts at `i`: a JSON object or array of call objects, a bracketed list of
/// Python-style calls, another JSON object, or nothing (and where to look next). A
/// Python-style call outside brackets (`you could run gcd(a=4)`) is how prose shows
/// code, so it is not call-shaped here.
fn found_at(text: &str, i: usize) -> Found {
    match text.as_bytes()[i] {
        b'{' => {
            let end = value_end(text, i, text.len());
            match json_call(text, i..end) {
                Some(call) => Found::Calls(vec![call], end),
                None if super::read(&text[i..end]).is_some() => Found::OtherJson,
                None => Found::Nothing(end),
            }
        }
        b'[' => {
            if let Some((calls, end)) = pythonic_at(text, i) {
                return Found::Calls(calls, end);
            }
            let end = value_end(text, i, text.len());
            match calls_in(text, i..end) {
                Some(calls) if calls.iter().all(|c| c.dialect == Dialect::BareJson) => Found::Calls(calls, end),
                _ => Found::Nothing(end),
            }
        }
        _ => Found::Nothing(i + 1),
    }
}

/// Whether the span `start..end` (on the line starting at `line_start`) is quoted:
/// between quotation marks, or on a Markdown quote line (`> …`).
fn quoted(text: &str, start: usize, end: usize, line_start: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let pairs = [('"', '"'), ('\'', '\''), ('\u{201c}', '\u{201d}'), ('\u{2018}', '\u{2019}'), ('\u{ab}', '\u{bb}')];
    if pairs.iter().any(|&(open, close)| before == Some(open) && after == Some(close)) {
        return true;
    }
    text[line_start..start].trim_start().starts_with('>')
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn names(text: &str) -> Vec<(String, Option<Value>)> {
        calls(text).into_iter().map(|call| (call.name, call.arguments)).collect()
    }

    #[test]
    fn one_call_among_prose_is_read_and_said_so() {
        let text = "Here is the call: [calc_area(base=10, height=5)]. It gives the area.";
        let found = calls(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "calc_area");
        assert_eq!(&text[found[0].span.clone()], "calc_area(base=10, height=5)");
        assert_eq!(found[0].repairs, [Repair::CallText { how: "prose around the call left out".into() }]);
        let json = "Sure! {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}} should do it.";
        assert_eq!(names(json), [("get_weather".to_string(), Some(serde_json::json!({"city": "Paris"})))]);
        assert_eq!(names("I'll call [get_time(zone='UTC')] now.").len(), 1);
        assert_eq!(names("Here are the calls:\n\n[a(x=1)]\n\n[b(y=2)], [c(z=3)]\n\nDone.").len(), 3);
    }

    #[test]
    fn prose_with_two_spans_another_object_or_only_examples_is_not_read() {
        for text in [
            "First [a(x=1)] and then [b(y=2)].",
            "[a(x=1)] is one way; [b(y=2)] is another.",
            "Call f(a=1), or g(b=2).",
            "You could run gcd(a=4, b=6) yourself.",
            "Use [f(a=1)] with {\"config\": true}.",
            "For example, `f(a=1)` would do it.",
            "```python\nf(a=1)\n```\nThat is how it is called.",
            "The doc says \"f(a=1)\" is valid.",
            "> f(a=1)\nis what they wrote.",
            "Compute print(x) then len(y).",
            "You could call get_time() for that.",
        ] {
            assert!(names(text).is_empty(), "{text}: {:?}", names(text));
        }
    }

    #[test]
    fn a_fenced_reply_of_calls_and_unnamed_tag_pairs_are_read() {
        let fenced = "```json\n[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]\n```";
        assert_eq!(names(fenced), [("f".to_string(), Some(serde_json::json!({"a": 1})))]);
        assert_eq!(names("```[f(a=1), g(b='x')]```").len(), 2);
        assert!(names("```python\n[f(a=1)]\n```\nThen the answer.").is_empty());
        let tagged = "Calling it.\n<functioncall> {\"name\": \"f\", \"arguments\": {\"a\": 1}} </functioncall>";
        let found = calls(tagged);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].span, 12..tagged.len());
        assert_eq!(found[0].repairs, [Repair::CallText { how: "the <functioncall> tags around the call read".into() }]);
        assert_eq!(names("[TOOL]f(a=1)[/TOOL]").len(), 1);
        // A tool's definition, as models echo the tools they were shown, is no call.
        let echoed = "Tools: [{\"name\": \"f\", \"description\": \"Does f.\", \"parameters\": {\"type\": \"dict\", \"properties\": {}}}]";
        assert!(names(echoed).is_empty());
        // Markup that names no tool call is text around one call object.
        assert_eq!(names("<note>{\"name\": \"f\", \"arguments\": {}}</note>").len(), 1);
    }
}
