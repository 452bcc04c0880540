//! Where JSON objects lie in a stretch of text: the extent of an object or array
//! found by matching brackets outside strings (single- or double-quoted, escapes
//! honoured), so that the text repair of `bind` can then read each one. Linear.

use std::ops::Range;

/// Just past the bracket that closes the object or array opening at `start`, or
/// `limit` when it does not close before it (the repair may add the brackets).
pub(super) fn value_end(text: &str, start: usize, limit: usize) -> usize {
    let bytes = &text.as_bytes()[..limit.min(text.len())];
    if start >= bytes.len() {
        return start.min(text.len());
    }
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = start;
    while i < bytes.len() {
        let byte = bytes[i];
        match quote {
            Some(_) if byte == b'\\' => i += 1,
            Some(q) if byte == q => quote = None,
            Some(_) => {}
            None => match byte {
                b'"' | b'\'' => quote = Some(byte),
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    bytes.len()
}

/// The JSON objects written one after another in `range` of `text` (separated by
/// anything), an array's objects counted one by one.
pub(super) fn objects_in(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut objects = Vec::new();
    let mut i = range.start;
    let bytes = text.as_bytes();
    while i < range.end {
        match bytes[i] {
            b'{' => {
                let end = value_end(text, i, range.end);
                objects.push(i..end);
                i = end;
            }
            b'[' => {
                let end = value_end(text, i, range.end);
                objects.extend(objects_in(text, i + 1..end));
                i = end;
            }
            _ => i += 1,
        }
    }
    objects
}

/// The JSON values written one after another from `from` (objects, or arrays of
/// them; separated by white space, `,` or `;`), each found by its brackets, so that a
/// tag quoted inside a string cannot end them: the objects, and where they end.
pub(super) fn values_from(text: &str, from: usize) -> (Vec<Range<usize>>, usize) {
    let bytes = text.as_bytes();
    let (mut objects, mut i, mut end) = (Vec::new(), from, from);
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b';' => i += 1,
            b'{' => {
                end = value_end(text, i, text.len());
                objects.push(i..end);
                i = end;
            }
            b'[' => {
                end = value_end(text, i, text.len());
                objects.extend(objects_in(text, i + 1..end));
                i = end;
            }
            _ => break,
        }
    }
    (objects, end)
}

#[cfg(test)]
mod tests {
    use super::{objects_in, value_end};

    #[test]
    fn objects_are_found_by_their_brackets_whatever_the_strings_hold() {
        let text = r#"x {"a": "}{", 'b': "\"]"} y [{"c": 1}, {"d": [2]}] {"open": 1"#;
        let found: Vec<&str> = objects_in(text, 0..text.len()).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, [r#"{"a": "}{", 'b': "\"]"}"#, r#"{"c": 1}"#, r#"{"d": [2]}"#, r#"{"open": 1"#]);
        assert_eq!(value_end("{{}", 0, 3), 3);
    }
}
