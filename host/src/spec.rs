//! What the host knows about one tool: its names, description, parameters and result.

use crate::error::ExpectedParameters;
use crate::types::WitType;

/// One tool: an exported WIT function, as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls the tool by (snake_case), unique in the registry.
    pub name: String,
    /// The component the tool lives in (its file name without `.wasm`).
    pub component: String,
    /// The exported interface the function sits in (e.g. `example:text/text`), if any.
    pub interface: Option<String>,
    /// The function's WIT name (kebab-case).
    pub wit_name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The parameters, in call order.
    pub params: Vec<ParamSpec>,
    /// The result type, if the function returns anything.
    pub result: Option<WitType>,
}

/// One parameter of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSpec {
    /// The name the model uses (snake_case).
    pub name: String,
    /// The parameter's type. An `option<T>` parameter is optional.
    pub ty: WitType,
    /// What the parameter means, when the tool's docs say.
    pub description: Option<String>,
}

impl ParamSpec {
    /// Whether the model must send this parameter (everything but `option<T>`).
    pub fn required(&self) -> bool {
        !matches!(self.ty, WitType::Option(_))
    }
}

impl ToolSpec {
    /// Names of the required parameters, in order.
    pub fn required_params(&self) -> Vec<&str> {
        self.params.iter().filter(|p| p.required()).map(|p| p.name.as_str()).collect()
    }

    /// Checks a model's arguments against the parameters, as a call would before
    /// running the tool: names repaired, values coerced losslessly and type-checked.
    pub fn check_arguments(&self, arguments: &serde_json::Value) -> Result<(), crate::ToolError> {
        crate::bind::bind_arguments(self, arguments).map(drop)
    }

    /// Reads argument text as a model wrote it: strict JSON, else repaired
    /// conservatively; an error quotes where the text broke.
    pub fn parse_arguments(&self, text: &str) -> Result<serde_json::Value, crate::ToolError> {
        use crate::arguments::{ArgumentsError, parse};
        parse(text).map_err(|error| {
            let problem = match error {
                ArgumentsError::NotJson(why) => format!("The arguments for '{}' are not valid JSON: {why}.", self.name),
                ArgumentsError::DuplicateKey(key) => format!("Tool '{}' was called with parameter '{key}' twice.", self.name),
            };
            crate::ToolError::InvalidArguments {
                tool: self.name.clone(),
                problem,
                expected_parameters: Some(self.expected_parameters()),
            }
        })
    }

    /// The required and optional parameter names, for an arguments error.
    pub fn expected_parameters(&self) -> ExpectedParameters {
        ExpectedParameters {
            required: self.required_params().into_iter().map(str::to_string).collect(),
            optional: self.optional_params().into_iter().map(str::to_string).collect(),
        }
    }

    /// Names of the optional parameters, in order.
    pub fn optional_params(&self) -> Vec<&str> {
        self.params.iter().filter(|p| !p.required()).map(|p| p.name.as_str()).collect()
    }
}
