//! JSON arguments bound to typed WIT values (with lossless coercion and name repair),
//! and WIT results turned back into JSON.
//!
//! The JSON shapes (also what [`crate::schema`] describes): records are objects with
//! snake_case keys; enums are strings; flags are arrays of flag names; variants are
//! `{"tag": case, "value": payload}`; a nested `result` is `{"ok": v}` or `{"err": e}`;
//! tuples are arrays; `char` is a one-character string; `option<T>` is `T` or `null`.

use serde_json::{Map, Value, json};
use wasmtime::component::Val;

use crate::error::ToolError;
use crate::names::{normalise, python_list, snake_case};
use crate::spec::ToolSpec;
use crate::types::WitType;

/// A value that does not fit its type: where, what was expected, what came.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Where the value is, e.g. `items[2].name`.
    pub path: String,
    /// The expected type in JSON words.
    pub expected: String,
    /// The value that came, as (shortened) JSON.
    pub got: String,
}

/// Binds a model's JSON arguments to the parameters of `spec`, in call order.
pub fn bind_arguments(spec: &ToolSpec, arguments: &Value) -> Result<Vec<Val>, ToolError> {
    let empty = Map::new();
    let object = match arguments {
        Value::Object(map) => map,
        Value::Null => &empty,
        other => {
            return Err(arguments_error(spec, format!("arguments for '{}' must be a JSON object, got {}", spec.name, json_kind(other))));
        }
    };
    let mut given: Vec<Option<(&str, &Value)>> = vec![None; spec.params.len()];
    let mut unexpected = Vec::new();
    for (key, value) in object {
        let Some(index) = find_param(spec, key) else {
            unexpected.push(key.as_str());
            continue;
        };
        if let Some((first, _)) = given[index] {
            return Err(arguments_error(
                spec,
                format!(
                    "Tool '{}' was called with parameter '{}' twice (as '{first}' and '{key}').",
                    spec.name, spec.params[index].name
                ),
            ));
        }
        given[index] = Some((key, value));
    }
    let missing: Vec<&str> = spec
        .params
        .iter()
        .zip(&given)
        .filter(|(param, value)| param.required() && value.is_none_or(|(_, v)| v.is_null()))
        .map(|(param, _)| param.name.as_str())
        .collect();
    if !missing.is_empty() || !unexpected.is_empty() {
        return Err(arguments_error(spec, describe_misfit(&spec.name, &missing, &unexpected)));
    }
    spec.params
        .iter()
        .zip(given)
        .map(|(param, value)| {
            let value = value.map_or(&Value::Null, |(_, v)| v);
            to_val(value, &param.ty, &mut param.name.clone()).map_err(|m| ToolError::InvalidValue {
                tool: spec.name.clone(),
                path: m.path,
                expected: m.expected,
                got: m.got,
            })
        })
        .collect()
}

fn arguments_error(spec: &ToolSpec, problem: String) -> ToolError {
    ToolError::InvalidArguments { tool: spec.name.clone(), problem, expected_parameters: Some(spec.expected_parameters()) }
}

fn describe_misfit(tool: &str, missing: &[&str], unexpected: &[&str]) -> String {
    let plural = |n: usize, one: &str, many: &str| if n == 1 { one.to_string() } else { many.to_string() };
    let quoted = |names: &[&str]| names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!(
            "missing required {} {}",
            plural(missing.len(), "parameter", "parameters"),
            quoted(missing)
        ));
    }
    if !unexpected.is_empty() {
        parts.push(format!("unexpected {} {}", plural(unexpected.len(), "parameter", "parameters"), quoted(unexpected)));
    }
    format!("Tool '{tool}' was called with {}.", parts.join(" and "))
}

/// The parameter a key names: exactly, then by its WIT spelling, then by normalised key
/// when exactly one parameter shares it.
fn find_param(spec: &ToolSpec, key: &str) -> Option<usize> {
    let params = &spec.params;
    params
        .iter()
        .position(|p| p.name == key)
        .or_else(|| params.iter().position(|p| p.name.replace('_', "-") == key))
        .or_else(|| unique_position(params.iter().map(|p| p.name.as_str()), key))
}

/// The index of the one name whose normalised key equals `key`'s; none when zero or several match.
fn unique_position<'a>(names: impl Iterator<Item = &'a str>, key: &str) -> Option<usize> {
    let wanted = normalise(key);
    let mut matches = names.enumerate().filter(|(_, name)| normalise(name) == wanted);
    let (index, _) = matches.next()?;
    matches.next().is_none().then_some(index)
}

/// Converts one JSON value to a WIT value of type `ty`; `path` names the value.
pub fn to_val(value: &Value, ty: &WitType, path: &mut String) -> Result<Val, Mismatch> {
    let mismatch = |path: &String| Mismatch { path: path.clone(), expected: expected_words(ty), got: shorten(value) };
    Ok(match ty {
        WitType::Bool => Val::Bool(match value {
            Value::Bool(b) => *b,
            Value::String(s) if s.eq_ignore_ascii_case("true") => true,
            Value::String(s) if s.eq_ignore_ascii_case("false") => false,
            _ => return Err(mismatch(path)),
        }),
        WitType::S8 | WitType::U8 | WitType::S16 | WitType::U16 | WitType::S32 | WitType::U32 | WitType::S64 | WitType::U64 => {
            let n = integer(value).filter(|n| ty.integer_range().is_some_and(|(lo, hi)| (lo..=hi).contains(n)));
            let n = n.ok_or_else(|| mismatch(path))?;
            match ty {
                WitType::S8 => Val::S8(n as i8),
                WitType::U8 => Val::U8(n as u8),
                WitType::S16 => Val::S16(n as i16),
                WitType::U16 => Val::U16(n as u16),
                WitType::S32 => Val::S32(n as i32),
                WitType::U32 => Val::U32(n as u32),
                WitType::S64 => Val::S64(n as i64),
                _ => Val::U64(n as u64),
            }
        }
        WitType::F32 => Val::Float32(float(value).filter(|f| f.abs() <= f64::from(f32::MAX)).ok_or_else(|| mismatch(path))? as f32),
        WitType::F64 => Val::Float64(float(value).ok_or_else(|| mismatch(path))?),
        WitType::Char => {
            let mut chars = value.as_str().map(str::chars).ok_or_else(|| mismatch(path))?;
            match (chars.next(), chars.next()) {
                (Some(c), None) => Val::Char(c),
                _ => return Err(mismatch(path)),
            }
        }
        WitType::String => Val::String(value.as_str().ok_or_else(|| mismatch(path))?.to_string()),
        WitType::List(item) => {
            let items = value.as_array().ok_or_else(|| mismatch(path))?;
            Val::List(each_item(items, |i, v, path| with_segment(path, &format!("[{i}]"), |p| to_val(v, item, p)), path)?)
        }
        WitType::Option(inner) => match value {
            Value::Null => Val::Option(None),
            v => Val::Option(Some(Box::new(to_val(v, inner, path)?))),
        },
        WitType::Result { ok, err } => {
            let object = value.as_object().filter(|o| o.len() == 1).ok_or_else(|| mismatch(path))?;
            let (key, inner) = object.iter().next().expect("one entry");
            let side = |t: &Option<Box<WitType>>, path: &mut String| -> Result<Option<Box<Val>>, Mismatch> {
                match t {
                    Some(t) => with_segment(path, &format!(".{key}"), |p| to_val(inner, t, p)).map(|v| Some(Box::new(v))),
                    None if inner.is_null() => Ok(None),
                    None => Err(mismatch(path)),
                }
            };
            match key.as_str() {
                "ok" => Val::Result(Ok(side(ok, path)?)),
                "err" => Val::Result(Err(side(err, path)?)),
                _ => return Err(mismatch(path)),
            }
        }
        WitType::Record(fields) => {
            let object = value.as_object().ok_or_else(|| mismatch(path))?;
            let names: Vec<String> = fields.iter().map(|f| snake_case(&f.name)).collect();
            let mut given: Vec<Option<&Value>> = vec![None; fields.len()];
            for (key, v) in object {
                let index = names
                    .iter()
                    .position(|n| n == key)
                    .or_else(|| fields.iter().position(|f| &f.name == key))
                    .or_else(|| unique_position(names.iter().map(String::as_str), key));
                match index {
                    Some(i) if given[i].is_none() => given[i] = Some(v),
                    _ => {
                        return Err(Mismatch {
                            path: format!("{path}.{key}"),
                            expected: format!("not present: the fields are {}", python_list(&names)),
                            got: shorten(v),
                        });
                    }
                }
            }
            let mut out = Vec::with_capacity(fields.len());
            for ((field, name), v) in fields.iter().zip(&names).zip(given) {
                let v = match (v, &field.ty) {
                    (Some(v), _) => v,
                    (None, WitType::Option(_)) => &Value::Null,
                    (None, ty) => {
                        return Err(Mismatch {
                            path: format!("{path}.{name}"),
                            expected: expected_words(ty),
                            got: "nothing (the field is required)".into(),
                        });
                    }
                };
                out.push((field.name.clone(), with_segment(path, &format!(".{name}"), |p| to_val(v, &field.ty, p))?));
            }
            Val::Record(out)
        }
        WitType::Tuple(types) => {
            let items = value.as_array().filter(|a| a.len() == types.len()).ok_or_else(|| mismatch(path))?;
            Val::Tuple(each_item(items, |i, v, path| with_segment(path, &format!("[{i}]"), |p| to_val(v, &types[i], p)), path)?)
        }
        WitType::Enum(names) => Val::Enum(pick_name(names, value).ok_or_else(|| mismatch(path))?),
        WitType::Flags(names) => {
            let items = value.as_array().ok_or_else(|| mismatch(path))?;
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
            Val::Flags(set)
        }
        WitType::Variant(cases) => {
            let object = value.as_object().ok_or_else(|| mismatch(path))?;
            let tag = object.get("tag").ok_or_else(|| mismatch(path))?;
            let case_names: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
            let name = pick_name(&case_names, tag).ok_or_else(|| Mismatch {
                path: format!("{path}.tag"),
                expected: format!("one of {}", snake_list(&case_names)),
                got: shorten(tag),
            })?;
            let case = cases.iter().find(|c| c.name == name).expect("picked from these cases");
            if object.keys().any(|k| k != "tag" && k != "value") {
                return Err(mismatch(path));
            }
            let payload = object.get("value").unwrap_or(&Value::Null);
            let payload = match &case.ty {
                Some(t) => Some(Box::new(with_segment(path, ".value", |p| to_val(payload, t, p))?)),
                None if payload.is_null() => None,
                None => {
                    return Err(Mismatch {
                        path: format!("{path}.value"),
                        expected: format!("absent: case '{}' carries no value", snake_case(&name)),
                        got: shorten(payload),
                    });
                }
            };
            Val::Variant(name, payload)
        }
        WitType::Unsupported(_) => return Err(mismatch(path)),
    })
}

fn each_item(
    items: &[Value],
    mut convert: impl FnMut(usize, &Value, &mut String) -> Result<Val, Mismatch>,
    path: &mut String,
) -> Result<Vec<Val>, Mismatch> {
    items.iter().enumerate().map(|(i, v)| convert(i, v, path)).collect()
}

/// Runs `f` with `segment` appended to `path`, restoring `path` afterwards.
fn with_segment<T>(path: &mut String, segment: &str, f: impl FnOnce(&mut String) -> T) -> T {
    let length = path.len();
    path.push_str(segment);
    let result = f(path);
    path.truncate(length);
    result
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

/// The WIT name a JSON string picks from `names`: exactly (kebab or snake spelling),
/// then by normalised key when exactly one name shares it.
fn pick_name(names: &[String], value: &Value) -> Option<String> {
    let wanted = value.as_str()?;
    names
        .iter()
        .find(|n| *n == wanted || snake_case(n) == wanted)
        .or_else(|| unique_position(names.iter().map(String::as_str), wanted).map(|i| &names[i]))
        .cloned()
}

fn snake_list(names: &[String]) -> String {
    python_list(&names.iter().map(|n| snake_case(n)).collect::<Vec<_>>())
}

/// What a type looks like in JSON, for error messages.
pub fn expected_words(ty: &WitType) -> String {
    match ty {
        WitType::Bool => "a boolean (true or false)".into(),
        WitType::F32 => "a number of magnitude at most 3.4e38".into(),
        WitType::F64 => "a number".into(),
        WitType::Char => "a single character (a string of length 1)".into(),
        WitType::String => "a string".into(),
        WitType::List(item) => format!("an array whose items are each {}", expected_words(item)),
        WitType::Option(inner) => format!("{} or null", expected_words(inner)),
        WitType::Result { .. } => "an object with one key, \"ok\" or \"err\"".into(),
        WitType::Record(fields) => {
            let names: Vec<String> = fields.iter().map(|f| snake_case(&f.name)).collect();
            format!("an object with the fields {}", python_list(&names))
        }
        WitType::Tuple(types) => format!("an array of exactly {} items", types.len()),
        WitType::Enum(names) => format!("one of {}", snake_list(names)),
        WitType::Flags(names) => format!("an array of flags from {}", snake_list(names)),
        WitType::Variant(cases) => {
            let names: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
            format!("an object {{\"tag\": …, \"value\": …}} whose tag is one of {}", snake_list(&names))
        }
        WitType::Unsupported(what) => format!("a {what}, which cannot be sent as JSON"),
        integer => {
            let (lo, hi) = integer.integer_range().expect("the remaining types are integers");
            format!("an integer between {lo} and {hi}")
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value's JSON text, cut to a readable length.
fn shorten(value: &Value) -> String {
    const LIMIT: usize = 80;
    let text = value.to_string();
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Whether the JSON text of `val` is surely longer than `limit` bytes, judged from a
/// lower bound on its length, without building it: a result far over the limit is
/// refused before its JSON form doubles the memory it takes.
pub fn json_surely_longer_than(val: &Val, limit: usize) -> bool {
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
        Val::Variant(tag, payload) => take(budget, tag.len() + 10) && payload.as_deref().is_none_or(|v| fits_in(v, budget)),
        Val::Option(Some(inner)) => fits_in(inner, budget),
        Val::Option(None) => take(budget, 4),
        Val::Result(Ok(inner) | Err(inner)) => take(budget, 7) && inner.as_deref().is_none_or(|v| fits_in(v, budget)),
        Val::Map(entries) => {
            take(budget, separators(entries.len())) && entries.iter().all(|(k, v)| fits_in(k, budget) && fits_in(v, budget))
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

/// Converts a WIT value returned by a tool into JSON, in the shapes described above.
pub fn to_json(val: &Val) -> Value {
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
