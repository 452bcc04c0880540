//! Values a dialect writes as text whatever their type (`<parameter=n>5</parameter>`,
//! `<arg_value>[1, 2]</arg_value>`), read as their parameters' declared types: a
//! parameter that takes text keeps the text as written; any other gets the JSON the
//! text holds (`[1, 2]`, `{"a": 1}`, `5`, `true`), when it holds JSON, which binding
//! then checks as it checks any value. Text that holds no JSON stays text.

use serde_json::{Map, Value};

use crate::tool::names::match_name;

/// `arguments` with each text value read as its parameter in `schema` (the tool's
/// arguments schema) declares.
pub(super) fn values_as_declared(arguments: Value, schema: &Value) -> Value {
    let Value::Object(given) = arguments else { return arguments };
    let properties = schema.get("properties").and_then(Value::as_object);
    let names: Vec<&str> = properties.into_iter().flat_map(|p| p.keys().map(String::as_str)).collect();
    let declared = |key: &str| {
        let index = match_name(names.iter().copied(), key).one()?;
        properties?.get(names[index])
    };
    let typed: Map<String, Value> = given
        .into_iter()
        .map(|(key, value)| {
            let value = match (value, declared(&key)) {
                (Value::String(text), Some(schema)) if !takes_text(schema) => {
                    serde_json::from_str(text.trim()).unwrap_or(Value::String(text))
                }
                (value, _) => value,
            };
            (key, value)
        })
        .collect();
    Value::Object(typed)
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
        Some(Value::String(ty)) => ty == "string",
        Some(Value::Array(types)) => types.iter().any(|ty| ty == "string"),
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
}
