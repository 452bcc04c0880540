//! What the host knows about one tool: its names, description, parameters and result,
//! and every view of it a model is given (parameter lists, schema, definitions).

use serde::Serialize;
use serde_json::Value;

use super::annotations::{ToolAnnotations, title_from_name};
use super::formats::{Definition, ToolFormat};
use super::names::{provider_name, python_list};
use super::schema::{object_schema, schema_params, type_schema};
use super::types::WitType;

/// One tool, as the model sees it: an exported WIT function, or an MCP server's tool.
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
    /// A human-readable name (the manifest's `title`, else made from the name).
    pub title: String,
    /// What the tool can touch: derived from its grants for a component's tool, as
    /// its server says for an MCP server's.
    pub annotations: ToolAnnotations,
    /// Where the tool comes from, and so what describes its arguments.
    pub origin: ToolOrigin,
}

/// Where a tool comes from.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ToolOrigin {
    /// An exported function of a WebAssembly component, run in the host's sandbox;
    /// its WIT signature (`params`, `result`) describes it.
    #[default]
    Component,
    /// A tool of an MCP server (a `NAME.mcp.toml` plugin), which runs outside the
    /// host's sandbox; the server's JSON Schemas describe it (`params` is empty,
    /// `wit_name` is the server's own name for it).
    McpServer {
        /// The JSON Schema of its arguments, as the server sent it.
        input_schema: Value,
        /// The JSON Schema of its structured result, if the server sent one.
        output_schema: Option<Value>,
    },
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
    /// A tool of `component` named `name` (snake_case), with no parameters, no result,
    /// no description, a title made from its name and MCP's worst-case annotations:
    /// a start for specs made by hand (for [`crate::Registry::from_specs`], say).
    pub fn new(name: &str, component: &str) -> ToolSpec {
        ToolSpec {
            name: name.to_string(),
            component: component.to_string(),
            interface: None,
            wit_name: name.replace('_', "-"),
            description: String::new(),
            params: Vec::new(),
            result: None,
            title: title_from_name(name),
            annotations: ToolAnnotations::default(),
            origin: ToolOrigin::Component,
        }
    }

    /// Whether the tool runs in the host's sandbox (a component's), or outside it
    /// (an MCP server's).
    pub fn sandboxed(&self) -> bool {
        matches!(self.origin, ToolOrigin::Component)
    }

    /// Names of the required parameters, in order.
    pub fn required_params(&self) -> Vec<&str> {
        match &self.origin {
            ToolOrigin::Component => self.params.iter().filter(|p| p.required()).map(|p| p.name.as_str()).collect(),
            ToolOrigin::McpServer { input_schema, .. } => schema_params(input_schema, true),
        }
    }

    /// Names of the optional parameters, in order.
    pub fn optional_params(&self) -> Vec<&str> {
        match &self.origin {
            ToolOrigin::Component => self.params.iter().filter(|p| !p.required()).map(|p| p.name.as_str()).collect(),
            ToolOrigin::McpServer { input_schema, .. } => schema_params(input_schema, false),
        }
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
    /// (An MCP server's tool: the server's own schema.)
    pub fn parameters_schema(&self) -> Value {
        match &self.origin {
            ToolOrigin::Component => {
                object_schema(self.params.iter().map(|p| (p.name.as_str(), &p.ty, p.description.as_deref())))
            }
            ToolOrigin::McpServer { input_schema, .. } => input_schema.clone(),
        }
    }

    /// What a successful call returns: `T` for `-> T` and `-> result<T, E>`; `None`
    /// when it returns nothing on success.
    fn success_type(&self) -> Option<&WitType> {
        match &self.result {
            Some(WitType::Result { ok, .. }) => ok.as_deref(),
            other => other.as_ref(),
        }
    }

    /// The JSON Schema of the value a successful call returns (what [`crate::Host::call`]
    /// gives back); `None` when it returns nothing. (An MCP server's tool: the
    /// server's output schema, if it sent one.)
    pub fn result_schema(&self) -> Option<Value> {
        if let ToolOrigin::McpServer { output_schema, .. } = &self.origin {
            return output_schema.clone();
        }
        self.success_type().map(type_schema)
    }

    /// The JSON Schema of [`ToolSpec::structured_result`]: a record result's own
    /// schema, any other result wrapped as `{"result": …}`; `None` when the tool
    /// returns nothing on success. (An MCP server's tool: the server's own, if any.)
    pub fn output_schema(&self) -> Option<Value> {
        if let ToolOrigin::McpServer { output_schema, .. } = &self.origin {
            return output_schema.clone();
        }
        match self.success_type()? {
            record @ WitType::Record(_) => Some(type_schema(record)),
            other => Some(object_schema([("result", other, None)])),
        }
    }

    /// A successful call's JSON value as an object (MCP's structured content): a
    /// record as it is, anything else as `{"result": value}`; `None` when the tool
    /// returns nothing on success. (An MCP server's tool: the server's structured
    /// content as it is, when the tool has an output schema.)
    pub fn structured_result(&self, value: Value) -> Option<Value> {
        if let ToolOrigin::McpServer { output_schema, .. } = &self.origin {
            return output_schema.as_ref().map(|_| value);
        }
        match self.success_type()? {
            WitType::Record(_) => Some(value),
            _ => Some(serde_json::json!({ "result": value })),
        }
    }

    /// The name MCP clients are shown: the registered name, with a component
    /// qualifier's `/` written `__` (MCP tool names are letters, digits, `_`, `-` and
    /// `.`). The host resolves both spellings.
    pub fn model_name(&self) -> String {
        self.name.replace('/', "__")
    }

    /// The name `format` shows a model: MCP's is [`ToolSpec::model_name`]; a
    /// provider's is the registered name in the form every provider's API takes
    /// (`uber.ride` → `uber_ride`; `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`). The host
    /// resolves each back to the tool. (A host's definitions may differ where two
    /// tools' forms collide: see [`crate::Registry::provider_name`].)
    pub fn name_in(&self, format: ToolFormat) -> String {
        match format {
            ToolFormat::Mcp => self.model_name(),
            _ => provider_name(&self.name),
        }
    }

    /// This tool's definition in `format`, named as [`ToolSpec::name_in`] says.
    pub fn definition(&self, format: ToolFormat) -> Value {
        self.definition_named(format, &self.name_in(format))
    }

    /// This tool's definition in `format`, under the name `shown`.
    pub(crate) fn definition_named(&self, format: ToolFormat, shown: &str) -> Value {
        format.definition(Definition {
            name: shown,
            title: &self.title,
            description: &self.description,
            input_schema: self.parameters_schema(),
            output_schema: self.output_schema(),
            annotations: &self.annotations,
        })
    }
}
