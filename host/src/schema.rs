//! JSON Schema (draft 2020-12) for a tool's parameters, in exactly the JSON shapes
//! the binder ([`crate::bind`]) accepts.

use serde_json::{Map, Value, json};

use crate::names::snake_case;
use crate::spec::ToolSpec;
use crate::types::WitType;

impl ToolSpec {
    /// The JSON Schema of the tool's arguments object: one property per parameter,
    /// `option<T>` parameters not required, no other properties allowed.
    pub fn parameters_schema(&self) -> Value {
        let mut properties = Map::new();
        for param in &self.params {
            let mut schema = type_schema(&param.ty);
            if let (Some(description), Value::Object(object)) = (&param.description, &mut schema) {
                object.insert("description".into(), json!(description));
            }
            properties.insert(param.name.clone(), schema);
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": self.required_params(),
            "additionalProperties": false,
        })
    }
}

/// The JSON Schema of one WIT type.
pub fn type_schema(ty: &WitType) -> Value {
    match ty {
        WitType::Bool => json!({ "type": "boolean" }),
        WitType::F32 => json!({ "type": "number", "minimum": -f64::from(f32::MAX), "maximum": f64::from(f32::MAX) }),
        WitType::F64 => json!({ "type": "number" }),
        WitType::Char => json!({ "type": "string", "minLength": 1, "maxLength": 1 }),
        WitType::String => json!({ "type": "string" }),
        WitType::List(item) => json!({ "type": "array", "items": type_schema(item) }),
        WitType::Option(inner) => json!({ "anyOf": [type_schema(inner), { "type": "null" }] }),
        WitType::Result { ok, err } => {
            let side = |key: &str, t: &Option<Box<WitType>>| {
                let payload = t.as_deref().map_or(json!({ "type": "null" }), type_schema);
                json!({
                    "type": "object",
                    "properties": { key: payload },
                    "required": [key],
                    "additionalProperties": false,
                })
            };
            json!({ "oneOf": [side("ok", ok), side("err", err)] })
        }
        WitType::Record(fields) => {
            let properties: Map<String, Value> =
                fields.iter().map(|f| (snake_case(&f.name), type_schema(&f.ty))).collect();
            let required: Vec<String> =
                fields.iter().filter(|f| !matches!(f.ty, WitType::Option(_))).map(|f| snake_case(&f.name)).collect();
            json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            })
        }
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
        WitType::Variant(cases) => {
            let cases: Vec<Value> = cases
                .iter()
                .map(|case| {
                    let tag = json!({ "const": snake_case(&case.name) });
                    match &case.ty {
                        Some(payload) => json!({
                            "type": "object",
                            "properties": { "tag": tag, "value": type_schema(payload) },
                            "required": ["tag", "value"],
                            "additionalProperties": false,
                        }),
                        None => json!({
                            "type": "object",
                            "properties": { "tag": tag },
                            "required": ["tag"],
                            "additionalProperties": false,
                        }),
                    }
                })
                .collect();
            json!({ "oneOf": cases })
        }
        WitType::Unsupported(what) => json!({ "not": {}, "description": format!("a {what} cannot be sent") }),
        integer => {
            let (lo, hi) = integer.integer_range().expect("the remaining types are integers");
            json!({ "type": "integer", "minimum": json_integer(lo), "maximum": json_integer(hi) })
        }
    }
}

fn snake_names(names: &[String]) -> Vec<String> {
    names.iter().map(|n| snake_case(n)).collect()
}

fn json_integer(n: i128) -> Value {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(signed), _) => json!(signed),
        (_, Ok(unsigned)) => json!(unsigned),
        _ => json!(n as f64),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::type_schema;
    use crate::bind::to_val;
    use crate::names::snake_case;
    use crate::types::{Case, Field, WitType};

    fn name() -> impl Strategy<Value = String> {
        "[a-z]{1,6}(-[a-z]{1,4})?"
    }

    fn distinct_names(max: usize) -> impl Strategy<Value = Vec<String>> {
        prop::collection::btree_set(name(), 1..max).prop_map(|set| set.into_iter().collect())
    }

    fn wit_type() -> impl Strategy<Value = WitType> {
        let leaf = prop_oneof![
            Just(WitType::Bool),
            Just(WitType::S8),
            Just(WitType::U8),
            Just(WitType::S16),
            Just(WitType::U16),
            Just(WitType::S32),
            Just(WitType::U32),
            Just(WitType::S64),
            Just(WitType::U64),
            Just(WitType::F32),
            Just(WitType::F64),
            Just(WitType::Char),
            Just(WitType::String),
            distinct_names(5).prop_map(WitType::Enum),
            distinct_names(5).prop_map(WitType::Flags),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                inner.clone().prop_map(|t| WitType::List(Box::new(t))),
                inner.clone().prop_map(|t| WitType::Option(Box::new(t))),
                (prop::option::of(inner.clone()), prop::option::of(inner.clone()))
                    .prop_map(|(ok, err)| WitType::Result { ok: ok.map(Box::new), err: err.map(Box::new) }),
                prop::collection::vec(inner.clone(), 1..4).prop_map(WitType::Tuple),
                (distinct_names(4), prop::collection::vec(inner.clone(), 4)).prop_map(|(names, types)| {
                    WitType::Record(names.into_iter().zip(types).map(|(name, ty)| Field { name, ty }).collect())
                }),
                (distinct_names(4), prop::collection::vec(prop::option::of(inner), 4)).prop_map(|(names, types)| {
                    WitType::Variant(names.into_iter().zip(types).map(|(name, ty)| Case { name, ty }).collect())
                }),
            ]
        })
    }

    /// Canonical JSON values of a type: what `to_json` produces for its values.
    fn value_of(ty: &WitType) -> BoxedStrategy<Value> {
        match ty {
            WitType::Bool => any::<bool>().prop_map(|b| json!(b)).boxed(),
            WitType::F32 => (-1e30f32..1e30).prop_map(|f| json!(f)).boxed(),
            WitType::F64 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)).boxed(),
            WitType::Char => any::<char>().prop_map(|c| json!(c.to_string())).boxed(),
            WitType::String => ".{0,8}".prop_map(|s| json!(s)).boxed(),
            WitType::List(item) => prop::collection::vec(value_of(item), 0..4).prop_map(Value::Array).boxed(),
            WitType::Option(inner) => prop::option::of(value_of(inner)).prop_map(|v| v.unwrap_or(Value::Null)).boxed(),
            WitType::Result { ok, err } => {
                let side = |key: &'static str, t: &Option<Box<WitType>>| match t {
                    Some(t) => value_of(t).prop_map(move |v| json!({ key: v })).boxed(),
                    None => Just(json!({ key: null })).boxed(),
                };
                prop_oneof![side("ok", ok), side("err", err)].boxed()
            }
            WitType::Record(fields) => {
                let parts: Vec<BoxedStrategy<(String, Value)>> = fields
                    .iter()
                    .map(|f| {
                        let key = snake_case(&f.name);
                        value_of(&f.ty).prop_map(move |v| (key.clone(), v)).boxed()
                    })
                    .collect();
                parts.prop_map(|pairs| Value::Object(pairs.into_iter().collect())).boxed()
            }
            WitType::Tuple(types) => {
                types.iter().map(value_of).collect::<Vec<_>>().prop_map(Value::Array).boxed()
            }
            WitType::Enum(names) => prop::sample::select(names.clone()).prop_map(|n| json!(snake_case(&n))).boxed(),
            WitType::Flags(names) => prop::sample::subsequence(names.clone(), 0..=names.len())
                .prop_map(|chosen| json!(chosen.iter().map(|n| snake_case(n)).collect::<Vec<_>>()))
                .boxed(),
            WitType::Variant(cases) => {
                let options: Vec<BoxedStrategy<Value>> = cases
                    .iter()
                    .map(|case| {
                        let tag = snake_case(&case.name);
                        match &case.ty {
                            Some(t) => value_of(t).prop_map(move |v| json!({ "tag": tag.clone(), "value": v })).boxed(),
                            None => Just(json!({ "tag": tag })).boxed(),
                        }
                    })
                    .collect();
                prop::strategy::Union::new(options).boxed()
            }
            WitType::Unsupported(_) => Just(Value::Null).boxed(),
            integer => {
                let (lo, hi) = integer.integer_range().expect("integer");
                (lo..=hi).prop_map(|n| serde_json::from_str(&n.to_string()).expect("integer JSON")).boxed()
            }
        }
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
            ".{0,4}".prop_map(Value::String),
            name().prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(prop_oneof![name(), Just("tag".into()), Just("value".into()), Just("ok".into())], inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn schema_and_binder_accept_every_canonical_value((ty, value) in wit_type().prop_flat_map(|ty| {
            let values = value_of(&ty);
            (Just(ty), values)
        })) {
            let schema = type_schema(&ty);
            prop_assert!(jsonschema::draft202012::is_valid(&schema, &value), "schema {schema} rejects {value}");
            prop_assert!(to_val(&value, &ty, &mut "x".to_string()).is_ok(), "binder rejects {value} for {ty}");
        }

        #[test]
        fn the_result_size_bound_never_overestimates((ty, value) in wit_type().prop_flat_map(|ty| {
            let values = value_of(&ty);
            (Just(ty), values)
        })) {
            let val = to_val(&value, &ty, &mut "x".to_string()).expect("canonical values bind");
            let length = crate::bind::to_json(&val).to_string().len();
            for limit in 0..length + 2 {
                if crate::bind::json_surely_longer_than(&val, limit) {
                    prop_assert!(length > limit, "said longer than {limit}, but {value} is {length} bytes as JSON");
                }
            }
            prop_assert!(!crate::bind::json_surely_longer_than(&val, length));
        }

        #[test]
        fn whatever_the_schema_accepts_the_binder_binds(ty in wit_type(), value in any_json()) {
            let schema = type_schema(&ty);
            if jsonschema::draft202012::is_valid(&schema, &value) {
                let bound = to_val(&value, &ty, &mut "x".to_string());
                prop_assert!(bound.is_ok(), "schema {schema} accepts {value} but the binder says {bound:?}");
            }
        }
    }
}
