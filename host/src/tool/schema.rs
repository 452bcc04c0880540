//! JSON Schema (draft 2020-12) for a tool's parameters and for each WIT type, in
//! exactly the JSON shapes the binder (`bind/`) accepts and `invoke/` returns.

use serde_json::{Map, Value, json};

use super::names::{snake_case, snake_names};
use super::types::{Case, Field, WitType};

/// The schema of an object with exactly these properties, each (name, type,
/// description): `option<T>` properties may be left out, no others are allowed.
pub(crate) fn object_schema<'a>(
    properties: impl IntoIterator<Item = (&'a str, &'a WitType, Option<&'a str>)>,
) -> Value {
    let mut schemas = Map::new();
    let mut required = Vec::new();
    for (name, ty, description) in properties {
        let mut schema = type_schema(ty);
        if let (Some(description), Value::Object(object)) = (description, &mut schema) {
            object.insert("description".into(), json!(description));
        }
        if !matches!(ty, WitType::Option(_)) {
            required.push(name);
        }
        schemas.insert(name.to_string(), schema);
    }
    closed_object(schemas, &required)
}

/// The JSON Schema of one WIT type.
pub(crate) fn type_schema(ty: &WitType) -> Value {
    match ty {
        WitType::Bool => json!({ "type": "boolean" }),
        WitType::F32 => json!({ "type": "number", "minimum": -f64::from(f32::MAX), "maximum": f64::from(f32::MAX) }),
        WitType::F64 => json!({ "type": "number" }),
        WitType::Char => json!({ "type": "string", "minLength": 1, "maxLength": 1 }),
        WitType::String => json!({ "type": "string" }),
        WitType::List(item) => json!({ "type": "array", "items": type_schema(item) }),
        WitType::Option(inner) => json!({ "anyOf": [type_schema(inner), { "type": "null" }] }),
        WitType::Result { ok, err } => result_schema(ok.as_deref(), err.as_deref()),
        WitType::Record(fields) => record_schema(fields),
        WitType::Tuple(types) => json!({
            "type": "array",
            "prefixItems": types.iter().map(type_schema).collect::<Vec<_>>(),
            "items": false,
            "minItems": types.len(),
            "maxItems": types.len(),
        }),
        WitType::Enum(names) => json!({ "type": "string", "enum": snake_names(names) }),
        WitType::Flags(names) => json!({
            "type": "array",
            "items": { "type": "string", "enum": snake_names(names) },
            "uniqueItems": true,
        }),
        WitType::Variant(cases) => json!({ "oneOf": cases.iter().map(case_schema).collect::<Vec<_>>() }),
        WitType::Unsupported(what) => json!({ "not": {}, "description": format!("a {what} cannot be sent") }),
        integer => integer_schema(integer),
    }
}

/// The top-level properties of an arguments schema that are required
/// (`required: true`), or those that are not, each in the schema's order.
pub(crate) fn schema_params(schema: &Value, required: bool) -> Vec<&str> {
    let listed: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let properties = schema.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.keys());
    properties.map(String::as_str).filter(|name| listed.contains(name) == required).collect()
}

/// An object with exactly `properties`, of which `required` must be present.
fn closed_object(properties: Map<String, Value>, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// `{"ok": v}` or `{"err": e}`; an empty side is `null`.
fn result_schema(ok: Option<&WitType>, err: Option<&WitType>) -> Value {
    let side = |key: &str, ty: Option<&WitType>| {
        let payload = ty.map_or(json!({ "type": "null" }), type_schema);
        closed_object(Map::from_iter([(key.to_string(), payload)]), &[key])
    };
    json!({ "oneOf": [side("ok", ok), side("err", err)] })
}

/// An object with the record's fields in snake_case; `option<T>` fields may be left out.
fn record_schema(fields: &[Field]) -> Value {
    let names: Vec<String> = fields.iter().map(|f| snake_case(&f.name)).collect();
    object_schema(names.iter().zip(fields).map(|(name, field)| (name.as_str(), &field.ty, None)))
}

/// One case of a variant: `{"tag": case}` or `{"tag": case, "value": payload}`.
fn case_schema(case: &Case) -> Value {
    let mut properties = Map::from_iter([("tag".to_string(), json!({ "const": snake_case(&case.name) }))]);
    match &case.ty {
        Some(payload) => {
            properties.insert("value".into(), type_schema(payload));
            closed_object(properties, &["tag", "value"])
        }
        None => closed_object(properties, &["tag"]),
    }
}

/// An integer between the type's bounds.
fn integer_schema(integer: &WitType) -> Value {
    let (lo, hi) = integer.integer_range().expect("type_schema passes only integer types here");
    json!({ "type": "integer", "minimum": json_integer(lo), "maximum": json_integer(hi) })
}

fn json_integer(n: i128) -> Value {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(signed), _) => json!(signed),
        (_, Ok(unsigned)) => json!(unsigned),
        _ => json!(n as f64),
    }
}

/// A JSON value's kind, with its article: `an array`.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::type_schema;
    use crate::tool::arbitrary::{typed_value, wit_type};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_schema_accepts_every_canonical_value((ty, value) in typed_value()) {
            let schema = type_schema(&ty);
            prop_assert!(jsonschema::draft202012::is_valid(&schema, &value), "schema {schema} rejects {value} for {ty}");
        }

        #[test]
        fn every_schema_is_valid_json_schema(ty in wit_type()) {
            let schema = type_schema(&ty);
            prop_assert!(jsonschema::meta::is_valid(&schema), "{schema} is not a valid schema");
        }
    }
}
