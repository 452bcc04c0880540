//! Gemma's calls: `call:name{key:value,…}` inside FunctionGemma's
//! `<start_function_call>…<end_function_call>` (strings between `<escape>` tokens)
//! or Gemma 4's `<|tool_call>…<tool_call|>` (strings between `<|"|>`). Keys are bare;
//! values are strings, bare numbers and booleans, `{…}` objects and `[…]` lists in
//! the same syntax.

use serde_json::{Map, Value};

use super::{Marker, Reply, Written, skip_whitespace};

/// How deep objects and lists may nest.
const MAX_DEPTH: usize = 32;

/// `call:name{…}` after the marker, to its closing token.
pub(super) fn call(reply: &Reply<'_>, marker: &Marker, at: usize) -> Vec<Written> {
    let delimiter = if marker.pattern == "<start_function_call>" { "<escape>" } else { "<|\"|>" };
    let body = skip_whitespace(reply.text, at + marker.pattern.len());
    let Some(rest) = reply.text[body..].strip_prefix("call:") else { return Vec::new() };
    let name_len = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')).count();
    let open = body + "call:".len() + name_len;
    if name_len == 0 || reply.text.as_bytes().get(open) != Some(&b'{') {
        return Vec::new();
    }
    let syntax = Syntax { text: reply.text, delimiter };
    let Some((arguments, end)) = syntax.object(open + 1, 0) else { return Vec::new() };
    let (span_end, repair) = marker.close(reply, end, true);
    let name = reply.text[body + "call:".len()..open].to_string();
    let mut written = Written::new(at..span_end, marker.dialect, name, Some(Value::Object(arguments)));
    written.text_values = true;
    written.repairs.extend(repair);
    vec![written]
}

/// The text and the token that quotes its strings.
struct Syntax<'t> {
    text: &'t str,
    delimiter: &'static str,
}

impl Syntax<'_> {
    /// The members after an object's `{` at `i`, and where its `}` ends.
    fn object(&self, mut i: usize, depth: usize) -> Option<(Map<String, Value>, usize)> {
        let mut members = Map::new();
        loop {
            i = self.skip_separators(i);
            if self.text.as_bytes().get(i)? == &b'}' {
                return Some((members, i + 1));
            }
            let colon = self.text[i..].find(':')? + i;
            let key = self.text[i..colon].trim();
            if key.is_empty() || key.contains(['{', '}', ',', '<']) || members.contains_key(key) {
                return None;
            }
            let (value, end) = self.value(colon + 1, depth)?;
            members.insert(key.to_string(), value);
            i = end;
        }
    }

    /// One value at `i`, and where it ends.
    fn value(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
        let i = skip_whitespace(self.text, i);
        if depth > MAX_DEPTH {
            return None;
        }
        let rest = &self.text[i..];
        if let Some(string) = rest.strip_prefix(self.delimiter) {
            let end = string.find(self.delimiter)?;
            return Some((Value::String(string[..end].to_string()), i + self.delimiter.len() * 2 + end));
        }
        match rest.as_bytes().first()? {
            b'{' => self.object(i + 1, depth + 1).map(|(members, end)| (Value::Object(members), end)),
            b'[' => self.list(i + 1, depth + 1),
            _ => {
                let length = rest.find([',', '}', ']']).unwrap_or(rest.len());
                let bare = rest[..length].trim();
                // Nothing before the next separator is no value (and no progress).
                if bare.is_empty() {
                    return None;
                }
                let value = serde_json::from_str(bare).unwrap_or_else(|_| Value::String(bare.to_string()));
                Some((value, i + length))
            }
        }
    }

    /// The items after a list's `[` at `i`, and where its `]` ends.
    fn list(&self, mut i: usize, depth: usize) -> Option<(Value, usize)> {
        let mut items = Vec::new();
        loop {
            i = self.skip_separators(i);
            if self.text.as_bytes().get(i)? == &b']' {
                return Some((Value::Array(items), i + 1));
            }
            let (item, end) = self.value(i, depth)?;
            items.push(item);
            i = end;
        }
    }

    /// Past white space and commas.
    fn skip_separators(&self, i: usize) -> usize {
        i + self.text[i..].bytes().take_while(|b| b.is_ascii_whitespace() || *b == b',').count()
    }
}
