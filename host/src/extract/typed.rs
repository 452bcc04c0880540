//! Values a dialect writes as text whatever their type (`<parameter=n>5</parameter>`,
//! `<arg_value>[1, 2]</arg_value>`), read as their parameters' declared types: a
//! parameter that takes text keeps the text as written; any other gets the JSON the
//! text holds (`[1, 2]`, `{"a": 1}`, `5`, `true`), when it holds JSON, which binding
//! then checks as it checks any value. Text that holds no JSON stays text. Values
//! written as nested tags (MiniMax M3) are read field by field, and an element
//! wrapping a list's items (`<values><item>1</item></values>`) as the list.

use serde_json::{Map, Value};

use crate::tool::names::match_name;

/// `arguments` with each text value read as its parameter in `schema` (the tool's
/// arguments schema) declares.
pub(super) fn values_as_declared(arguments: Value, schema: &Value) -> Value {
    value_as_declared(arguments, schema, 0)
}

/// `value` read as `schema` declares: text as the JSON it holds where text is not
/// declared; an object's fields and a list's items each as theirs; an element that
/// wraps a list's items (MiniMax M3's `<items><item>…</item></items>`, read as
/// `{"item": […]}`) as the list.
fn value_as_declared(value: Value, schema: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return value;
    }
    match value {
        Value::String(text) if !takes_text(schema) => serde_json::from_str(text.trim()).unwrap_or(Value::String(text)),
        Value::Object(given) if declares(schema, "array") && given.len() == 1 => {
            let items = match given.into_iter().next().map(|(_, inner)| inner) {
                Some(Value::Array(items)) => items,
                inner => inner.into_iter().collect(),
            };
            value_as_declared(Value::Array(items), schema, depth + 1)
        }
        Value::Object(given) => Value::Object(fields_as_declared(given, schema, depth)),
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            Value::Array(items.into_iter().map(|item| value_as_declared(item, item_schema, depth + 1)).collect())
        }
        other => other,
    }
}

/// Each field of an object as the property it matches declares (by name as tools'
/// parameters are matched); fields matching none are left as they are.
fn fields_as_declared(given: Map<String, Value>, schema: &Value, depth: usize) -> Map<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let names: Vec<&str> = properties.into_iter().flat_map(|p| p.keys().map(String::as_str)).collect();
    let declared = |key: &str| {
        let index = match_name(names.iter().copied(), key).one()?;
        properties?.get(names[index])
    };
    given
        .into_iter()
        .map(|(key, value)| {
            let value = match declared(&key) {
                Some(schema) => value_as_declared(value, schema, depth + 1),
                None => value,
            };
            (key, value)
        })
        .collect()
}

/// How deep nested values are read as declared.
const MAX_DEPTH: usize = 32;

/// Whether a schema declares the JSON type `ty` (alone or among others).
fn declares(schema: &Value, ty: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(declared)) => declared == ty,
        Some(Value::Array(types)) => types.iter().any(|declared| declared == ty),
        _ => false,
    }
}

/// Whether a parameter's schema takes a string (or says nothing of its type, so the
/// text is left for binding to judge).
fn takes_text(schema: &Value) -> bool {
    let Some(keywords) = schema.as_object() else { return true };
    let branches = keywords.get("anyOf").or_else(|| keywords.get("oneOf")).and_then(Value::as_array);
    if let Some(branches) = branches {
        return branches.iter().any(takes_text);
    }
    let options = keywords
        .get("enum")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .or(keywords.get("const").map(std::slice::from_ref));
    if let Some(options) = options {
        return options.iter().any(Value::is_string);
    }
    match keywords.get("type") {
        Some(Value::String(_) | Value::Array(_)) => declares(schema, "string"),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::values_as_declared;

    #[test]
    fn text_is_read_as_the_declared_type_and_kept_where_text_is_declared() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "filter": {"anyOf": [{"type": "object"}, {"type": "null"}]},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "any": {},
        }});
        let written = json!({
            "name": "[1]", "count": " 5 ", "tags": "[\"a\", \"b\"]", "Filter": "{\"k\": 1}",
            "unit": "c", "any": "7", "extra": "8", "more_tags": "news",
        });
        let want = json!({
            "name": "[1]", "count": 5, "tags": ["a", "b"], "Filter": {"k": 1},
            "unit": "c", "any": "7", "extra": "8", "more_tags": "news",
        });
        assert_eq!(values_as_declared(written, &schema), want);
        let lone = values_as_declared(json!({"tags": "news"}), &schema);
        assert_eq!(lone, json!({"tags": "news"}), "text holding no JSON stays text");
    }

    #[test]
    fn nested_text_is_read_as_declared_and_a_wrapping_element_as_its_list() {
        let schema = json!({"type": "object", "properties": {
            "shipping": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}},
            "items": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}}},
            "values": {"type": "array", "items": {"type": "number"}},
            "meta": {"type": "object"},
        }});
        let written = json!({
            "shipping": {"city": "12", "zip": "4000"},
            "items": {"item": [{"qty": "2"}, {"qty": "5"}]},
            "values": {"item": "7"},
            "meta": {"tag": ["a", "b"]},
        });
        let want = json!({
            "shipping": {"city": "12", "zip": 4000},
            "items": [{"qty": 2}, {"qty": 5}],
            "values": [7],
            "meta": {"tag": ["a", "b"]},
        });
        assert_eq!(values_as_declared(written, &schema), want);
    }
}
