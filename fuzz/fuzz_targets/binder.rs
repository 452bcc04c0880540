//! Arbitrary JSON bound to arbitrary WIT types (every kind a parameter can have,
//! nested): never a panic, and every refused value named by its JSON path.

#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use toolhost::{Case, Field, ParamSpec, ToolError, ToolSpec, WitFunction, WitType, bind};

/// Names that collide after normalisation, so repair meets ambiguity.
const NAMES: [&str; 8] = ["a", "b-c", "bc", "b_c", "tag", "value", "ok", "max-results"];

fn names(u: &mut Unstructured<'_>) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for _ in 0..u.int_in_range(1..=4)? {
        let name = u.choose(&NAMES)?.to_string();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

fn wit_type(u: &mut Unstructured<'_>, depth: u32) -> Result<WitType> {
    if depth == 0 || u.ratio(1, 2)? {
        return Ok(match u.int_in_range(0..=14)? {
            0 => WitType::Bool,
            1 => WitType::S8,
            2 => WitType::U8,
            3 => WitType::S16,
            4 => WitType::U16,
            5 => WitType::S32,
            6 => WitType::U32,
            7 => WitType::S64,
            8 => WitType::U64,
            9 => WitType::F32,
            10 => WitType::F64,
            11 => WitType::Char,
            12 => WitType::String,
            13 => WitType::Enum(names(u)?),
            _ => WitType::Flags(names(u)?),
        });
    }
    let inner = |u: &mut Unstructured<'_>| wit_type(u, depth - 1).map(Box::new);
    Ok(match u.int_in_range(0..=5)? {
        0 => WitType::List(inner(u)?),
        1 => WitType::Option(inner(u)?),
        2 => WitType::Result {
            ok: if u.arbitrary()? { Some(inner(u)?) } else { None },
            err: if u.arbitrary()? { Some(inner(u)?) } else { None },
        },
        3 => WitType::Record(
            names(u)?.into_iter().map(|name| Ok(Field { name, ty: wit_type(u, depth - 1)? })).collect::<Result<_>>()?,
        ),
        4 => WitType::Tuple((0..u.int_in_range(1..=3)?).map(|_| wit_type(u, depth - 1)).collect::<Result<_>>()?),
        _ => WitType::Variant(
            names(u)?
                .into_iter()
                .map(|name| Ok(Case { name, ty: if u.arbitrary()? { Some(wit_type(u, depth - 1)?) } else { None } }))
                .collect::<Result<_>>()?,
        ),
    })
}

fn json_value(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    let leaf = depth == 0 || u.ratio(1, 2)?;
    Ok(match u.int_in_range(0..=if leaf { 7 } else { 9 })? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.arbitrary::<i64>()?),
        3 => json!(u.arbitrary::<u64>()?),
        4 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 => Value::String(u.arbitrary()?),
        6 => Value::String(u.choose(&NAMES)?.to_string()),
        7 => Value::String(u.arbitrary::<i64>()?.to_string()),
        8 => Value::Array((0..u.int_in_range(0..=4)?).map(|_| json_value(u, depth - 1)).collect::<Result<_>>()?),
        _ => {
            let mut object = Map::new();
            for _ in 0..u.int_in_range(0..=4)? {
                object.insert(u.choose(&NAMES)?.to_string(), json_value(u, depth - 1)?);
            }
            Value::Object(object)
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(ty), Ok(value)) = (wit_type(&mut u, 3), json_value(&mut u, 4)) else { return };
    let params = vec![ParamSpec { name: "x".into(), ty, description: None }];
    let spec = ToolSpec::for_function("fuzz", WitFunction::new("tool", params, None));
    match bind::check_arguments(&spec, &json!({ "x": value })) {
        Ok(()) => {}
        Err(ToolError::InvalidValue { path, expected, .. }) => {
            assert!(path == "x" || path.starts_with("x.") || path.starts_with("x["), "a value refused at {path}");
            assert!(!expected.is_empty());
        }
        // A `null` for a required parameter is a missing argument.
        Err(ToolError::InvalidArguments { problem, .. }) => {
            assert!(problem.contains("missing required parameter 'x'"), "{problem}");
        }
        Err(other) => panic!("binding failed otherwise than on its arguments: {other:?}"),
    }
});
