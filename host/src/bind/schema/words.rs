//! A schema's refusal in the words used for WIT tools: where the value is
//! (`filters[2].name`), what the schema wants there (`an integer between 1 and 10`,
//! `one of ['celsius', 'fahrenheit']`), and what came.

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::{Location, LocationSegment};
use serde_json::{Map, Value};

use super::super::wording::shorten;
use super::repair::{local_ref as follow, types as declared_types};
use crate::tool::names::python_list;

/// How deep `$ref`s and nesting are followed when describing a schema.
const MAX_DEPTH: usize = 8;

/// One value that does not fit: where, what was expected, what came.
pub(super) struct Misfit {
    pub(super) path: String,
    pub(super) expected: String,
    pub(super) got: String,
}

impl Misfit {
    /// The misfit a validation error reports, against the schema `root`.
    pub(super) fn of(root: &Value, error: &ValidationError<'_>) -> Misfit {
        let path = value_path(error.instance_path());
        let at = schema_at(root, error.schema_path(), !matches!(error.kind(), ValidationErrorKind::FalseSchema));
        let expected = |schema: Option<&Value>| {
            schema.map(|s| describe(root, s, 0)).unwrap_or_else(|| format!("different ({})", error.masked()))
        };
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                let field = at.and_then(|s| s.get("properties")).and_then(|p| p.get(name));
                Misfit {
                    path: joined(&path, name),
                    expected: expected(field),
                    got: "nothing (the field is required)".into(),
                }
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                let key = unexpected.first().map(String::as_str).unwrap_or_default();
                let fields = at.and_then(|s| s.get("properties")).and_then(Value::as_object);
                let names: Vec<&str> = fields.into_iter().flat_map(|f| f.keys().map(String::as_str)).collect();
                Misfit {
                    path: joined(&path, key),
                    expected: format!("not present: the fields are {}", python_list(&names)),
                    got: error.instance().get(key).map_or_else(String::new, shorten),
                }
            }
            _ => Misfit { path: path_or_whole(path), expected: expected(at), got: shorten(error.instance()) },
        }
    }
}

/// `items[2].name` from the pointer `/items/2/name`.
fn value_path(location: &Location) -> String {
    let mut path = String::new();
    for segment in location.iter() {
        match segment {
            LocationSegment::Property(name) => path = joined(&path, &name),
            LocationSegment::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

fn joined(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_string() } else { format!("{path}.{name}") }
}

/// The arguments as a whole, when the misfit is not inside them.
fn path_or_whole(path: String) -> String {
    if path.is_empty() { "arguments".into() } else { path }
}

/// The subschema an error's schema path leads to, `$ref`s followed; without its last
/// segment (the keyword that refused) when `keyword_last`.
fn schema_at<'s>(root: &'s Value, location: &Location, keyword_last: bool) -> Option<&'s Value> {
    let segments: Vec<LocationSegment<'_>> = location.iter().collect();
    let segments = if keyword_last { &segments[..segments.len().saturating_sub(1)] } else { &segments[..] };
    let mut at = root;
    for segment in segments {
        at = match segment {
            LocationSegment::Property(name) if name == "$ref" => follow(root, at.as_object()?)?,
            LocationSegment::Property(name) => at.get(name.as_ref())?,
            LocationSegment::Index(index) => at.get(*index)?,
        };
    }
    Some(at)
}

/// What a schema wants, in a few words: `a string of at most 80 characters`.
fn describe(root: &Value, schema: &Value, depth: usize) -> String {
    let Some(keywords) = schema.as_object() else {
        return if schema == &Value::Bool(false) {
            "absent (nothing is allowed here)".into()
        } else {
            "anything".into()
        };
    };
    if depth >= MAX_DEPTH {
        return "a value its schema allows".into();
    }
    if let Some(target) = follow(root, keywords) {
        return describe(root, target, depth + 1);
    }
    if let Some(options) = keywords.get("enum").and_then(Value::as_array) {
        return format!("one of {}", value_list(options));
    }
    if let Some(value) = keywords.get("const") {
        return format!("exactly {}", shorten(value));
    }
    let branches = keywords.get("anyOf").or_else(|| keywords.get("oneOf")).and_then(Value::as_array);
    if let Some(branches) = branches {
        let mut words: Vec<String> = Vec::new();
        for branch in branches.iter().map(|b| describe(root, b, depth + 1)) {
            if !words.contains(&branch) {
                words.push(branch);
            }
        }
        return words.join(" or ");
    }
    match types(keywords).as_slice() {
        [] => "a value its schema allows".into(),
        types => types.iter().map(|ty| typed(root, ty, keywords, depth)).collect::<Vec<_>>().join(" or "),
    }
}

/// The schema's `type`s (`nullable: true` adds null), else the one its keywords imply.
fn types(keywords: &Map<String, Value>) -> Vec<&str> {
    if let Some(declared) = declared_types(keywords) {
        return declared;
    }
    let mut implied = match () {
        _ if keywords.contains_key("properties") => vec!["object"],
        _ if keywords.contains_key("items") || keywords.contains_key("prefixItems") => vec!["array"],
        _ => Vec::new(),
    };
    if keywords.get("nullable") == Some(&Value::Bool(true)) {
        implied.push("null");
    }
    implied
}

/// One JSON type, with the bounds the schema sets on it.
fn typed(root: &Value, ty: &str, keywords: &Map<String, Value>, depth: usize) -> String {
    match ty {
        "integer" => format!("an integer{}", bounds(keywords)),
        "number" => format!("a number{}", bounds(keywords)),
        "string" => format!("a string{}{}", counted(keywords, "Length", "characters"), pattern(keywords)),
        "boolean" => "a boolean (true or false)".into(),
        "null" => "null".into(),
        "array" => {
            let items = keywords.get("items").filter(|items| items.is_object());
            let each = items.map(|items| format!(" whose items are each {}", describe(root, items, depth + 1)));
            format!("an array{}{}", counted(keywords, "Items", "items"), each.unwrap_or_default())
        }
        "object" => match keywords.get("properties").and_then(Value::as_object) {
            Some(fields) if !fields.is_empty() => {
                let names: Vec<&str> = fields.keys().map(String::as_str).collect();
                format!("an object with the fields {}", python_list(&names))
            }
            _ => "an object".into(),
        },
        other => format!("a value of type '{other}'"),
    }
}

/// ` between 1 and 10`, ` of at least 0`, ` greater than 0`, or nothing.
fn bounds(keywords: &Map<String, Value>) -> String {
    let low = bound(keywords, "minimum", "exclusiveMinimum");
    let high = bound(keywords, "maximum", "exclusiveMaximum");
    if let (Some((lo, false)), Some((hi, false))) = (&low, &high) {
        return format!(" between {lo} and {hi}");
    }
    let low =
        low.map(|(lo, exclusive)| if exclusive { format!("greater than {lo}") } else { format!("of at least {lo}") });
    let high =
        high.map(|(hi, exclusive)| if exclusive { format!("less than {hi}") } else { format!("of at most {hi}") });
    let parts: Vec<String> = low.into_iter().chain(high).collect();
    if parts.is_empty() { String::new() } else { format!(" {}", parts.join(" and ")) }
}

/// A bound and whether it is exclusive: `exclusiveMinimum: 0` (draft 6 on), or
/// `minimum: 0` with `exclusiveMinimum: true` (draft 4), or `minimum: 0`.
fn bound(keywords: &Map<String, Value>, inclusive: &str, exclusive: &str) -> Option<(String, bool)> {
    let number = |name: &str| keywords.get(name).filter(|v| v.is_number()).map(Value::to_string);
    let draft4_exclusive = keywords.get(exclusive) == Some(&Value::Bool(true));
    number(exclusive).map(|n| (n, true)).or_else(|| number(inclusive).map(|n| (n, draft4_exclusive)))
}

/// ` of at most 80 characters` from `minLength`/`maxLength` (or `…Items`).
fn counted(keywords: &Map<String, Value>, suffix: &str, unit: &str) -> String {
    let count = |prefix: &str| keywords.get(&format!("{prefix}{suffix}")).and_then(Value::as_u64);
    match (count("min"), count("max")) {
        (Some(lo), Some(hi)) if lo == hi => format!(" of exactly {lo} {unit}"),
        (Some(lo), Some(hi)) => format!(" of {lo} to {hi} {unit}"),
        (Some(lo), None) => format!(" of at least {lo} {unit}"),
        (None, Some(hi)) => format!(" of at most {hi} {unit}"),
        (None, None) => String::new(),
    }
}

fn pattern(keywords: &Map<String, Value>) -> String {
    keywords.get("pattern").and_then(Value::as_str).map(|p| format!(" matching the pattern {p}")).unwrap_or_default()
}

/// `['celsius', 'fahrenheit']` for strings; any other values as a JSON array.
fn value_list(values: &[Value]) -> String {
    let strings: Option<Vec<&str>> = values.iter().map(Value::as_str).collect();
    strings.map_or_else(|| shorten(&Value::Array(values.to_vec())), |names| python_list(&names))
}
