//! A reader for the almost-JSON models write as arguments, used only when strict
//! parsing fails. It reads what has one reading — single, typographic or missing
//! closing quotes, unquoted keys, Python's `True`/`False`/`None`, comments, trailing,
//! missing or doubled commas, stray quotes and closing brackets, raw new lines in
//! strings, brackets left open at the end, prose around one object — and says what
//! it read so. It refuses what has two readings or none: a bare word as a value (a
//! string, or a variable's name?), a text cut inside a string or a key, two objects,
//! `NaN`, numbers with leading zeros.
//!
//! Written here rather than taken from a crate: the repair crates measured
//! (`llm_json` 1.0.3, `jsonrepair` 0.1.0; `json-repair` 0.4.0 needs a nightly
//! compiler) always return something and say nothing of what they changed, and read
//! 36 and 43 of the 64 cases of `host/testdata/json_repair_corpus.json` as meant
//! (json_repair from PyPI 50, jsonrepair from npm 40; this reader all 64, as its
//! test requires; the JSON5 reading it replaces, 37).

use serde_json::{Map, Number, Value};

/// How deep arrays and objects may nest before the text is refused.
const MAX_DEPTH: usize = 128;

/// Why a text could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Refusal {
    /// No one reading: why, in words.
    Unreadable(String),
    /// An object names a key twice.
    DuplicateKey(String),
}

/// What reading made of a text: the value, and each kind of repair it needed, once.
pub(crate) type Read = (Value, Vec<&'static str>);

/// Reads `text` leniently (see the module's doc).
pub(crate) fn read(text: &str) -> Result<Read, Refusal> {
    let mut reader = Reader { text, bytes: text.as_bytes(), at: 0, did: Vec::new(), depth: 0 };
    reader.skip_space();
    if !matches!(reader.peek(), Some(b'{' | b'[')) {
        let Some(start) = text.find('{') else { return Err(unreadable("there is no JSON object in it")) };
        reader.at = start;
        reader.note("prose around the object left out");
    }
    let value = reader.value()?;
    reader.trailing()?;
    Ok((value, reader.did))
}

fn unreadable(why: impl Into<String>) -> Refusal {
    Refusal::Unreadable(why.into())
}

struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    did: Vec<&'static str>,
    depth: usize,
}

/// Opening quote characters, and the one that closes each.
const QUOTES: [(char, char); 4] = [('"', '"'), ('\'', '\''), ('\u{201c}', '\u{201d}'), ('\u{2018}', '\u{2019}')];

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn peek_char(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    /// Records a kind of repair (once).
    fn note(&mut self, what: &'static str) {
        if !self.did.contains(&what) {
            self.did.push(what);
        }
    }

    /// Skips white space and comments (`//`, `/* */`, `#`).
    fn skip_space(&mut self) {
        loop {
            while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
                self.at += 1;
            }
            let rest = &self.text[self.at..];
            let end = if rest.starts_with("//") || rest.starts_with('#') {
                rest.find('\n').unwrap_or(rest.len())
            } else if let Some(comment) = rest.strip_prefix("/*") {
                comment.find("*/").map_or(rest.len(), |i| i + 4)
            } else {
                return;
            };
            self.note("comments removed");
            self.at += end;
        }
    }

    /// What may follow the top-level value: closing brackets too many, or prose
    /// without another value in it.
    fn trailing(&mut self) -> Result<(), Refusal> {
        self.skip_space();
        while matches!(self.peek(), Some(b'}' | b']')) {
            self.at += 1;
            self.note("closing brackets too many removed");
            self.skip_space();
        }
        let rest = &self.text[self.at..];
        if rest.is_empty() {
            return Ok(());
        }
        if rest.contains(['{', '[']) {
            return Err(unreadable("it holds more than one JSON value"));
        }
        self.note("prose around the object left out");
        Ok(())
    }

    fn value(&mut self) -> Result<Value, Refusal> {
        self.skip_space();
        let Some(c) = self.peek_char() else { return Err(unreadable("it ends where a value should be")) };
        match c {
            '{' | '[' => self.nested(c),
            '-' | '0'..='9' => self.number(),
            c if quote_of(c).is_some() => self.string().map(Value::String),
            c if c.is_alphabetic() => self.word(),
            other => Err(unreadable(format!("'{other}' cannot start a value"))),
        }
    }

    /// An object or an array, within the depth allowed.
    fn nested(&mut self, open: char) -> Result<Value, Refusal> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(unreadable("it nests deeper than 128 levels"));
        }
        self.at += 1;
        let value = if open == '{' { self.object().map(Value::Object) } else { self.array().map(Value::Array) };
        self.depth -= 1;
        value
    }

    fn object(&mut self) -> Result<Map<String, Value>, Refusal> {
        let mut map = Map::new();
        let mut after_comma = true;
        loop {
            self.skip_space();
            match self.peek() {
                None => {
                    self.note("missing closing brackets added");
                    return Ok(map);
                }
                Some(b'}') => {
                    self.close(after_comma && !map.is_empty());
                    return Ok(map);
                }
                Some(b',') => {
                    self.comma(&mut after_comma);
                    continue;
                }
                Some(b']') => {
                    self.at += 1;
                    self.note("closing brackets too many removed");
                    continue;
                }
                Some(b'"') if self.stray_quote() => continue,
                _ => {}
            }
            if !after_comma {
                // A missing comma only before a quoted key: `"a": "x, "b": 1` must
                // not become `{"a": "x, ", "b": 1}`.
                if self.peek_char().is_none_or(|c| quote_of(c).is_none()) {
                    return Err(unreadable("a value is followed by neither ',' nor '}'"));
                }
                self.note("missing commas added");
            }
            let (key, value) = self.member()?;
            if map.contains_key(&key) {
                return Err(Refusal::DuplicateKey(key));
            }
            map.insert(key, value);
            after_comma = false;
            self.skip_space();
            if self.peek() == Some(b'"') {
                self.stray_quote();
            }
        }
    }

    /// Past a closing bracket; `trailing` when a comma stood before it.
    fn close(&mut self, trailing: bool) {
        self.at += 1;
        if trailing {
            self.note("a trailing comma removed");
        }
    }

    /// Past a comma; one right after another is one too many.
    fn comma(&mut self, after_comma: &mut bool) {
        self.at += 1;
        if *after_comma {
            self.note("commas too many removed");
        }
        *after_comma = true;
    }

    /// A quote at `at` that stands before `,`, `}`, `]`, `:` or the end, so opens
    /// nothing: skipped.
    fn stray_quote(&mut self) -> bool {
        let next = self.bytes[self.at + 1..].iter().find(|b| !b.is_ascii_whitespace());
        if next.is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b':')) {
            return false;
        }
        self.at += 1;
        self.note("a stray quote removed");
        true
    }

    /// `key: value`.
    fn member(&mut self) -> Result<(String, Value), Refusal> {
        let key_at = self.at;
        let key = self.key()?;
        self.skip_space();
        if self.peek() == Some(b'"') {
            self.stray_quote();
        }
        match self.peek() {
            Some(b':') => self.at += 1,
            None => return Err(unreadable(format!("it ends after the key '{key}'"))),
            // `"city: "Oslo"`: the key's closing quote is missing, so the key read
            // ran on to the value's opening quote.
            _ if self.bytes[key_at] == b'"' && key.contains(':') => {
                // The name as written, up to the first ':' (not the decoded key,
                // whose escapes are shorter than their text).
                let written = &self.text[key_at + 1..];
                let name = written.split_once(':').map_or(written, |(name, _)| name);
                if name.contains(['\\', '"']) {
                    return Err(unreadable(format!("the key '{key}' is not followed by ':'")));
                }
                self.at = key_at + 1 + name.len() + 1;
                self.note("a missing quote added");
                return Ok((name.to_string(), self.value()?));
            }
            _ => return Err(unreadable(format!("the key '{key}' is not followed by ':'"))),
        }
        self.skip_space();
        if self.peek().is_none() {
            return Err(unreadable(format!("it ends before the value of '{key}'")));
        }
        let value = self.value()?;
        Ok((key, value))
    }

    /// A quoted key, or an unquoted one made of letters, digits, `_`, `-` and `$`.
    fn key(&mut self) -> Result<String, Refusal> {
        let Some(c) = self.peek_char() else { return Err(unreadable("it ends where a key should be")) };
        if quote_of(c).is_some() {
            return self.string();
        }
        let start = self.at;
        while self.peek_char().is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '$')) {
            self.at += self.peek_char().map_or(1, char::len_utf8);
        }
        if self.at == start {
            return Err(unreadable(format!("'{c}' cannot start a key")));
        }
        self.note("unquoted keys read");
        Ok(self.text[start..self.at].to_string())
    }

    fn array(&mut self) -> Result<Vec<Value>, Refusal> {
        let mut items = Vec::new();
        let mut after_comma = true;
        loop {
            self.skip_space();
            match self.peek() {
                None => {
                    self.note("missing closing brackets added");
                    return Ok(items);
                }
                Some(b']') => {
                    self.close(after_comma && !items.is_empty());
                    return Ok(items);
                }
                // The array's `]` is missing before its object's `}`.
                Some(b'}') => {
                    self.note("missing closing brackets added");
                    return Ok(items);
                }
                Some(b',') => {
                    self.comma(&mut after_comma);
                    continue;
                }
                _ => {}
            }
            if !after_comma {
                self.note("missing commas added");
            }
            items.push(self.value()?);
            after_comma = false;
        }
    }

    /// A string in any of the quotes models use, escapes read as JSON's (`\'` too; an
    /// unknown escape kept as written); raw control characters taken as they are; a
    /// closing quote missing before the closing brackets at the end added.
    fn string(&mut self) -> Result<String, Refusal> {
        let open = self.peek_char().expect("at a quote");
        let close = quote_of(open).expect("a quote");
        if open != '"' {
            self.note(if open == '\'' { "single quotes read" } else { "typographic quotes read" });
        }
        self.at += open.len_utf8();
        let start = self.at;
        let mut out = String::new();
        let mut chars = self.text[start..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                c if c == close => {
                    self.at = start + i + c.len_utf8();
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, escaped)) => self.escape(escaped, &mut chars, &mut out)?,
                    None => break,
                },
                c if c.is_control() => {
                    self.note("raw control characters in a string read");
                    out.push(c);
                }
                c => out.push(c),
            }
        }
        self.unclosed(start, out)
    }

    /// A string with no closing quote, its content starting at byte `start`: read to
    /// the closing brackets that end the text, when that is all that follows it; else
    /// the text was cut inside it.
    fn unclosed(&mut self, start: usize, out: String) -> Result<String, Refusal> {
        let closing = |c: char| c == '}' || c == ']' || c.is_whitespace();
        // Measured on the text as written (an escape is longer than what it reads as):
        // the string ran to the end of the text, and its last brackets close the rest.
        let written = &self.text[start..];
        let content = written.trim_end_matches(closing);
        if content.len() == written.len() {
            return Err(unreadable("it ends inside a string"));
        }
        self.note("a missing quote added");
        self.at = start + content.len();
        Ok(out.trim_end_matches(closing).to_string())
    }

    /// The character an escape stands for, pushed onto `out`.
    fn escape(
        &mut self,
        escaped: char,
        chars: &mut std::str::CharIndices<'_>,
        out: &mut String,
    ) -> Result<(), Refusal> {
        let plain = match escaped {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            '"' | '\\' | '/' | '\'' => escaped,
            'u' => {
                out.push(unicode_escape(chars)?);
                return Ok(());
            }
            other => {
                self.note("unknown escapes kept as written");
                out.push('\\');
                other
            }
        };
        out.push(plain);
        Ok(())
    }

    /// A number as JSON writes it; leading zeros (`01`) have no one reading.
    fn number(&mut self) -> Result<Value, Refusal> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let digits = |reader: &mut Self| {
            let from = reader.at;
            while reader.peek().is_some_and(|b| b.is_ascii_digit()) {
                reader.at += 1;
            }
            reader.at - from
        };
        let whole = self.at;
        if digits(self) == 0 {
            return Err(unreadable("a '-' is not followed by a number"));
        }
        if self.bytes[whole] == b'0' && self.at - whole > 1 {
            return Err(unreadable(format!("the number {} has a leading zero", &self.text[start..self.at])));
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            digits(self);
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            digits(self);
        }
        let text = &self.text[start..self.at];
        let number: Option<Number> = serde_json::from_str(text).ok();
        number.map(Value::Number).ok_or_else(|| unreadable(format!("{text} is not a number JSON can hold")))
    }

    /// `true`, `false`, `null`, or Python's `True`, `False`, `None`; any other bare
    /// word has two readings (a string, or a variable's name) and is refused.
    fn word(&mut self) -> Result<Value, Refusal> {
        let start = self.at;
        while self.peek_char().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.at += self.peek_char().map_or(1, char::len_utf8);
        }
        let word = &self.text[start..self.at];
        let value = match word {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            "True" | "False" | "None" => {
                self.note("Python's True, False and None read");
                match word {
                    "True" => Value::Bool(true),
                    "False" => Value::Bool(false),
                    _ => Value::Null,
                }
            }
            _ => return Err(unreadable(format!("the bare word {word} is not a JSON value (quote a string)"))),
        };
        Ok(value)
    }
}

/// The character of a `\uXXXX` escape (its `\u` read), a UTF-16 surrogate pair
/// joined with the escape after it.
fn unicode_escape(chars: &mut std::str::CharIndices<'_>) -> Result<char, Refusal> {
    let broken = || unreadable("it holds a broken \\u escape");
    let first = hex_unit(chars).ok_or_else(broken)?;
    if !(0xD800..0xDC00).contains(&first) {
        return Ok(char::from_u32(first).unwrap_or('\u{fffd}'));
    }
    let low = match (chars.next(), chars.next()) {
        (Some((_, '\\')), Some((_, 'u'))) => hex_unit(chars).ok_or_else(broken)?,
        _ => return Ok('\u{fffd}'),
    };
    let joined = 0x10000 + ((first - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
    Ok(char::from_u32(joined).unwrap_or('\u{fffd}'))
}

/// Four hex digits.
fn hex_unit(chars: &mut std::str::CharIndices<'_>) -> Option<u32> {
    let hex: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
    let digits = hex.len() == 4 && hex.chars().all(|c| c.is_ascii_hexdigit());
    digits.then(|| u32::from_str_radix(&hex, 16).ok()).flatten()
}

/// The quote that closes `open`, if `open` opens a string.
fn quote_of(open: char) -> Option<char> {
    QUOTES.iter().find(|(o, _)| *o == open).map(|(_, close)| *close)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_missing_its_quote_is_measured_as_written_not_as_decoded() {
        let (value, _) = read("{\"\u{e9}\u{e9}:\"x\"}").unwrap_or_else(|r| panic!("{r:?}"));
        assert_eq!(value, serde_json::json!({"\u{e9}\u{e9}": "x"}));
        // Decoded, `\u00e9` is two bytes of six: a name with escapes has no one
        // place where its quote was left out.
        assert!(read("{\"\\u00e9\u{e9}\u{e9}:\"x\"}").is_err());
        assert!(read("{\"a\\\"b:\"x\"}").is_err());
    }

    #[test]
    fn a_string_left_open_is_closed_where_the_written_brackets_begin() {
        // A raw ideographic space, then an escaped new line: four bytes of text read as
        // two, before the closing bracket.
        let (value, did) = read("{\"a\": \"b\u{3000}\\n}").unwrap_or_else(|r| panic!("{r:?}"));
        assert_eq!(value, serde_json::json!({"a": "b"}));
        assert!(did.contains(&"a missing quote added"));
        assert_eq!(read("{\"a\": \"b\\"), Err(unreadable("it ends inside a string")));
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_read_or_refused_without_a_panic(text in "[{}\\[\\]\"'\\\\:,a-z0-9 \\n\u{e9}\u{3000}\u{201c}\u{201d}]{0,40}") {
            let _ = read(&text);
        }
    }
}
