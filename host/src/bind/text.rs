//! Arguments as a model wrote them: JSON text parsed strictly, and only when that
//! fails, repaired conservatively (code fences, trailing commas, single quotes,
//! unquoted keys, missing closing brackets), with the repair logged.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

/// Why argument text could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ArgumentsError {
    /// The text is not JSON, even after repair; says where strict parsing failed.
    NotJson(String),
    /// The top-level object names a key twice.
    DuplicateKey(String),
}

/// Parses a model's argument text into a JSON value.
#[cfg(test)]
pub(crate) fn parse(text: &str) -> Result<Value, ArgumentsError> {
    parse_repaired(text).map(|(value, _repair)| value)
}

/// [`parse`], also saying which repair made the text readable, if one was needed.
pub(crate) fn parse_repaired(text: &str) -> Result<(Value, Option<&'static str>), ArgumentsError> {
    let strict_error = match serde_json::from_str::<Value>(text) {
        Ok(value) => return check_duplicates(text, value).map(|value| (value, None)),
        Err(error) => error,
    };
    let unfenced = strip_code_fence(text);
    let attempts: [(&str, Option<String>); 3] = [
        ("a code fence removed", Some(unfenced.to_string()).filter(|u| u != text)),
        ("relaxed (JSON5) syntax read", Some(unfenced.to_string())),
        ("missing closing brackets added", close_brackets(unfenced)),
    ];
    for (repair, candidate) in attempts {
        let Some(candidate) = candidate else { continue };
        let parsed = serde_json::from_str::<Value>(&candidate).or_else(|_| json5::from_str::<Value>(&candidate));
        if let Ok(value) = parsed {
            tracing::debug!("repaired argument text ({repair}): {text:?}");
            return check_duplicates(&candidate, value).map(|value| (value, Some(repair)));
        }
    }
    Err(ArgumentsError::NotJson(describe(text, &strict_error)))
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

/// The text with the brackets still open at its end closed, or `None` if none are open.
fn close_brackets(text: &str) -> Option<String> {
    let mut open = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '{' => open.push('}'),
            '[' => open.push(']'),
            '}' | ']' => {
                open.pop();
            }
            _ => {}
        }
    }
    if open.is_empty() || quote.is_some() {
        return None;
    }
    let mut closed = text.trim_end().trim_end_matches(',').to_string();
    closed.extend(open.iter().rev());
    Some(closed)
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
    let mut strict = serde_json::Deserializer::from_str(text);
    if let Ok(found) = (&mut strict).deserialize_map(Keys) {
        return found;
    }
    let mut relaxed = json5::Deserializer::from_str(text);
    de::Deserializer::deserialize_map(&mut relaxed, Keys).ok().flatten()
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

    #[test]
    fn a_repeated_key_is_reported() {
        assert_eq!(parse(r#"{"query": "a", "query": "b"}"#), Err(ArgumentsError::DuplicateKey("query".into())));
        assert_eq!(parse("{query: 'a', query: 'b'}"), Err(ArgumentsError::DuplicateKey("query".into())));
    }
}
