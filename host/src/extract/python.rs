//! Python values as the Python-style dialects write them (`coords=(40.7, -74.0)`),
//! read as JSON carries them: strings in any of Python's quotes (prefixes `r` and `u`,
//! triple quotes, escapes), adjacent or `+`-joined string literals as one string,
//! numbers (with `_`, `0x`, `0o`, `0b`, a sign), `True`/`False`/`None` (and JSON's
//! `true`/`false`/`null`), lists, tuples and sets as arrays, dicts as objects (an
//! integer, boolean or `None` key as the text `json.dumps` writes for it).
//!
//! Anything else is an expression, not a value (`2*pi`, `math.sqrt(2)`, a name, an
//! f-string with fields): it is not read, and [`Read::Expression`] says where it is,
//! so that the call it stands in is refused with a message naming the argument and
//! the reader goes on with the reply's other calls.
//!
//! Written here rather than taken from a crate: the Python parsers for Rust
//! (`rustpython-parser`, `ruff_python_parser`) parse whole programs into a syntax
//! tree, pull in large grammars, and still leave the evaluation of literals to the
//! caller; this needs only the literal grammar, and must find where an expression it
//! does not read ends.

use serde_json::{Map, Number, Value};

/// How deep lists, tuples and dicts may nest.
const MAX_DEPTH: usize = 128;

/// What was at a position: a value and where it ends, or an expression and where it
/// ends.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Read {
    /// A literal, as JSON.
    Value(Value, usize),
    /// Not a literal: the expression runs to this offset.
    Expression(usize),
}

/// The Python value at `at` of `text` (after white space), or the expression there;
/// `None` when the text is not Python there (an unclosed bracket or string, a stray
/// character).
pub(super) fn value_at(text: &str, at: usize) -> Option<Read> {
    let mut reader = Reader { text, bytes: text.as_bytes(), at, depth: 0 };
    match reader.value() {
        Ok(value) => Some(Read::Value(value, reader.at)),
        Err(Stop::Expression) => expression_end(text, at).map(Read::Expression),
        Err(Stop::Syntax) => None,
    }
}

/// Why a value was not read.
enum Stop {
    /// Python, but not a literal.
    Expression,
    /// Not Python.
    Syntax,
}

struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    depth: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// A value, then (for strings) what joins it to the next; an operator after a
    /// value makes the whole an expression.
    fn value(&mut self) -> Result<Value, Stop> {
        let value = self.operand()?;
        let after = self.at;
        self.skip_space();
        if self.peek().is_some_and(is_operator) || self.peek() == Some(b'(') || self.peek() == Some(b'.') {
            return Err(Stop::Expression);
        }
        self.at = after;
        Ok(value)
    }

    fn operand(&mut self) -> Result<Value, Stop> {
        self.skip_space();
        let Some(byte) = self.peek() else { return Err(Stop::Syntax) };
        match byte {
            b'[' => self.nested(b']').map(Value::Array),
            b'(' => self.parenthesized(),
            b'{' => self.braced(),
            b'-' | b'+' => self.signed(),
            b'0'..=b'9' | b'.' => self.number(),
            b'"' | b'\'' => self.strings(),
            b if b.is_ascii_alphabetic() || b == b'_' => self.word(),
            _ => Err(Stop::Syntax),
        }
    }

    /// One level deeper, within the limit.
    fn deeper<T>(&mut self, read: impl FnOnce(&mut Self) -> Result<T, Stop>) -> Result<T, Stop> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Stop::Syntax);
        }
        let read = read(self);
        self.depth -= 1;
        read
    }

    /// Items separated by commas (one after the last allowed) to `close`, the
    /// opening bracket at hand.
    fn nested(&mut self, close: u8) -> Result<Vec<Value>, Stop> {
        self.at += 1;
        self.skip_space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Ok(Vec::new());
        }
        let first = self.deeper(Self::value)?;
        self.deeper(|reader| reader.items_after(first, close))
    }

    /// The items of a bracket whose first item has been read, to `close`.
    fn items_after(&mut self, first: Value, close: u8) -> Result<Vec<Value>, Stop> {
        let mut items = vec![first];
        while self.comma_or(close)? {
            self.skip_space();
            if self.peek() == Some(close) {
                break;
            }
            items.push(self.value()?);
        }
        self.at += 1;
        Ok(items)
    }

    /// Past a comma (`true`), or at `close` (`false`); anything else is no Python.
    fn comma_or(&mut self, close: u8) -> Result<bool, Stop> {
        self.skip_space();
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                Ok(true)
            }
            Some(byte) if byte == close => Ok(false),
            Some(b'f' | b'i') => Err(Stop::Expression), // a comprehension's `for`, a conditional's `if`
            _ => Err(Stop::Syntax),
        }
    }

    /// `(x)` is `x`; `(x,)`, `(x, y)` and `()` are tuples, read as arrays.
    fn parenthesized(&mut self) -> Result<Value, Stop> {
        self.at += 1;
        self.skip_space();
        if self.peek() == Some(b')') {
            self.at += 1;
            return Ok(Value::Array(Vec::new()));
        }
        let first = self.deeper(Self::value)?;
        self.skip_space();
        if self.peek() == Some(b')') {
            self.at += 1;
            return Ok(first);
        }
        self.deeper(|reader| reader.items_after(first, b')')).map(Value::Array)
    }

    /// A dict (`{k: v}`), read as an object; or a set (`{a, b}`), read as an array.
    fn braced(&mut self) -> Result<Value, Stop> {
        self.at += 1;
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(Map::new()));
        }
        let first = self.deeper(Self::value)?;
        self.skip_space();
        if self.peek() != Some(b':') {
            return self.deeper(|reader| reader.items_after(first, b'}')).map(Value::Array);
        }
        self.deeper(|reader| reader.members_after(first))
    }

    /// The members of a dict whose first key has been read, to its `}`.
    fn members_after(&mut self, first: Value) -> Result<Value, Stop> {
        let mut map = Map::new();
        let mut key = first;
        loop {
            self.skip_space();
            if self.peek() != Some(b':') {
                return Err(Stop::Syntax);
            }
            self.at += 1;
            let value = self.value()?;
            if map.insert(key_text(key)?, value).is_some() {
                // A key given twice: Python keeps the last, but which the model meant
                // has no one reading.
                return Err(Stop::Expression);
            }
            if !self.comma_or(b'}')? {
                break;
            }
            self.skip_space();
            if self.peek() == Some(b'}') {
                break;
            }
            key = self.value()?;
        }
        self.at += 1;
        Ok(Value::Object(map))
    }

    /// `-5`, `+2.5`: a sign before a number (or before another sign, as Python allows).
    fn signed(&mut self) -> Result<Value, Stop> {
        let negative = self.peek() == Some(b'-');
        self.at += 1;
        let Value::Number(number) = self.operand()? else { return Err(Stop::Expression) };
        if !negative {
            return Ok(Value::Number(number));
        }
        let negated = if let Some(i) = number.as_i64() {
            i.checked_neg().map(Number::from)
        } else if number.as_u64() == Some(i64::MAX as u64 + 1) {
            Some(Number::from(i64::MIN))
        } else if number.is_f64() {
            number.as_f64().and_then(|f| Number::from_f64(-f))
        } else {
            None
        };
        // An integer past 64 bits: a value, but not one JSON's numbers here hold.
        negated.map(Value::Number).ok_or(Stop::Expression)
    }

    /// A number as Python writes it, read as JSON's.
    fn number(&mut self) -> Result<Value, Stop> {
        let start = self.at;
        let rest = &self.text[start..];
        let length = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || exponent_sign(rest, i, c)))
            .map_or(rest.len(), |(i, _)| i);
        self.at += length;
        python_number(&rest[..length]).map(Value::Number)
    }

    /// One or more string literals side by side or joined by `+` (Python's
    /// concatenation), as one string.
    fn strings(&mut self) -> Result<Value, Stop> {
        let mut joined = String::new();
        loop {
            joined.push_str(&self.string()?);
            let after = self.at;
            self.skip_space();
            if self.peek() == Some(b'+') {
                self.at += 1;
                self.skip_space();
            }
            if !self.at_string() {
                self.at = after;
                return Ok(Value::String(joined));
            }
        }
    }

    /// Whether a string literal (its prefix included) starts here.
    fn at_string(&self) -> bool {
        let rest = &self.bytes[self.at..];
        let prefix = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        prefix <= 2 && matches!(rest.get(prefix), Some(b'"' | b'\'')) && string_prefix(&rest[..prefix]).is_some()
    }

    /// One string literal, its prefix (`r`, `u`; `f` without fields) and quotes read.
    fn string(&mut self) -> Result<String, Stop> {
        let prefix_length = self.bytes[self.at..].iter().take_while(|b| b.is_ascii_alphabetic()).count();
        let prefix = string_prefix(&self.bytes[self.at..self.at + prefix_length]).ok_or(Stop::Expression)?;
        self.at += prefix_length;
        let quote = self.bytes[self.at];
        let triple = self.bytes[self.at..].starts_with(&[quote; 3]);
        let delimiter = if triple { 3 } else { 1 };
        self.at += delimiter;
        let start = self.at;
        let mut out = String::new();
        let mut chars = self.text[start..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' if prefix.raw => {
                    out.push(c);
                    if let Some((_, next)) = chars.next() {
                        out.push(next);
                    }
                }
                '\\' => escape(&mut chars, &mut out),
                '\n' if !triple => return Err(Stop::Syntax),
                c if c as u32 == u32::from(quote) && self.bytes[start + i..].starts_with(&[quote; 3][..delimiter]) => {
                    self.at = start + i + delimiter;
                    if prefix.formatted && (out.contains('{') || out.contains('}')) {
                        return Err(Stop::Expression);
                    }
                    return Ok(out);
                }
                c => out.push(c),
            }
        }
        Err(Stop::Syntax)
    }

    /// `True`, `False`, `None` (and JSON's `true`, `false`, `null`); a string with a
    /// prefix; any other name is an expression.
    fn word(&mut self) -> Result<Value, Stop> {
        if self.at_string() {
            return self.strings();
        }
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.at += 1;
        }
        match &self.text[start..self.at] {
            "True" | "true" => Ok(Value::Bool(true)),
            "False" | "false" => Ok(Value::Bool(false)),
            "None" | "null" => Ok(Value::Null),
            _ => Err(Stop::Expression),
        }
    }
}

/// What a string's prefix says.
struct Prefix {
    raw: bool,
    formatted: bool,
}

/// The meaning of a string prefix (any case): none, `r`, `u`, `f`, `rf`/`fr`; a
/// bytes literal (`b`) is not text, so not a value JSON carries.
fn string_prefix(prefix: &[u8]) -> Option<Prefix> {
    let lower: Vec<u8> = prefix.iter().map(u8::to_ascii_lowercase).collect();
    let (raw, formatted) = match lower.as_slice() {
        b"" | b"u" => (false, false),
        b"r" => (true, false),
        b"f" => (false, true),
        b"rf" | b"fr" => (true, true),
        _ => return None,
    };
    Some(Prefix { raw, formatted })
}

/// The character(s) a backslash escape in a (not raw) string stands for, pushed onto
/// `out`; an escape Python does not know is kept as written, as Python keeps it.
fn escape(chars: &mut std::str::CharIndices<'_>, out: &mut String) {
    let Some((_, escaped)) = chars.next() else {
        out.push('\\');
        return;
    };
    let simple = match escaped {
        '\n' => return,
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'a' => '\u{7}',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'v' => '\u{b}',
        '\\' | '\'' | '"' => escaped,
        'x' => return code_point(chars, 2, "\\x", out),
        'u' => return code_point(chars, 4, "\\u", out),
        'U' => return code_point(chars, 8, "\\U", out),
        '0'..='7' => {
            let mut digits = String::from(escaped);
            while digits.len() < 3 && chars.clone().next().is_some_and(|(_, c)| ('0'..='7').contains(&c)) {
                digits.extend(chars.next().map(|(_, c)| c));
            }
            let value = u32::from_str_radix(&digits, 8).ok().and_then(char::from_u32);
            out.push(value.unwrap_or('\u{fffd}'));
            return;
        }
        other => {
            out.push('\\');
            other
        }
    };
    out.push(simple);
}

/// A `\x`, `\u` or `\U` escape of `digits` hex digits; kept as written when they are
/// not there.
fn code_point(chars: &mut std::str::CharIndices<'_>, digits: usize, written: &str, out: &mut String) {
    let ahead = chars.clone();
    let hex: String = ahead.take(digits).map(|(_, c)| c).collect();
    let value = (hex.len() == digits && hex.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32))
        .flatten();
    match value {
        Some(c) => {
            out.push(c);
            chars.nth(digits - 1);
        }
        None => out.push_str(written),
    }
}

/// Whether `c` at `i` of `rest` is the sign of an exponent (`1e-5`).
fn exponent_sign(rest: &str, i: usize, c: char) -> bool {
    (c == '-' || c == '+')
        && i > 0
        && rest.as_bytes()[i - 1].eq_ignore_ascii_case(&b'e')
        && !rest[..i].starts_with("0x")
        && !rest[..i].starts_with("0X")
}

/// A Python number literal as JSON's number: decimal, hexadecimal, octal and binary
/// integers and decimal floats, with `_` between digits. What Python would not take
/// (`007`, `1__0`) is no Python; what JSON's numbers here cannot hold (an integer
/// past 64 bits, an imaginary number) is a value that is not read, like an expression.
fn python_number(written: &str) -> Result<Number, Stop> {
    if written.ends_with(['j', 'J']) && python_number(&written[..written.len() - 1]).is_ok() {
        return Err(Stop::Expression);
    }
    if written.starts_with('_') || written.ends_with('_') || written.contains("__") {
        return Err(Stop::Syntax);
    }
    let digits: String = written.chars().filter(|&c| c != '_').collect();
    let radix = match digits.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => 16,
        Some("0o") => 8,
        Some("0b") => 2,
        _ => 10,
    };
    if radix != 10 {
        let body = &digits[2..];
        if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
            return Err(Stop::Syntax);
        }
        return u64::from_str_radix(body, radix).map(Number::from).map_err(|_| Stop::Expression);
    }
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        if digits.len() > 1 && digits.starts_with('0') && digits.bytes().any(|b| b != b'0') {
            return Err(Stop::Syntax);
        }
        return digits.parse::<u64>().map(Number::from).map_err(|_| Stop::Expression);
    }
    let shaped = digits.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && digits.bytes().any(|b| b.is_ascii_digit());
    let float: f64 = digits.parse().ok().filter(|_| shaped).ok_or(Stop::Syntax)?;
    Number::from_f64(float).ok_or(Stop::Expression)
}

/// A dict key as the text of a JSON object's key: a string as it is; an integer, a
/// boolean or `None` as `json.dumps` writes it. Another key has no JSON form.
fn key_text(key: Value) -> Result<String, Stop> {
    match key {
        Value::String(text) => Ok(text),
        Value::Number(n) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok("null".into()),
        _ => Err(Stop::Expression),
    }
}

/// Whether `byte` continues an expression after a value (an operator, a subscript).
fn is_operator(byte: u8) -> bool {
    matches!(byte, b'*' | b'/' | b'%' | b'-' | b'+' | b'@' | b'&' | b'|' | b'^' | b'<' | b'>' | b'=' | b'[' | b'!')
}

/// Where the expression starting at `at` ends: at the first `,` or closing bracket
/// outside its own brackets and strings. `None` when a bracket or string it opens is
/// not closed.
fn expression_end(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => i = string_end(bytes, i)?,
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' if depth == 0 => return Some(trim_end(text, at, i)),
            b')' | b']' | b'}' => {
                depth -= 1;
                i += 1;
            }
            b',' if depth == 0 => return Some(trim_end(text, at, i)),
            _ => i += 1,
        }
    }
    (depth == 0).then(|| trim_end(text, at, i))
}

/// `end`, moved back over the white space before it (not before `at`).
fn trim_end(text: &str, at: usize, end: usize) -> usize {
    at + text[at..end].trim_end().len()
}

/// Just past the string whose quote is at `at` (triple quotes included); escapes
/// are skipped.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let quote = bytes[at];
    let triple = bytes[at..].starts_with(&[quote; 3]);
    let delimiter = if triple { 3 } else { 1 };
    let mut i = at + delimiter;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote && bytes[i..].starts_with(&[quote; 3][..delimiter]) => return Some(i + delimiter),
            b'\n' if !triple => return None,
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Read, value_at};

    fn read(text: &str) -> Option<Read> {
        value_at(text, 0)
    }

    fn value(text: &str) -> serde_json::Value {
        match read(text) {
            Some(Read::Value(value, end)) => {
                assert_eq!(end, text.len(), "{text:?} read to {end}");
                value
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn python_literals_are_read_as_json_carries_them() {
        assert_eq!(value("(40.7, -74.0)"), json!([40.7, -74.0]));
        assert_eq!(value("(5,)"), json!([5]));
        assert_eq!(value("()"), json!([]));
        assert_eq!(value("(5)"), json!(5));
        assert_eq!(value("[True, False, None, true, null]"), json!([true, false, null, true, null]));
        assert_eq!(value("{'a': [1, (2, 3)], \"b\": {'c': 'd'},}"), json!({"a": [1, [2, 3]], "b": {"c": "d"}}));
        assert_eq!(value("{1: 'one', True: 'yes', None: 'no'}"), json!({"1": "one", "true": "yes", "null": "no"}));
        assert_eq!(value("{'x', 'y'}"), json!(["x", "y"]));
        assert_eq!(value("{}"), json!({}));
        assert_eq!(value("-5"), json!(-5));
        assert_eq!(value("- 2.5e-3"), json!(-0.0025));
        assert_eq!(value("+7"), json!(7));
        assert_eq!(value("1_000_000"), json!(1_000_000));
        assert_eq!(value("0x1F"), json!(31));
        assert_eq!(value("0o17"), json!(15));
        assert_eq!(value("0b101"), json!(5));
        assert_eq!(value(".5"), json!(0.5));
        assert_eq!(value("5."), json!(5.0));
        assert_eq!(value("1E3"), json!(1000.0));
        assert_eq!(value("-9223372036854775808"), json!(i64::MIN));
    }

    #[test]
    fn strings_are_read_in_every_quote_with_their_escapes_and_concatenations() {
        assert_eq!(value(r#"'It\'s'"#), json!("It's"));
        assert_eq!(value(r#""say \"hi\"\n""#), json!("say \"hi\"\n"));
        assert_eq!(value(r"r'C:\new\dir'"), json!(r"C:\new\dir"));
        assert_eq!(value("u'caf\\xe9 \\u2603 \\U0001F600'"), json!("café ☃ 😀"));
        assert_eq!(value("'''a\n'b'\nc'''"), json!("a\n'b'\nc"));
        assert_eq!(value("\"\"\"x\"\"\""), json!("x"));
        assert_eq!(value("'con' 'cat' \"ena\" + 'tion'"), json!("concatenation"));
        assert_eq!(value(r"'\d+\.\w'"), json!(r"\d+\.\w"));
        assert_eq!(value(r"'\101\0'"), json!("A\u{0}"));
        assert_eq!(value("f'plain'"), json!("plain"));
    }

    #[test]
    fn an_expression_is_found_whole_and_not_read() {
        for (text, expression) in [
            ("2*pi, x=1)", "2*pi"),
            ("math.sqrt(2), b=3)", "math.sqrt(2)"),
            ("pi)", "pi"),
            ("[1, pi]]", "[1, pi]"),
            ("f'{name}')", "f'{name}'"),
            ("1 + 2)", "1 + 2"),
            ("'a' * 3)", "'a' * 3"),
            ("[x for x in range(3)])", "[x for x in range(3)]"),
            ("b'bytes')", "b'bytes'"),
            ("1j)", "1j"),
            ("{'a': 1, 'a': 2})", "{'a': 1, 'a': 2}"),
            ("lambda x: x)", "lambda x: x"),
            ("data['key'])", "data['key']"),
            ("'s'.upper())", "'s'.upper()"),
        ] {
            assert_eq!(read(text), Some(Read::Expression(expression.len())), "{text}");
        }
    }

    #[test]
    fn text_that_is_not_python_is_no_value_and_no_expression() {
        for text in ["'open", "[1, 2", "007", "1__0", "'line\nbreak'", "", "?", "(1, 2"] {
            assert_eq!(read(text), None, "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_read_or_refused_without_a_panic(text in "[-+(){}\\[\\]'\"\\\\:,._a-zA-Z0-9 \\n\u{e9}]{0,40}") {
            let _ = value_at(&text, 0);
        }
    }
}
