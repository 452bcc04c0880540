//! Binding a model's arguments to a tool's WIT signature: argument text read as
//! JSON (repaired conservatively), the JSON object's keys matched to parameters
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

mod schema;
mod text;
mod value;
mod wording;

use serde_json::{Map, Value};
use wasmtime::component::Val;

pub use schema::SchemaBinder;
pub(crate) use text::parse_repaired as read_json_text;
pub(crate) use value::to_val;
pub(crate) use wording::{not_an_object, shorten_text};

use crate::error::ToolError;
use crate::tool::names::match_name;
use crate::tool::{ParamSpec, ToolSpec};
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
/// running the tool: names repaired, values coerced losslessly and type-checked.
pub fn check_arguments(spec: &ToolSpec, arguments: &Value) -> Result<(), ToolError> {
    bind_arguments(spec, arguments).map(drop)
}

/// Reads argument text as a model wrote it: strict JSON, else repaired
/// conservatively (code fences, trailing commas, single quotes, unquoted keys,
/// missing closing brackets); an error quotes where the text broke.
pub fn parse_arguments(spec: &ToolSpec, text: &str) -> Result<Value, ToolError> {
    text::parse(text).map_err(|error| {
        let problem = match error {
            ArgumentsError::NotJson(why) => format!("The arguments for '{}' are not valid JSON: {why}.", spec.name),
            ArgumentsError::DuplicateKey(key) => called_twice(&spec.name, &key, None),
        };
        invalid_arguments(spec, problem)
    })
}

/// Binds arguments, JSON or text, to the parameters of `spec`, in call order.
pub(crate) fn bind(spec: &ToolSpec, arguments: Arguments<'_>) -> Result<Vec<Val>, ToolError> {
    match arguments {
        Arguments::Json(value) => bind_arguments(spec, value),
        Arguments::Text(text) => bind_arguments(spec, &parse_arguments(spec, text)?),
    }
}

/// Binds a model's JSON arguments to the parameters of `spec`, in call order.
fn bind_arguments(spec: &ToolSpec, arguments: &Value) -> Result<Vec<Val>, ToolError> {
    let given = assign_to_params(spec, arguments_object(spec, arguments)?)?;
    spec.params.iter().zip(given).map(|(param, value)| bind_param(spec, param, value)).collect()
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
/// an unknown key or a missing required parameter is an error listing them all.
fn assign_to_params<'a>(spec: &ToolSpec, object: &'a Map<String, Value>) -> Result<Vec<Option<&'a Value>>, ToolError> {
    let mut given: Vec<Option<(&str, &Value)>> = vec![None; spec.params.len()];
    let mut unexpected = Vec::new();
    for (key, value) in object {
        let Some(index) = match_name(spec.params.iter().map(|p| p.name.as_str()), key).one() else {
            unexpected.push(key.as_str());
            continue;
        };
        if let Some((first, _)) = given[index] {
            return Err(invalid_arguments(
                spec,
                called_twice(&spec.name, &spec.params[index].name, Some((first, key))),
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
        return Err(invalid_arguments(spec, wording::misfit(&spec.name, &missing, &unexpected)));
    }
    Ok(given.into_iter().map(|value| value.map(|(_, v)| v)).collect())
}

/// One parameter's value (absent is `null`) as a WIT value.
fn bind_param(spec: &ToolSpec, param: &ParamSpec, value: Option<&Value>) -> Result<Val, ToolError> {
    let value = value.unwrap_or(&Value::Null);
    to_val(value, &param.ty, &mut param.name.clone()).map_err(|m| ToolError::InvalidValue {
        tool: spec.name.clone(),
        path: m.path,
        expected: m.expected,
        got: m.got,
    })
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
