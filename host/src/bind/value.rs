//! One JSON value converted to a WIT value of a given type, with lossless coercion
//! only (`"7"` → 7, `7.0` → 7, `"true"` → true, enum and flag names in another case
//! or separator style) and a [`Mismatch`] naming the JSON path otherwise.
//!
//! The JSON shapes (also what `tool/schema.rs` describes): records are objects with
//! snake_case keys; enums are strings; flags are arrays of flag names; variants are
//! `{"tag": case, "value": payload}`; a nested `result` is `{"ok": v}` or `{"err": e}`;
//! tuples are arrays; `char` is a one-character string; `option<T>` is `T` or `null`.

use serde_json::{Map, Value};
use wasmtime::component::Val;

use super::wording::{expected_words, shorten, snake_list};
use crate::tool::names::{match_name, python_list, snake_case};
use crate::tool::{Case, Field, WitType};

/// A value that does not fit its type: where, what was expected, what came.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mismatch {
    /// Where the value is, e.g. `items[2].name`.
    pub(crate) path: String,
    /// The expected type in JSON words.
    pub(crate) expected: String,
    /// The value that came, as (shortened) JSON.
    pub(crate) got: String,
}

/// A value being converted, with the type it must have.
#[derive(Clone, Copy)]
struct Expected<'a> {
    value: &'a Value,
    ty: &'a WitType,
}

impl Expected<'_> {
    /// The mismatch of this value at `path`.
    fn mismatch(self, path: &str) -> Mismatch {
        Mismatch { path: path.to_string(), expected: expected_words(self.ty), got: shorten(self.value) }
    }
}

/// Converts one JSON value to a WIT value of type `ty`; `path` names the value.
pub(crate) fn to_val(value: &Value, ty: &WitType, path: &mut String) -> Result<Val, Mismatch> {
    let at = Expected { value, ty };
    match ty {
        WitType::Bool => boolean(value).map(Val::Bool).ok_or_else(|| at.mismatch(path)),
        WitType::F32 => float(value)
            .filter(|f| f.abs() <= f64::from(f32::MAX))
            .map(|f| Val::Float32(f as f32))
            .ok_or_else(|| at.mismatch(path)),
        WitType::F64 => float(value).map(Val::Float64).ok_or_else(|| at.mismatch(path)),
        WitType::Char => single_char(value).map(Val::Char).ok_or_else(|| at.mismatch(path)),
        WitType::String => value.as_str().map(|s| Val::String(s.to_string())).ok_or_else(|| at.mismatch(path)),
        WitType::List(item) => {
            let items = value.as_array().ok_or_else(|| at.mismatch(path))?;
            items_to_vals(items, |_| item, path).map(Val::List)
        }
        WitType::Option(inner) => match value {
            Value::Null => Ok(Val::Option(None)),
            v => Ok(Val::Option(Some(Box::new(to_val(v, inner, path)?)))),
        },
        WitType::Result { ok, err } => result(at, ok.as_deref(), err.as_deref(), path),
        WitType::Record(fields) => record(at, fields, path),
        WitType::Tuple(types) => {
            let items = value.as_array().filter(|a| a.len() == types.len()).ok_or_else(|| at.mismatch(path))?;
            items_to_vals(items, |i| &types[i], path).map(Val::Tuple)
        }
        WitType::Enum(names) => pick_name(names, value).map(Val::Enum).ok_or_else(|| at.mismatch(path)),
        WitType::Flags(names) => flags(at, names, path),
        WitType::Variant(cases) => variant(at, cases, path),
        WitType::Unsupported(_) => Err(at.mismatch(path)),
        integer => integer_val(value, integer).ok_or_else(|| at.mismatch(path)),
    }
}

/// Each item of an array converted to the type `item_type(index)` gives.
fn items_to_vals<'t>(
    items: &[Value],
    item_type: impl Fn(usize) -> &'t WitType,
    path: &mut String,
) -> Result<Vec<Val>, Mismatch> {
    items
        .iter()
        .enumerate()
        .map(|(i, v)| with_segment(path, &format!("[{i}]"), |p| to_val(v, item_type(i), p)))
        .collect()
}

/// `{"ok": v}` or `{"err": e}`, each side typed (or `null` for an empty side).
fn result(at: Expected<'_>, ok: Option<&WitType>, err: Option<&WitType>, path: &mut String) -> Result<Val, Mismatch> {
    let object = at.value.as_object().filter(|o| o.len() == 1).ok_or_else(|| at.mismatch(path))?;
    let (key, inner) = object.iter().next().expect("the object has one entry");
    let side = |ty: Option<&WitType>, path: &mut String| -> Result<Option<Box<Val>>, Mismatch> {
        match ty {
            Some(ty) => with_segment(path, &format!(".{key}"), |p| to_val(inner, ty, p)).map(|v| Some(Box::new(v))),
            None if inner.is_null() => Ok(None),
            None => Err(at.mismatch(path)),
        }
    };
    match key.as_str() {
        "ok" => Ok(Val::Result(Ok(side(ok, path)?))),
        "err" => Ok(Val::Result(Err(side(err, path)?))),
        _ => Err(at.mismatch(path)),
    }
}

/// An object whose keys name the record's fields (repaired like parameter names);
/// absent `option<T>` fields are `none`.
fn record(at: Expected<'_>, fields: &[Field], path: &mut String) -> Result<Val, Mismatch> {
    let object = at.value.as_object().ok_or_else(|| at.mismatch(path))?;
    let names: Vec<String> = fields.iter().map(|f| snake_case(&f.name)).collect();
    let given = assign_to_fields(object, &names, path)?;
    let mut out = Vec::with_capacity(fields.len());
    for ((field, name), value) in fields.iter().zip(&names).zip(given) {
        let value = match (value, &field.ty) {
            (Some(value), _) => value,
            (None, WitType::Option(_)) => &Value::Null,
            (None, ty) => {
                return Err(Mismatch {
                    path: format!("{path}.{name}"),
                    expected: expected_words(ty),
                    got: "nothing (the field is required)".into(),
                });
            }
        };
        out.push((field.name.clone(), with_segment(path, &format!(".{name}"), |p| to_val(value, &field.ty, p))?));
    }
    Ok(Val::Record(out))
}

/// Each field's value, by matching every key to one field; an unknown key, or one
/// naming a field already given, is a mismatch at that key.
fn assign_to_fields<'a>(
    object: &'a Map<String, Value>,
    names: &[String],
    path: &str,
) -> Result<Vec<Option<&'a Value>>, Mismatch> {
    let mut given: Vec<Option<&Value>> = vec![None; names.len()];
    for (key, value) in object {
        match match_name(names.iter().map(String::as_str), key).one() {
            Some(i) if given[i].is_none() => given[i] = Some(value),
            _ => {
                return Err(Mismatch {
                    path: format!("{path}.{key}"),
                    expected: format!("not present: the fields are {}", python_list(names)),
                    got: shorten(value),
                });
            }
        }
    }
    Ok(given)
}

/// An array of flag names (each repaired like an enum value); repeats count once.
fn flags(at: Expected<'_>, names: &[String], path: &str) -> Result<Val, Mismatch> {
    let items = at.value.as_array().ok_or_else(|| at.mismatch(path))?;
    let mut set: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = pick_name(names, item).ok_or_else(|| Mismatch {
            path: format!("{path}[{i}]"),
            expected: format!("one of {}", snake_list(names)),
            got: shorten(item),
        })?;
        if !set.contains(&name) {
            set.push(name);
        }
    }
    Ok(Val::Flags(set))
}

/// `{"tag": case}` or `{"tag": case, "value": payload}`.
fn variant(at: Expected<'_>, cases: &[Case], path: &mut String) -> Result<Val, Mismatch> {
    let object = at.value.as_object().ok_or_else(|| at.mismatch(path))?;
    let tag = object.get("tag").ok_or_else(|| at.mismatch(path))?;
    let case_names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let index = tag.as_str().and_then(|tag| match_name(case_names.iter().copied(), tag).one());
    let case = index.map(|i| &cases[i]).ok_or_else(|| Mismatch {
        path: format!("{path}.tag"),
        expected: format!("one of {}", snake_list(&case_names)),
        got: shorten(tag),
    })?;
    if object.keys().any(|k| k != "tag" && k != "value") {
        return Err(at.mismatch(path));
    }
    let payload = object.get("value").unwrap_or(&Value::Null);
    let payload = match &case.ty {
        Some(ty) => Some(Box::new(with_segment(path, ".value", |p| to_val(payload, ty, p))?)),
        None if payload.is_null() => None,
        None => {
            return Err(Mismatch {
                path: format!("{path}.value"),
                expected: format!("absent: case '{}' carries no value", snake_case(&case.name)),
                got: shorten(payload),
            });
        }
    };
    Ok(Val::Variant(case.name.clone(), payload))
}

/// Runs `f` with `segment` appended to `path`, restoring `path` afterwards.
fn with_segment<T>(path: &mut String, segment: &str, f: impl FnOnce(&mut String) -> T) -> T {
    let length = path.len();
    path.push_str(segment);
    let result = f(path);
    path.truncate(length);
    result
}

/// A boolean, or a string spelling one in any case.
fn boolean(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// A string of exactly one character.
fn single_char(value: &Value) -> Option<char> {
    let mut chars = value.as_str()?.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// An integer of type `ty`, from a JSON number without fraction or a string holding
/// one, within the type's range.
fn integer_val(value: &Value, ty: &WitType) -> Option<Val> {
    let (lo, hi) = ty.integer_range()?;
    let n = integer(value).filter(|n| (lo..=hi).contains(n))?;
    // The range check above makes every cast below lossless.
    Some(match ty {
        WitType::S8 => Val::S8(n as i8),
        WitType::U8 => Val::U8(n as u8),
        WitType::S16 => Val::S16(n as i16),
        WitType::U16 => Val::U16(n as u16),
        WitType::S32 => Val::S32(n as i32),
        WitType::U32 => Val::U32(n as u32),
        WitType::S64 => Val::S64(n as i64),
        _ => Val::U64(n as u64),
    })
}

/// An integer from a JSON number without fraction, or a string holding one.
fn integer(value: &Value) -> Option<i128> {
    match value {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 1e19).map(|f| f as i128)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A finite number from a JSON number, or a string holding one.
fn float(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok().filter(|f: &f64| f.is_finite()),
        _ => None,
    }
}

/// The WIT name a JSON string picks from `names`, repaired like a parameter name.
fn pick_name(names: &[String], value: &Value) -> Option<String> {
    let index = match_name(names.iter().map(String::as_str), value.as_str()?).one()?;
    Some(names[index].clone())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::to_val;
    use crate::tool::arbitrary::{any_json, typed_value, wit_type};
    use crate::tool::type_schema;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_binder_binds_every_canonical_value((ty, value) in typed_value()) {
            prop_assert!(to_val(&value, &ty, &mut "x".to_string()).is_ok(), "binder rejects {value} for {ty}");
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
