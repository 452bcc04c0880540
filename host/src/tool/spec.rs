//! What the host knows about one tool: its names, description, parameters and result,
//! and every view of it a model is given (parameter lists, schema, definitions).

use serde::Serialize;
use serde_json::Value;

use super::formats::ToolFormat;
use super::names::python_list;
use super::schema::object_schema;
use super::types::WitType;

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

/// The parameters a tool expects, for an arguments error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExpectedParameters {
    /// Parameters the model must send.
    pub required: Vec<String>,
    /// Parameters the model may leave out.
    pub optional: Vec<String>,
}

impl ExpectedParameters {
    /// The sentence that tells the model how to call `tool`.
    pub fn hint(&self, tool: &str) -> String {
        format!(
            "Expected parameters for '{tool}' — required: {}, optional: {}.",
            python_list(&self.required),
            python_list(&self.optional)
        )
    }
}

impl ToolSpec {
    /// Names of the required parameters, in order.
    pub fn required_params(&self) -> Vec<&str> {
        self.params.iter().filter(|p| p.required()).map(|p| p.name.as_str()).collect()
    }

    /// Names of the optional parameters, in order.
    pub fn optional_params(&self) -> Vec<&str> {
        self.params.iter().filter(|p| !p.required()).map(|p| p.name.as_str()).collect()
    }

    /// The required and optional parameter names, for an arguments error.
    pub fn expected_parameters(&self) -> ExpectedParameters {
        ExpectedParameters {
            required: self.required_params().into_iter().map(str::to_string).collect(),
            optional: self.optional_params().into_iter().map(str::to_string).collect(),
        }
    }

    /// The JSON Schema of the tool's arguments object: one property per parameter,
    /// `option<T>` parameters not required, no other properties allowed.
    pub fn parameters_schema(&self) -> Value {
        object_schema(self.params.iter().map(|p| (p.name.as_str(), &p.ty, p.description.as_deref())))
    }

    /// The name to show a model: the registered name, with a component qualifier's
    /// `/` written `__` because providers allow only `[A-Za-z0-9_-]` in tool names.
    /// The host resolves both spellings.
    pub fn model_name(&self) -> String {
        self.name.replace('/', "__")
    }

    /// This tool's definition in `format`.
    pub fn definition(&self, format: ToolFormat) -> Value {
        format.definition(&self.model_name(), &self.description, self.parameters_schema())
    }
}
