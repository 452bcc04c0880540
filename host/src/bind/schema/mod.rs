//! Binding a model's arguments to a JSON Schema (an MCP tool's `inputSchema`) by the
//! rules, and in the words, used for a WIT signature: arguments are repaired
//! (parameter and field names, lossless coercion, enum values in another spelling)
//! and checked; arguments the schema accepts are never refused; what does not fit is
//! a [`ToolError`] naming the JSON path and what was expected there.
//!
//! The checking is the `jsonschema` crate's (every draft, `$ref`, bounds, patterns;
//! `format` is not asserted, as 2020-12 says); the repairs are `repair.rs`'s and the
//! words `words.rs`'s. A schema it cannot compile is no reason to drop a tool: its
//! arguments then go through unchecked, and [`SchemaBinder::unreadable`] says why.
//!
//! ```
//! use serde_json::json;
//! use toolhost::bind::SchemaBinder;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"max_results": {"type": "integer", "minimum": 1}},
//!     "required": ["max_results"],
//!     "additionalProperties": false,
//! });
//! let binder = SchemaBinder::new(schema);
//! assert_eq!(binder.bind("search", &json!({"MaxResults": "5"}))?, json!({"max_results": 5}));
//! let refused = binder.bind("search", &json!({"max_results": 0})).unwrap_err();
//! assert_eq!(
//!     refused.to_string(),
//!     "Invalid arguments for 'search': 'max_results' must be an integer of at least 1, got 0."
//! );
//! # Ok::<(), toolhost::ToolError>(())
//! ```

mod repair;
mod words;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::{Map, Value};

use super::wording::{misfit, not_an_object};
use super::{Arguments, called_twice, empty_key_dropped, read_arguments};
use crate::error::ToolError;
use crate::tool::names::match_name;
use crate::tool::schema_params;
use crate::tool::{ExpectedParameters, Repair};

/// A tool's JSON Schema for its arguments, compiled once, and the binding to it.
pub struct SchemaBinder {
    schema: Value,
    validator: Result<Validator, String>,
}

impl std::fmt::Debug for SchemaBinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaBinder").field("schema", &self.schema).field("unreadable", &self.unreadable()).finish()
    }
}

impl SchemaBinder {
    /// Compiles `schema`. Never fails: a schema that cannot be compiled (an unknown
    /// draft, a `$ref` outside it, a bad pattern) lets every argument through.
    pub fn new(schema: Value) -> SchemaBinder {
        let validator = jsonschema::options()
            .should_validate_formats(false)
            .build(&schema)
            .map_err(|error| format!("its input schema cannot be read ({error}), so its arguments go unchecked"));
        SchemaBinder { schema, validator }
    }

    /// The schema, as the tool's server gave it.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Why the schema cannot be used to check arguments, when it cannot.
    pub fn unreadable(&self) -> Option<&str> {
        self.validator.as_ref().err().map(String::as_str)
    }

    /// The top-level properties: those the schema requires (listed in the order of
    /// its `properties`, whatever the order of `required`), then the others.
    pub fn expected_parameters(&self) -> ExpectedParameters {
        let names = |required| schema_params(&self.schema, required).into_iter().map(str::to_string).collect();
        ExpectedParameters { required: names(true), optional: names(false) }
    }

    /// The arguments to send the tool: repaired to what the schema accepts (a key
    /// the schema does not name, standing for one it does, renamed even where the
    /// schema would take it as it is), else as given when the schema accepts that,
    /// else the error that tells the model what to change. `null` counts as none.
    pub fn bind(&self, tool: &str, arguments: &Value) -> Result<Value, ToolError> {
        self.bind_into(tool, arguments, &mut Vec::new())
    }

    /// [`SchemaBinder::bind`], also saying what was repaired.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolhost::bind::SchemaBinder;
    ///
    /// let schema = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}});
    /// let (bound, repairs) = SchemaBinder::new(schema).bind_repaired("t", &json!({"tags": "news"}))?;
    /// assert_eq!(bound, json!({"tags": ["news"]}));
    /// assert_eq!(repairs[0].to_string(), "'tags' wrapped in a list");
    /// # Ok::<(), toolhost::ToolError>(())
    /// ```
    pub fn bind_repaired(&self, tool: &str, arguments: &Value) -> Result<(Value, Vec<Repair>), ToolError> {
        let mut repairs = Vec::new();
        let bound = self.bind_into(tool, arguments, &mut repairs)?;
        Ok((bound, repairs))
    }

    /// [`SchemaBinder::bind`], with what was repaired added to `repairs`.
    pub(crate) fn bind_into(
        &self,
        tool: &str,
        arguments: &Value,
        repairs: &mut Vec<Repair>,
    ) -> Result<Value, ToolError> {
        let given = match arguments {
            Value::Object(map) => map,
            Value::Null => &Map::new(),
            other => {
                return Err(self.invalid_arguments(tool, not_an_object(tool, other)));
            }
        };
        let arguments = Value::Object(self.without_empty_keys(given, repairs));
        let Ok(validator) = &self.validator else { return Ok(arguments) };
        let accepted = validator.is_valid(&arguments);
        if !accepted {
            self.refuse_parameters_given_twice(tool, given)?;
        }
        // Repaired even when accepted: an open object takes `Query` as a key of its
        // own, and the server would never see the `query` the model meant.
        let mut mend = repair::Mend::new(&self.schema, !accepted);
        let repaired = mend.value(arguments.clone(), &self.schema);
        if repaired == arguments && accepted {
            return Ok(arguments);
        }
        match self.refusal(tool, validator, &repaired) {
            None => {
                repairs.append(&mut mend.log);
                Ok(repaired)
            }
            // A value the schema accepts is never refused, even if its repair would be.
            Some(_) if accepted => Ok(arguments),
            Some(refusal) => Err(refusal),
        }
    }

    /// `given` without an empty-named key whose value is empty (see
    /// [`crate::bind`]'s rule), unless the schema has a property of that name.
    fn without_empty_keys(&self, given: &Map<String, Value>, repairs: &mut Vec<Repair>) -> Map<String, Value> {
        let dropped = given.get("").filter(|_| !self.properties().any(str::is_empty));
        let Some(repair) = dropped.and_then(|value| empty_key_dropped("", value)) else { return given.clone() };
        repairs.push(repair);
        given.iter().filter(|(key, _)| !key.is_empty()).map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// [`SchemaBinder::bind`] for argument text as a model wrote it, read as JSON
    /// first (leniently where strict parsing fails, as for WIT tools).
    pub fn bind_text(&self, tool: &str, text: &str) -> Result<Value, ToolError> {
        self.bind_text_into(tool, text, &mut Vec::new())
    }

    /// Binds `arguments`, JSON or text, with what was repaired added to `repairs`.
    pub(crate) fn bind_arguments(
        &self,
        tool: &str,
        arguments: Arguments<'_>,
        repairs: &mut Vec<Repair>,
    ) -> Result<Value, ToolError> {
        match arguments {
            Arguments::Json(value) => self.bind_into(tool, value, repairs),
            Arguments::Text(text) => self.bind_text_into(tool, text, repairs),
        }
    }

    /// [`SchemaBinder::bind_text`], with what was repaired added to `repairs`.
    pub(crate) fn bind_text_into(&self, tool: &str, text: &str, repairs: &mut Vec<Repair>) -> Result<Value, ToolError> {
        let arguments = read_arguments(tool, text, repairs).map_err(|problem| self.invalid_arguments(tool, problem))?;
        self.bind_into(tool, &arguments, repairs)
    }

    fn properties(&self) -> impl Iterator<Item = &str> {
        self.schema.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.keys().map(String::as_str))
    }

    /// Two keys naming the same parameter (`query` and `Query`) are refused, as for a
    /// WIT tool, rather than one of them picked.
    fn refuse_parameters_given_twice(&self, tool: &str, given: &Map<String, Value>) -> Result<(), ToolError> {
        let names: Vec<&str> = self.properties().collect();
        let mut seen: Vec<(usize, &str)> = Vec::new();
        for key in given.keys() {
            let Some(index) = match_name(names.iter().copied(), key).one() else { continue };
            if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == index) {
                return Err(self.invalid_arguments(tool, called_twice(tool, names[index], Some((first, key)))));
            }
            seen.push((index, key));
        }
        Ok(())
    }

    /// What is wrong with `arguments`, if the schema refuses them: the missing and
    /// unexpected parameters, all at once; else the first value that does not fit.
    fn refusal(&self, tool: &str, validator: &Validator, arguments: &Value) -> Option<ToolError> {
        let errors: Vec<ValidationError<'_>> = validator.iter_errors(arguments).filter(refuses).collect();
        let (mut missing, mut unexpected) = (Vec::new(), Vec::new());
        for error in errors.iter().filter(|e| e.instance_path().as_str().is_empty()) {
            match error.kind() {
                ValidationErrorKind::Required { property } => missing.extend(property.as_str()),
                ValidationErrorKind::AdditionalProperties { unexpected: keys }
                | ValidationErrorKind::UnevaluatedProperties { unexpected: keys } => {
                    unexpected.extend(keys.iter().map(String::as_str));
                }
                _ => {}
            }
        }
        if !missing.is_empty() || !unexpected.is_empty() {
            return Some(self.invalid_arguments(tool, misfit(tool, &missing, &unexpected)));
        }
        let error = errors.first()?;
        let misfit = words::Misfit::of(&self.schema, error);
        Some(ToolError::InvalidValue {
            tool: tool.to_string(),
            path: misfit.path,
            expected: misfit.expected,
            got: misfit.got,
        })
    }

    fn invalid_arguments(&self, tool: &str, problem: String) -> ToolError {
        ToolError::InvalidArguments {
            tool: tool.to_string(),
            problem,
            expected_parameters: Some(self.expected_parameters()),
        }
    }
}

/// Whether an error says the value does not fit, rather than that it could not be
/// checked (a pattern too costly to run, a reference that cannot be followed): only
/// the first kind refuses a call.
fn refuses(error: &ValidationError<'_>) -> bool {
    !matches!(
        error.kind(),
        ValidationErrorKind::BacktrackLimitExceeded { .. }
            | ValidationErrorKind::RegexEngineFailure { .. }
            | ValidationErrorKind::Referencing(_)
    )
}

#[cfg(test)]
mod tests;
