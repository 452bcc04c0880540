//! Binding a model's arguments to a tool's WIT signature: argument text read as
//! JSON (strictly, then leniently where it has one reading), the JSON object's keys matched to parameters
//! (names repaired like tool names), and each value converted to a typed WIT value
//! with lossless coercion only. Every misfit is a [`ToolError`] in the model's terms.
//! [`SchemaBinder`] does the same for a tool described by a JSON Schema instead (an
//! MCP server's tool).
//!
//! ```no_run
//! # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
//! let spec = host.tool("factorial").expect("the example tools are loaded");
//! let arguments = toolhost::bind::parse_arguments(&spec, "{n: '5',}")?;
//! toolhost::bind::check_arguments(&spec, &arguments)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod lenient;
mod schema;
mod text;
mod value;
mod wording;

use serde_json::{Map, Value};
use wasmtime::component::Val;

pub use schema::SchemaBinder;
pub(crate) use text::parse_repaired as read_json_text;
pub(crate) use value::{Walk, to_val};
pub(crate) use wording::{not_an_object, shorten_text};

use crate::error::ToolError;
use crate::tool::names::match_name;
use crate::tool::{ParamSpec, Repair, ToolOrigin, ToolSpec, WitFunction};
use text::ArgumentsError;

/// Arguments as a model gave them: a JSON value, or the text it wrote.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arguments<'a> {
    /// Already JSON.
    Json(&'a Value),
    /// Text to read as JSON first.
    Text(&'a str),
}

/// Checks a model's arguments against a tool's parameters, as a call would before
/// running the tool: names repaired, values coerced losslessly and type-checked
/// (against its WIT signature, or an MCP server's tool against its JSON Schema).
pub fn check_arguments(spec: &ToolSpec, arguments: &Value) -> Result<(), ToolError> {
    match &spec.origin {
        ToolOrigin::Component(function) => bind_arguments(spec, function, arguments, &mut Vec::new()).map(drop),
        ToolOrigin::McpServer(tool) | ToolOrigin::RestApi(tool) => {
            let binder = SchemaBinder::new(tool.input_schema.clone());
            bind_for_server(&binder, spec, &spec.name, Arguments::Json(arguments), &mut Vec::new()).map(drop)
        }
    }
}

/// Reads a model's argument text for the tool `spec` and checks it as a call would,
/// recording in `repairs` what had to be repaired (the text, keys, values): the
/// arguments as read, and as bound.
pub(crate) fn check_text(spec: &ToolSpec, text: &str, repairs: &mut Vec<Repair>) -> Result<(Value, Bound), ToolError> {
    let arguments = read_arguments(&spec.name, text, repairs).map_err(|problem| invalid_arguments(spec, problem))?;
    let bound = match &spec.origin {
        ToolOrigin::Component(function) => Bound::Values(bind_arguments(spec, function, &arguments, repairs)?),
        ToolOrigin::McpServer(tool) | ToolOrigin::RestApi(tool) => {
            let binder = SchemaBinder::new(tool.input_schema.clone());
            Bound::Json(bind_for_server(&binder, spec, &spec.name, Arguments::Json(&arguments), repairs)?)
        }
    };
    Ok((arguments, bound))
}

/// Arguments as bound: a component's values, one per parameter in order, or the
/// JSON an MCP server's tool is sent.
pub(crate) enum Bound {
    Values(Vec<Val>),
    Json(Value),
}

/// Reads argument text as a model wrote it: strict JSON, else read leniently where
/// the text has one reading (README "What the host repairs"); an error quotes where
/// the text broke.
pub fn parse_arguments(spec: &ToolSpec, text: &str) -> Result<Value, ToolError> {
    read_arguments(&spec.name, text, &mut Vec::new()).map_err(|problem| invalid_arguments(spec, problem))
}

/// Argument text read as JSON for `tool`, with the repair it needed recorded; else
/// the sentence saying why it cannot be read.
pub(crate) fn read_arguments(tool: &str, text: &str, repairs: &mut Vec<Repair>) -> Result<Value, String> {
    match text::parse_repaired(text) {
        Ok((value, repair)) => {
            repairs.extend(repair.map(|how| Repair::ArgumentText { how }));
            Ok(value)
        }
        Err(ArgumentsError::NotJson(why)) => Err(format!("The arguments for '{tool}' are not valid JSON: {why}.")),
        Err(ArgumentsError::DuplicateKey(key)) => Err(called_twice(tool, &key, None)),
    }
}

/// Binds arguments, JSON or text, to the parameters of `function`, the WIT function
/// of the tool `spec`, in call order; what had to be repaired is added to `repairs`.
pub(crate) fn bind(
    spec: &ToolSpec,
    function: &WitFunction,
    arguments: Arguments<'_>,
    repairs: &mut Vec<Repair>,
) -> Result<Vec<Val>, ToolError> {
    match arguments {
        Arguments::Json(value) => bind_arguments(spec, function, value, repairs),
        Arguments::Text(text) => {
            let value =
                read_arguments(&spec.name, text, repairs).map_err(|problem| invalid_arguments(spec, problem))?;
            bind_arguments(spec, function, &value, repairs)
        }
    }
}

/// Binds a model's JSON arguments to the parameters of `function`, in call order.
fn bind_arguments(
    spec: &ToolSpec,
    function: &WitFunction,
    arguments: &Value,
    repairs: &mut Vec<Repair>,
) -> Result<Vec<Val>, ToolError> {
    let params = &function.params;
    let shaped = shaped(spec, arguments)?;
    let given = assign_to_params(spec, params, arguments_object(spec, &shaped)?, repairs)?;
    params.iter().zip(given).map(|(param, value)| bind_param(spec, param, value, repairs)).collect()
}

/// Binds arguments, JSON or text, for an MCP server's tool `spec` (called `tool`)
/// with `binder`, its input schema compiled: the operator's defaults and fixed
/// values filled in first, and an error naming the parameters the model is shown.
pub(crate) fn bind_for_server(
    binder: &SchemaBinder,
    spec: &ToolSpec,
    tool: &str,
    arguments: Arguments<'_>,
    repairs: &mut Vec<Repair>,
) -> Result<Value, ToolError> {
    if spec.shaping.is_empty() {
        return binder.bind_arguments(tool, arguments, repairs);
    }
    let read;
    let value = match arguments {
        Arguments::Json(value) => value,
        Arguments::Text(text) => {
            read = read_arguments(tool, text, repairs).map_err(|problem| invalid_arguments(spec, problem))?;
            &read
        }
    };
    binder.bind_into(tool, shaped(spec, value)?.as_ref(), repairs).map_err(|error| match error {
        ToolError::InvalidArguments { tool, problem, .. } => {
            ToolError::InvalidArguments { tool, problem, expected_parameters: Some(spec.expected_parameters()) }
        }
        other => other,
    })
}

/// The arguments with the operator's defaults and fixed values filled in (see
/// [`crate::ParamShaping`]); a fixed parameter the model sent is an error.
fn shaped<'a>(spec: &ToolSpec, arguments: &'a Value) -> Result<std::borrow::Cow<'a, Value>, ToolError> {
    if spec.shaping.is_empty() {
        return Ok(std::borrow::Cow::Borrowed(arguments));
    }
    let filled = spec.shaping.fill(&spec.name, arguments).map_err(|problem| invalid_arguments(spec, problem))?;
    Ok(std::borrow::Cow::Owned(filled))
}

/// The arguments as an object; `null` counts as no arguments.
fn arguments_object<'a>(spec: &ToolSpec, arguments: &'a Value) -> Result<&'a Map<String, Value>, ToolError> {
    static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    match arguments {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(&EMPTY),
        other => Err(invalid_arguments(spec, not_an_object(&spec.name, other))),
    }
}

/// Each parameter's value, by matching every key to one parameter; a key given twice,
/// an unknown key or a missing required parameter is an error listing them all. An
/// empty-named key with an empty value (`"": ""`, which some models send to a tool
/// without parameters) is dropped when no parameter has that name.
fn assign_to_params<'a>(
    spec: &ToolSpec,
    params: &[ParamSpec],
    object: &'a Map<String, Value>,
    repairs: &mut Vec<Repair>,
) -> Result<Vec<Option<&'a Value>>, ToolError> {
    let mut given: Vec<Option<(&str, &Value)>> = vec![None; params.len()];
    let mut unexpected = Vec::new();
    for (key, value) in object {
        let Some(index) = match_name(params.iter().map(|p| p.name.as_str()), key).one() else {
            match empty_key_dropped(key, value) {
                Some(repair) => repairs.push(repair),
                None => unexpected.push(key.as_str()),
            }
            continue;
        };
        if let Some((first, _)) = given[index] {
            return Err(invalid_arguments(spec, called_twice(&spec.name, &params[index].name, Some((first, key)))));
        }
        if *key != params[index].name {
            repairs.push(Repair::Key { path: key.clone(), from: key.clone(), to: params[index].name.clone() });
        }
        given[index] = Some((key, value));
    }
    let missing: Vec<&str> = params
        .iter()
        .zip(&given)
        .filter(|(param, value)| param.required() && value.is_none_or(|(_, v)| v.is_null()))
        .map(|(param, _)| param.name.as_str())
        .collect();
    if !missing.is_empty() || !unexpected.is_empty() {
        return Err(invalid_arguments(spec, wording::misfit(&spec.name, &missing, &unexpected)));
    }
    Ok(given.into_iter().map(|value| value.map(|(_, v)| v)).collect())
}

/// The repair that drops `key` when it is empty and so is its value (`""`, `null`,
/// `{}`, `[]`); `None` for any other key.
pub(crate) fn empty_key_dropped(key: &str, value: &Value) -> Option<Repair> {
    let empty = match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    };
    (key.is_empty() && empty).then(|| Repair::EmptyKeyDropped { value: value.to_string() })
}

/// One parameter's value (absent is `null`) as a WIT value.
fn bind_param(
    spec: &ToolSpec,
    param: &ParamSpec,
    value: Option<&Value>,
    repairs: &mut Vec<Repair>,
) -> Result<Val, ToolError> {
    let value = value.unwrap_or(&Value::Null);
    let mut walk = Walk::at(&param.name);
    let bound = to_val(value, &param.ty, &mut walk).map_err(|m| ToolError::InvalidValue {
        tool: spec.name.clone(),
        path: m.path,
        expected: m.expected,
        got: m.got,
    })?;
    repairs.append(&mut walk.repairs);
    Ok(bound)
}

/// The error for arguments that do not fit `spec`'s parameters, with the parameters it expects.
fn invalid_arguments(spec: &ToolSpec, problem: String) -> ToolError {
    ToolError::InvalidArguments {
        tool: spec.name.clone(),
        problem,
        expected_parameters: Some(spec.expected_parameters()),
    }
}

/// The sentence for a parameter sent twice, with the two spellings when they differ.
fn called_twice(tool: &str, param: &str, spellings: Option<(&str, &str)>) -> String {
    let spellings = spellings.map(|(first, second)| format!(" (as '{first}' and '{second}')")).unwrap_or_default();
    format!("Tool '{tool}' was called with parameter '{param}' twice{spellings}.")
}
