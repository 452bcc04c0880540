//! A tool's returned WIT value as JSON, in the shapes the binder reads (records as
//! objects with snake_case keys, enums as strings, variants as `{"tag", "value"}`…),
//! and the result size limit: judged from a lower bound before the JSON is built, then
//! counted exactly without building its text.

use serde_json::{Value, json};
use wasmtime::component::Val;

use crate::tool::names::snake_case;

/// Whether the JSON text of `val` is surely longer than `limit` bytes, judged from a
/// lower bound on its length, without building it: a result far over the limit is
/// refused before its JSON form doubles the memory it takes.
pub(crate) fn json_surely_longer_than(val: &Val, limit: usize) -> bool {
    let mut budget = limit;
    !fits_in(val, &mut budget)
}

/// Takes the least JSON length of `val` from `budget`; false once the budget is spent.
fn fits_in(val: &Val, budget: &mut usize) -> bool {
    let separators = |n: usize| 2 + n.saturating_sub(1);
    match val {
        Val::Bool(_) => take(budget, 4),
        Val::Char(_) => take(budget, 3),
        Val::String(s) => take(budget, s.len() + 2),
        Val::Enum(name) => take(budget, name.len() + 2),
        Val::List(items) | Val::Tuple(items) | Val::FixedLengthList(items) => {
            take(budget, separators(items.len())) && items.iter().all(|item| fits_in(item, budget))
        }
        Val::Record(fields) => {
            take(budget, separators(fields.len()) + fields.iter().map(|(name, _)| name.len() + 3).sum::<usize>())
                && fields.iter().all(|(_, value)| fits_in(value, budget))
        }
        Val::Flags(names) => take(budget, separators(names.len()) + names.iter().map(|n| n.len() + 2).sum::<usize>()),
        Val::Variant(tag, payload) => {
            take(budget, tag.len() + 10) && payload.as_deref().is_none_or(|v| fits_in(v, budget))
        }
        Val::Option(Some(inner)) => fits_in(inner, budget),
        Val::Option(None) => take(budget, 4),
        Val::Result(Ok(inner) | Err(inner)) => take(budget, 7) && inner.as_deref().is_none_or(|v| fits_in(v, budget)),
        Val::Map(entries) => {
            take(budget, separators(entries.len()))
                && entries.iter().all(|(k, v)| fits_in(k, budget) && fits_in(v, budget))
        }
        Val::Resource(_) | Val::Future(_) | Val::Stream(_) | Val::ErrorContext(_) => true,
        // Numbers: at least one digit.
        _ => take(budget, 1),
    }
}

/// Takes `n` from `budget`; false when there is not that much left.
fn take(budget: &mut usize, n: usize) -> bool {
    match budget.checked_sub(n) {
        Some(rest) => {
            *budget = rest;
            true
        }
        None => false,
    }
}

/// Converts a WIT value returned by a tool into JSON, in the shapes described above
/// (the same the binder reads).
pub(crate) fn to_json(val: &Val) -> Value {
    match val {
        Val::Bool(b) => json!(b),
        Val::S8(n) => json!(n),
        Val::U8(n) => json!(n),
        Val::S16(n) => json!(n),
        Val::U16(n) => json!(n),
        Val::S32(n) => json!(n),
        Val::U32(n) => json!(n),
        Val::S64(n) => json!(n),
        Val::U64(n) => json!(n),
        Val::Float32(f) => json!(f),
        Val::Float64(f) => json!(f),
        Val::Char(c) => json!(c.to_string()),
        Val::String(s) => json!(s),
        Val::List(items) | Val::Tuple(items) | Val::FixedLengthList(items) => {
            Value::Array(items.iter().map(to_json).collect())
        }
        Val::Record(fields) => Value::Object(fields.iter().map(|(k, v)| (snake_case(k), to_json(v))).collect()),
        Val::Enum(name) => json!(snake_case(name)),
        Val::Flags(names) => Value::Array(names.iter().map(|n| json!(snake_case(n))).collect()),
        Val::Variant(tag, payload) => match payload {
            Some(v) => json!({ "tag": snake_case(tag), "value": to_json(v) }),
            None => json!({ "tag": snake_case(tag) }),
        },
        Val::Option(inner) => inner.as_deref().map_or(Value::Null, to_json),
        Val::Result(Ok(v)) => json!({ "ok": v.as_deref().map_or(Value::Null, to_json) }),
        Val::Result(Err(e)) => json!({ "err": e.as_deref().map_or(Value::Null, to_json) }),
        Val::Map(entries) => Value::Array(entries.iter().map(|(k, v)| json!([to_json(k), to_json(v)])).collect()),
        Val::Resource(_) | Val::Future(_) | Val::Stream(_) | Val::ErrorContext(_) => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{json_surely_longer_than, to_json};
    use crate::bind::{Walk, to_val};
    use crate::tool::arbitrary::typed_value;
    use crate::tool::json_len;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_result_size_bound_never_overestimates((ty, value) in typed_value()) {
            let val = to_val(&value, &ty, &mut Walk::at("x")).expect("canonical values bind");
            let length = to_json(&val).to_string().len();
            for limit in 0..length + 2 {
                if json_surely_longer_than(&val, limit) {
                    prop_assert!(length > limit, "said longer than {limit}, but {value} is {length} bytes as JSON");
                }
            }
            prop_assert!(!json_surely_longer_than(&val, length));
        }

        #[test]
        fn a_bound_value_comes_back_as_the_json_it_was_bound_from((ty, value) in typed_value()) {
            let val = to_val(&value, &ty, &mut Walk::at("x")).expect("canonical values bind");
            let json = to_json(&val);
            prop_assert_eq!(json_len(&json), json.to_string().len());
            prop_assert_eq!(json, value);
        }
    }
}
