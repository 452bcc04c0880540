//! Arguments as a model wrote them: JSON text parsed strictly, and only when that
//! fails, read leniently (`lenient.rs`: the slips that have one reading), after a
//! code fence is taken off and escaped quotes are read as quotes; empty text is no
//! arguments, and a JSON string holding the object is that object. What was done is
//! said, and logged.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use super::lenient::{self, Refusal};

/// Why argument text could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ArgumentsError {
    /// The text is not JSON, even after repair; says where strict parsing failed.
    NotJson(String),
    /// An object names a key twice.
    DuplicateKey(String),
}

/// Parses a model's argument text into a JSON value.
#[cfg(test)]
pub(crate) fn parse(text: &str) -> Result<Value, ArgumentsError> {
    parse_repaired(text).map(|(value, _repair)| value)
}

/// [`parse`], also saying what made the text readable, if anything had to.
pub(crate) fn parse_repaired(text: &str) -> Result<(Value, Option<String>), ArgumentsError> {
    let strict_error = match serde_json::from_str::<Value>(text) {
        Ok(Value::String(inner)) if inner.trim_start().starts_with('{') => {
            return match parse_repaired(&inner) {
                Ok((object @ Value::Object(_), how)) => {
                    let said = "the object was written as a JSON string";
                    Ok((object, Some(how.map_or(said.to_string(), |how| format!("{said}, {how}")))))
                }
                _ => Ok((Value::String(inner), None)),
            };
        }
        Ok(value) => return check_duplicates(text, value).map(|value| (value, None)),
        Err(error) => error,
    };
    if text.trim().is_empty() {
        return Ok((Value::Object(serde_json::Map::new()), Some("empty text read as no arguments".into())));
    }
    let mut did = Vec::new();
    let unfenced = strip_code_fence(text);
    if unfenced != text {
        did.push("a code fence removed");
    }
    let unescaped = unescape_quotes(unfenced);
    if unescaped.is_some() {
        did.push("escaped quotes read as quotes");
    }
    let candidate = unescaped.as_deref().unwrap_or(unfenced);
    let read = match serde_json::from_str::<Value>(candidate) {
        Ok(value) => check_duplicates(candidate, value).map(|value| (value, Vec::new())),
        Err(_) => lenient::read(candidate).map_err(|refusal| match refusal {
            Refusal::DuplicateKey(key) => ArgumentsError::DuplicateKey(key),
            Refusal::Unreadable(why) => {
                tracing::debug!("argument text not read ({why}): {text:?}");
                ArgumentsError::NotJson(describe(text, &strict_error))
            }
        }),
    };
    let (value, more) = read?;
    did.extend(more);
    let how = did.join(", ");
    tracing::debug!("repaired argument text ({how}): {text:?}");
    Ok((value, Some(how)))
}

/// Says where strict parsing failed, quoting the text around that place.
fn describe(text: &str, error: &serde_json::Error) -> String {
    let line = text.lines().nth(error.line().saturating_sub(1)).unwrap_or("");
    let column = error.column().saturating_sub(1);
    let start = line.char_indices().map(|(i, _)| i).find(|&i| i + 20 >= column).unwrap_or(0);
    let near: String = line[start..].chars().take(40).collect();
    format!("{error}, near `{near}`")
}

/// The text inside a Markdown code fence (```json … ```), or the text itself.
fn strip_code_fence(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(body) = trimmed.strip_prefix("```") else { return text };
    let body = body.split_once('\n').map_or("", |(_language, rest)| rest);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

/// `{\"city\": \"Oslo\"}` (an object copied out of a JSON string, escapes and
/// all) as the object's own text; `None` for any other text.
fn unescape_quotes(text: &str) -> Option<String> {
    let trimmed = text.trim();
    if !(trimmed.starts_with("{\\\"") || trimmed.starts_with("[{\\\"")) {
        return None;
    }
    serde_json::from_str(&format!("\"{trimmed}\"")).ok()
}

fn check_duplicates(text: &str, value: Value) -> Result<Value, ArgumentsError> {
    if value.is_object()
        && let Some(key) = duplicate_top_level_key(text)
    {
        return Err(ArgumentsError::DuplicateKey(key));
    }
    Ok(value)
}

/// The first key the top-level object repeats (`serde_json` would keep only the last).
fn duplicate_top_level_key(text: &str) -> Option<String> {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
            let mut seen = std::collections::HashSet::new();
            let mut duplicate = None;
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                if !seen.insert(key.clone()) && duplicate.is_none() {
                    duplicate = Some(key);
                }
            }
            Ok(duplicate)
        }
    }
    serde_json::Deserializer::from_str(text).deserialize_map(Keys).ok().flatten()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strict_json_is_taken_as_is() {
        assert_eq!(parse(r#"{"query": "a"}"#), Ok(json!({"query": "a"})));
    }

    #[test]
    fn conservative_repairs() {
        let want = json!({"query": "orbits", "limit": 5});
        for text in [
            "```json\n{\"query\": \"orbits\", \"limit\": 5}\n```",
            "{\"query\": \"orbits\", \"limit\": 5,}",
            "{'query': 'orbits', 'limit': 5}",
            "{query: \"orbits\", limit: 5}",
            "{\"query\": \"orbits\", \"limit\": 5",
            "```\n{query: 'orbits', limit: 5,\n```",
        ] {
            assert_eq!(parse(text), Ok(want.clone()), "{text}");
        }
    }

    #[test]
    fn unrepairable_text_says_where_parsing_failed() {
        assert_eq!(
            parse(r#"{"query": orbits}"#),
            Err(ArgumentsError::NotJson("expected value at line 1 column 11, near `{\"query\": orbits}`".into()))
        );
    }

    /// Every case of the corpus read as meant (README "What the host repairs";
    /// `bench/json_repair_compare.py` runs the same corpus through json_repair and
    /// jsonrepair).
    #[test]
    fn json_repair_corpus() {
        let corpus: Vec<Value> =
            serde_json::from_str(include_str!("../../testdata/json_repair_corpus.json")).expect("the corpus is JSON");
        let mut wrong = Vec::new();
        for case in &corpus {
            let text = case["text"].as_str().expect("a text");
            let got = parse_repaired(text);
            let right = match case.get("want") {
                Some(want) => got.as_ref().is_ok_and(|(value, _)| value == want),
                None => got.is_err(),
            };
            if !right {
                wrong.push(format!("{}: {text:?} -> {got:?}", case["group"]));
            }
        }
        assert!(corpus.len() >= 60, "the corpus has {} cases", corpus.len());
        assert!(wrong.is_empty(), "{} of {} read wrongly:\n{}", wrong.len(), corpus.len(), wrong.join("\n"));
    }

    #[test]
    fn what_was_repaired_is_said_once_each() {
        let (value, how) = parse_repaired("```json\n{'a': True, 'b': None,}\n```").expect("read");
        assert_eq!(value, json!({"a": true, "b": null}));
        assert_eq!(
            how.as_deref(),
            Some(
                "a code fence removed, single quotes read, Python's True, False and None read, a trailing comma removed"
            )
        );
        assert_eq!(parse_repaired(r#"{"a": 1}"#), Ok((json!({"a": 1}), None)));
    }

    proptest::proptest! {
        #[test]
        fn valid_json_is_read_as_it_is(value in crate::tool::arbitrary::any_json()) {
            let text = value.to_string();
            if !value.is_string() {
                proptest::prop_assert_eq!(parse(&text), Ok(value));
            }
        }

        #[test]
        fn any_text_is_read_or_refused_without_panicking(text in "\\PC{0,80}", bytes in "[{}\\[\\]\"':,a-z0-9 \\\\]{0,40}") {
            let _ = parse(&text);
            let _ = parse(&bytes);
        }
    }

    #[test]
    fn a_repeated_key_is_reported() {
        assert_eq!(parse(r#"{"query": "a", "query": "b"}"#), Err(ArgumentsError::DuplicateKey("query".into())));
        assert_eq!(parse("{query: 'a', query: 'b'}"), Err(ArgumentsError::DuplicateKey("query".into())));
    }
}
