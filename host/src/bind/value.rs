//! One JSON value converted to a WIT value of a given type, with lossless coercion
//! only (`"7"` → 7, `7.0` → 7, `"true"` → true, `5` → `"5"` for a string, enum and
//! flag names in another case or separator style) and a [`Mismatch`] naming the JSON
//! path otherwise.
//!
//! The JSON shapes (also what `tool/schema.rs` describes): records are objects with
//! snake_case keys; enums are strings; flags are arrays of flag names; variants are
//! `{"tag": case, "value": payload}`; a nested `result` is `{"ok": v}` or `{"err": e}`;
//! tuples are arrays; `char` is a one-character string; `option<T>` is `T` or `null`.

use serde_json::{Map, Value};
use wasmtime::component::Val;

use super::wording::{expected_words, shorten, snake_list};
use crate::tool::names::{match_name, python_list, snake_case};
use crate::tool::{Case, Field, Repair, WitType};

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

/// Where a conversion is (the JSON path of the value at hand) and what it repaired
/// on the way.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub(crate) path: String,
    pub(crate) repairs: Vec<Repair>,
}

impl Walk {
    /// A walk starting at the value named `path`.
    pub(crate) fn at(path: &str) -> Walk {
        Walk { path: path.to_string(), repairs: Vec::new() }
    }

    /// Runs `f` with `segment` appended to the path, restoring it afterwards.
    fn within<T>(&mut self, segment: &str, f: impl FnOnce(&mut Walk) -> T) -> T {
        let length = self.path.len();
        self.path.push_str(segment);
        let result = f(self);
        self.path.truncate(length);
        result
    }

    /// Records that the value here, `from`, was read as `to`.
    fn read_as(&mut self, from: &Value, to: impl FnOnce() -> String) {
        self.repairs.push(Repair::Value { path: self.path.clone(), from: shorten(from), to: to() });
    }
}

/// A value being converted, with the type it must have.
#[derive(Clone, Copy)]
struct Expected<'a> {
    value: &'a Value,
    ty: &'a WitType,
}

impl Expected<'_> {
    /// The mismatch of this value at `path`.
    fn mismatch(self, walk: &Walk) -> Mismatch {
        Mismatch { path: walk.path.clone(), expected: expected_words(self.ty), got: shorten(self.value) }
    }
}

/// Converts one JSON value to a WIT value of type `ty`; `walk` names the value and
/// collects what was repaired (a value in another JSON type read as this one, a
/// lone value wrapped in a list).
pub(crate) fn to_val(value: &Value, ty: &WitType, walk: &mut Walk) -> Result<Val, Mismatch> {
    let at = Expected { value, ty };
    let converted = match ty {
        WitType::Bool => boolean(value).map(Val::Bool),
        WitType::F32 => float(value).filter(|f| f.abs() <= f64::from(f32::MAX)).map(|f| Val::Float32(f as f32)),
        WitType::F64 => float(value).map(Val::Float64),
        WitType::Char => single_char(value).map(Val::Char),
        WitType::String => text(value).map(Val::String),
        WitType::List(item) => return list(at, item, walk),
        WitType::Option(inner) => {
            return match value {
                Value::Null => Ok(Val::Option(None)),
                v => Ok(Val::Option(Some(Box::new(to_val(v, inner, walk)?)))),
            };
        }
        WitType::Result { ok, err } => return result(at, ok.as_deref(), err.as_deref(), walk),
        WitType::Record(fields) => return record(at, fields, walk),
        WitType::Tuple(types) => {
            let items = value.as_array().filter(|a| a.len() == types.len()).ok_or_else(|| at.mismatch(walk))?;
            return items_to_vals(items, |i| &types[i], walk).map(Val::Tuple);
        }
        WitType::Enum(names) => pick_name(names, value).map(Val::Enum),
        WitType::Flags(names) => return flags(at, names, walk),
        WitType::Variant(cases) => return variant(at, cases, walk),
        WitType::Unsupported(_) => None,
        integer => integer_val(value, integer),
    };
    let converted = converted.ok_or_else(|| at.mismatch(walk))?;
    if !is_canonical(value, &converted) {
        walk.read_as(value, || canonical_json(&converted));
    }
    Ok(converted)
}

/// Whether `value` is already the JSON of `converted` (no coercion was needed).
fn is_canonical(value: &Value, converted: &Val) -> bool {
    match (value, converted) {
        (Value::Bool(_), Val::Bool(_)) | (Value::String(_), Val::String(_) | Val::Char(_)) => true,
        (Value::Number(_), Val::String(_)) => false,
        (Value::Number(_), Val::Float32(_) | Val::Float64(_)) => true,
        (Value::String(s), Val::Enum(name)) => is_spelt_as_sent(s, name),
        (Value::Number(n), _) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

/// A string; or a number where a string is wanted, as the text JSON writes it
/// (`5` → `"5"`): the one reading of a number for text.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// Whether `sent` is the WIT name `wit` as the model is shown it (snake_case).
fn is_spelt_as_sent(sent: &str, wit: &str) -> bool {
    sent.len() == wit.len() && sent.bytes().zip(wit.bytes()).all(|(s, w)| s == w || (s == b'_' && w == b'-'))
}

/// The JSON of a scalar WIT value, for a repair's words.
fn canonical_json(val: &Val) -> String {
    let json = match val {
        Val::Bool(b) => Value::Bool(*b),
        Val::S8(n) => (*n).into(),
        Val::U8(n) => (*n).into(),
        Val::S16(n) => (*n).into(),
        Val::U16(n) => (*n).into(),
        Val::S32(n) => (*n).into(),
        Val::U32(n) => (*n).into(),
        Val::S64(n) => (*n).into(),
        Val::U64(n) => (*n).into(),
        Val::Float32(f) => f64::from(*f).into(),
        Val::Float64(f) => (*f).into(),
        Val::Enum(name) => Value::String(snake_case(name)),
        Val::String(text) => Value::String(text.clone()),
        other => Value::String(format!("{other:?}")),
    };
    json.to_string()
}

/// An array of `item`s; or a lone value that is exactly one `item` (after the
/// usual coercions) where the model left out the brackets: a one-item list. An
/// array, an object or `null` is never wrapped, and a string is never split.
fn list(at: Expected<'_>, item: &WitType, walk: &mut Walk) -> Result<Val, Mismatch> {
    if let Some(items) = at.value.as_array() {
        return items_to_vals(items, |_| item, walk).map(Val::List);
    }
    if matches!(at.value, Value::Null | Value::Object(_)) || !is_scalar(item) {
        return Err(at.mismatch(walk));
    }
    let mut inner = Walk::at(&format!("{}[0]", walk.path));
    let Ok(one) = to_val(at.value, item, &mut inner) else { return Err(at.mismatch(walk)) };
    walk.repairs.push(Repair::Wrapped { path: walk.path.clone() });
    walk.repairs.append(&mut inner.repairs);
    Ok(Val::List(vec![one]))
}

/// Whether values of `ty` are JSON scalars (a string, a number, a boolean), which a
/// lone value may stand for as a list's only item.
fn is_scalar(ty: &WitType) -> bool {
    !matches!(
        ty,
        WitType::List(_)
            | WitType::Option(_)
            | WitType::Result { .. }
            | WitType::Record(_)
            | WitType::Tuple(_)
            | WitType::Flags(_)
            | WitType::Variant(_)
            | WitType::Unsupported(_)
    )
}

/// Each item of an array converted to the type `item_type(index)` gives.
fn items_to_vals<'t>(
    items: &[Value],
    item_type: impl Fn(usize) -> &'t WitType,
    walk: &mut Walk,
) -> Result<Vec<Val>, Mismatch> {
    items.iter().enumerate().map(|(i, v)| walk.within(&format!("[{i}]"), |w| to_val(v, item_type(i), w))).collect()
}

/// `{"ok": v}` or `{"err": e}`, each side typed (or `null` for an empty side).
fn result(at: Expected<'_>, ok: Option<&WitType>, err: Option<&WitType>, walk: &mut Walk) -> Result<Val, Mismatch> {
    let object = at.value.as_object().filter(|o| o.len() == 1).ok_or_else(|| at.mismatch(walk))?;
    let (key, inner) = object.iter().next().expect("the object has one entry");
    let side = |ty: Option<&WitType>, walk: &mut Walk| -> Result<Option<Box<Val>>, Mismatch> {
        match ty {
            Some(ty) => walk.within(&format!(".{key}"), |w| to_val(inner, ty, w)).map(|v| Some(Box::new(v))),
            None if inner.is_null() => Ok(None),
            None => Err(at.mismatch(walk)),
        }
    };
    match key.as_str() {
        "ok" => Ok(Val::Result(Ok(side(ok, walk)?))),
        "err" => Ok(Val::Result(Err(side(err, walk)?))),
        _ => Err(at.mismatch(walk)),
    }
}

/// An object whose keys name the record's fields (repaired like parameter names);
/// absent `option<T>` fields are `none`.
fn record(at: Expected<'_>, fields: &[Field], walk: &mut Walk) -> Result<Val, Mismatch> {
    let object = at.value.as_object().ok_or_else(|| at.mismatch(walk))?;
    let names: Vec<String> = fields.iter().map(|f| snake_case(&f.name)).collect();
    let given = assign_to_fields(object, &names, walk)?;
    let mut out = Vec::with_capacity(fields.len());
    for ((field, name), value) in fields.iter().zip(&names).zip(given) {
        let value = match (value, &field.ty) {
            (Some(value), _) => value,
            (None, WitType::Option(_)) => &Value::Null,
            (None, ty) => {
                return Err(Mismatch {
                    path: format!("{}.{name}", walk.path),
                    expected: expected_words(ty),
                    got: "nothing (the field is required)".into(),
                });
            }
        };
        out.push((field.name.clone(), walk.within(&format!(".{name}"), |w| to_val(value, &field.ty, w))?));
    }
    Ok(Val::Record(out))
}

/// Each field's value, by matching every key to one field; an unknown key, or one
/// naming a field already given, is a mismatch at that key.
fn assign_to_fields<'a>(
    object: &'a Map<String, Value>,
    names: &[String],
    walk: &mut Walk,
) -> Result<Vec<Option<&'a Value>>, Mismatch> {
    let mut given: Vec<Option<&Value>> = vec![None; names.len()];
    for (key, value) in object {
        match match_name(names.iter().map(String::as_str), key).one() {
            Some(i) if given[i].is_none() => {
                if *key != names[i] {
                    let path = format!("{}.{key}", walk.path);
                    walk.repairs.push(Repair::Key { path, from: key.clone(), to: names[i].clone() });
                }
                given[i] = Some(value);
            }
            _ => {
                return Err(Mismatch {
                    path: format!("{}.{key}", walk.path),
                    expected: format!("not present: the fields are {}", python_list(names)),
                    got: shorten(value),
                });
            }
        }
    }
    Ok(given)
}

/// An array of flag names (each repaired like an enum value), or one flag name alone;
/// repeats count once.
fn flags(at: Expected<'_>, names: &[String], walk: &mut Walk) -> Result<Val, Mismatch> {
    let lone = std::slice::from_ref(at.value);
    let items = match at.value {
        Value::Array(items) => items.as_slice(),
        Value::String(_) if pick_name(names, at.value).is_some() => {
            walk.repairs.push(Repair::Wrapped { path: walk.path.clone() });
            lone
        }
        _ => return Err(at.mismatch(walk)),
    };
    let mut set: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = pick_name(names, item).ok_or_else(|| Mismatch {
            path: format!("{}[{i}]", walk.path),
            expected: format!("one of {}", snake_list(names)),
            got: shorten(item),
        })?;
        if !item.as_str().is_some_and(|sent| is_spelt_as_sent(sent, &name)) {
            let to = Value::String(snake_case(&name)).to_string();
            walk.within(&format!("[{i}]"), |w| w.read_as(item, || to));
        }
        if !set.contains(&name) {
            set.push(name);
        }
    }
    Ok(Val::Flags(set))
}

/// `{"tag": case}` or `{"tag": case, "value": payload}`.
fn variant(at: Expected<'_>, cases: &[Case], walk: &mut Walk) -> Result<Val, Mismatch> {
    let object = at.value.as_object().ok_or_else(|| at.mismatch(walk))?;
    let tag = object.get("tag").ok_or_else(|| at.mismatch(walk))?;
    let case_names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let index = tag.as_str().and_then(|tag| match_name(case_names.iter().copied(), tag).one());
    let case = index.map(|i| &cases[i]).ok_or_else(|| Mismatch {
        path: format!("{}.tag", walk.path),
        expected: format!("one of {}", snake_list(&case_names)),
        got: shorten(tag),
    })?;
    if !tag.as_str().is_some_and(|sent| is_spelt_as_sent(sent, &case.name)) {
        let to = Value::String(snake_case(&case.name)).to_string();
        walk.within(".tag", |w| w.read_as(tag, || to));
    }
    if object.keys().any(|k| k != "tag" && k != "value") {
        return Err(at.mismatch(walk));
    }
    let payload = object.get("value").unwrap_or(&Value::Null);
    let payload = match &case.ty {
        Some(ty) => Some(Box::new(walk.within(".value", |w| to_val(payload, ty, w))?)),
        None if payload.is_null() => None,
        None => {
            return Err(Mismatch {
                path: format!("{}.value", walk.path),
                expected: format!("absent: case '{}' carries no value", snake_case(&case.name)),
                got: shorten(payload),
            });
        }
    };
    Ok(Val::Variant(case.name.clone(), payload))
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

    use serde_json::{Value, json};
    use wasmtime::component::Val;

    use super::{Walk, to_val};
    use crate::tool::WitType;
    use crate::tool::arbitrary::{any_json, typed_value, wit_type};
    use crate::tool::type_schema;

    /// The value bound, and the words of each repair.
    fn bound(value: Value, ty: &WitType) -> (Result<Val, String>, Vec<String>) {
        let mut walk = Walk::at("x");
        let bound =
            to_val(&value, ty, &mut walk).map_err(|m| format!("{} must be {}, got {}", m.path, m.expected, m.got));
        (bound, walk.repairs.iter().map(ToString::to_string).collect())
    }

    fn list_of(item: WitType) -> WitType {
        WitType::List(Box::new(item))
    }

    #[test]
    fn a_lone_value_is_a_one_item_list_when_it_is_an_item() {
        let cuisines = WitType::Enum(vec!["sea-food".into(), "italian".into()]);
        assert_eq!(
            bound(json!("Sea_Food"), &list_of(cuisines.clone())),
            (
                Ok(Val::List(vec![Val::Enum("sea-food".into())])),
                vec!["'x' wrapped in a list".into(), "'x[0]': \"Sea_Food\" read as \"sea_food\"".into()]
            )
        );
        assert_eq!(
            bound(json!(7), &list_of(WitType::U8)),
            (Ok(Val::List(vec![Val::U8(7)])), vec!["'x' wrapped in a list".into()])
        );
        assert_eq!(
            bound(json!("abc"), &list_of(WitType::String)),
            (Ok(Val::List(vec![Val::String("abc".into())])), vec!["'x' wrapped in a list".into()]),
            "a string is never split"
        );
        let refused = |value: Value, ty: &WitType| bound(value, ty).0.expect_err("refused");
        assert_eq!(
            refused(json!("thai"), &list_of(cuisines)),
            "x must be an array whose items are each one of ['sea_food', 'italian'], got \"thai\""
        );
        assert!(refused(json!(300), &list_of(WitType::U8)).starts_with("x must be an array"));
        assert!(refused(json!(null), &list_of(WitType::U8)).starts_with("x must be an array"));
        assert!(refused(json!({"a": 1}), &list_of(WitType::String)).starts_with("x must be an array"));
        assert!(
            refused(json!(1), &list_of(list_of(WitType::U8))).starts_with("x must be an array"),
            "no list of lists"
        );
    }

    #[test]
    fn a_lone_flag_is_a_set_of_one() {
        let flags = WitType::Flags(vec!["read".into(), "write".into()]);
        assert_eq!(
            bound(json!("Read"), &flags),
            (
                Ok(Val::Flags(vec!["read".into()])),
                vec!["'x' wrapped in a list".into(), "'x[0]': \"Read\" read as \"read\"".into()]
            )
        );
        assert!(bound(json!("exec"), &flags).0.is_err());
    }

    #[test]
    fn coercions_are_reported_and_canonical_values_are_not() {
        assert_eq!(bound(json!("7"), &WitType::U32), (Ok(Val::U32(7)), vec!["'x': \"7\" read as 7".into()]));
        assert_eq!(bound(json!(7.0), &WitType::S64), (Ok(Val::S64(7)), vec!["'x': 7.0 read as 7".into()]));
        assert_eq!(
            bound(json!("TRUE"), &WitType::Bool),
            (Ok(Val::Bool(true)), vec!["'x': \"TRUE\" read as true".into()])
        );
        assert_eq!(
            bound(json!(5), &WitType::String),
            (Ok(Val::String("5".into())), vec!["'x': 5 read as \"5\"".into()])
        );
        assert_eq!(
            bound(json!(-2.5), &WitType::String),
            (Ok(Val::String("-2.5".into())), vec!["'x': -2.5 read as \"-2.5\"".into()])
        );
        assert!(bound(json!(true), &WitType::String).0.is_err(), "a boolean is not read as text");
        for (value, ty) in [
            (json!(7), WitType::U32),
            (json!(true), WitType::Bool),
            (json!(1.5), WitType::F64),
            (json!("a"), WitType::Char),
        ] {
            assert_eq!(bound(value.clone(), &ty).1, Vec::<String>::new(), "{value} for {ty}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_binder_binds_every_canonical_value((ty, value) in typed_value()) {
            prop_assert!(to_val(&value, &ty, &mut Walk::at("x")).is_ok(), "binder rejects {value} for {ty}");
        }

        #[test]
        fn whatever_the_schema_accepts_the_binder_binds(ty in wit_type(), value in any_json()) {
            let schema = type_schema(&ty);
            if jsonschema::draft202012::is_valid(&schema, &value) {
                let bound = to_val(&value, &ty, &mut Walk::at("x"));
                prop_assert!(bound.is_ok(), "schema {schema} accepts {value} but the binder says {bound:?}");
            }
        }
    }
}
