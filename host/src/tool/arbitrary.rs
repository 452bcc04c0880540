//! Generated WIT types and JSON values for property tests: every type a parameter or
//! result can have, the canonical JSON of its values, and arbitrary JSON.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::names::snake_case;
use super::types::{Case, Field, WitType};

/// A generated type with one of its canonical values.
pub(crate) fn typed_value() -> impl Strategy<Value = (WitType, Value)> {
    wit_type().prop_flat_map(|ty| {
        let values = value_of(&ty);
        (Just(ty), values)
    })
}

fn name() -> impl Strategy<Value = String> {
    "[a-z]{1,6}(-[a-z]{1,4})?"
}

fn distinct_names(max: usize) -> impl Strategy<Value = Vec<String>> {
    prop::collection::btree_set(name(), 1..max).prop_map(|set| set.into_iter().collect())
}

/// Any WIT type a parameter or result can have, nested up to three levels.
pub(crate) fn wit_type() -> impl Strategy<Value = WitType> {
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
pub(crate) fn value_of(ty: &WitType) -> BoxedStrategy<Value> {
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
        WitType::Tuple(types) => types.iter().map(value_of).collect::<Vec<_>>().prop_map(Value::Array).boxed(),
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

/// Any JSON value, with keys that often collide with the generated names.
pub(crate) fn any_json() -> impl Strategy<Value = Value> {
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
            prop::collection::btree_map(
                prop_oneof![name(), Just("tag".into()), Just("value".into()), Just("ok".into())],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
