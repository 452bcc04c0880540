//! The `json-query` example tool: looks values up in a JSON document by path.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

use serde_json::Value;

toolhost_guest::generate!({ world: "json-query" });

struct JsonQuery;

impl Guest for JsonQuery {
    fn query(document: String, path: String) -> Result<JsonValue, String> {
        let document = parse(&document)?;
        Ok(to_json_value(lookup(&document, &path)?))
    }

    fn keys(document: String, path: String) -> Result<Vec<String>, String> {
        let document = parse(&document)?;
        match lookup(&document, &path)? {
            Value::Object(map) => Ok(map.keys().cloned().collect()),
            other => Err(format!("the value at '{path}' is {}, not an object", kind(other))),
        }
    }

    fn length(document: String, path: String) -> Result<u32, String> {
        let document = parse(&document)?;
        match lookup(&document, &path)? {
            Value::Array(items) => Ok(items.len() as u32),
            Value::Object(map) => Ok(map.len() as u32),
            other => Err(format!("the value at '{path}' is {}, not an array or object", kind(other))),
        }
    }
}

fn parse(document: &str) -> Result<Value, String> {
    serde_json::from_str(document).map_err(|e| format!("the document is not valid JSON: {e}"))
}

/// One step of a path: an object key or an array index.
enum Step {
    Key(String),
    Index(usize),
}

/// Splits a dotted path (`a.b[0].c`) or a JSON pointer (`/a/b/0/c`) into steps.
fn steps(path: &str) -> Result<Vec<Step>, String> {
    if let Some(pointer) = path.strip_prefix('/') {
        return Ok(pointer.split('/').map(|token| Step::Key(token.replace("~1", "/").replace("~0", "~"))).collect());
    }
    let mut steps = Vec::new();
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        let (key, mut rest) = segment.split_once('[').map_or((segment, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            steps.push(Step::Key(key.to_string()));
        }
        while !rest.is_empty() {
            let (index, after) = rest.split_once(']').ok_or_else(|| format!("unclosed '[' in path '{path}'"))?;
            let index = index.parse().map_err(|_| format!("'{index}' in path '{path}' is not an array index"))?;
            steps.push(Step::Index(index));
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    Ok(steps)
}

fn lookup<'a>(document: &'a Value, path: &str) -> Result<&'a Value, String> {
    let mut current = document;
    let mut walked = String::new();
    for step in steps(path)? {
        let next = match (&step, current) {
            (Step::Key(key), Value::Object(map)) => map.get(key),
            (Step::Key(key), Value::Array(items)) => key.parse().ok().and_then(|i: usize| items.get(i)),
            (Step::Index(i), Value::Array(items)) => items.get(*i),
            _ => None,
        };
        let shown = match &step {
            Step::Key(key) => format!(".{key}"),
            Step::Index(i) => format!("[{i}]"),
        };
        current = next.ok_or_else(|| {
            format!("nothing at '{shown}' after '{}': the value there is {}", root(&walked), kind(current))
        })?;
        walked.push_str(&shown);
    }
    Ok(current)
}

fn root(walked: &str) -> &str {
    if walked.is_empty() { "(the document)" } else { walked.trim_start_matches('.') }
}

fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(_) => "a string".into(),
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(map) => format!("an object with {} keys", map.len()),
    }
}

fn to_json_value(value: &Value) -> JsonValue {
    match value {
        Value::Null => JsonValue::Null,
        Value::Bool(b) => JsonValue::Boolean(*b),
        Value::Number(n) => {
            n.as_i64().map_or_else(|| JsonValue::Number(n.as_f64().unwrap_or(f64::NAN)), JsonValue::Integer)
        }
        Value::String(s) => JsonValue::Text(s.clone()),
        Value::Array(_) => JsonValue::Array(value.to_string()),
        Value::Object(_) => JsonValue::Object(value.to_string()),
    }
}

export!(JsonQuery);
