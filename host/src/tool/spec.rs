//! What the host knows about one tool: its names, description and annotations, where
//! it comes from (a component's WIT function or an MCP server's tool, each with the
//! facts only it has), and every view of it a model is given (parameter lists,
//! schemas, definitions). Each origin describes its own arguments and result
//! (`Contract`), so nothing here asks which origin a tool has to answer.

use serde::Serialize;
use serde_json::Value;

use super::annotations::{TaskSupport, ToolAnnotations, title_from_name};
use super::formats::{Definition, ToolFormat};
use super::names::{provider_name, python_list, snake_case};
use super::schema::{object_schema, schema_params, type_schema};
use super::shape::ParamShaping;
use super::types::WitType;

/// One tool, as the model sees it: an exported WIT function, or an MCP server's tool.
///
/// Made by loading; [`ToolSpec::new`] starts one by hand (for
/// [`crate::Registry::from_specs`], say).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The name the model calls the tool by (snake_case), unique in the registry.
    pub name: String,
    /// The component the tool lives in (its file name without `.wasm`), or the MCP
    /// server's name (its file name without `.mcp.toml`).
    pub component: String,
    /// What the tool does, for the model.
    pub description: String,
    /// A human-readable name (the manifest's `title`, else made from the name).
    pub title: String,
    /// What the tool can touch: derived from its grants for a component's tool, as
    /// its server says for an MCP server's.
    pub annotations: ToolAnnotations,
    /// Whether its calls may go on as tasks (MCP's tasks extension).
    pub tasks: TaskSupport,
    /// Where the tool comes from, with what describes its arguments and result.
    pub origin: ToolOrigin,
    /// What the operator set for its parameters: defaults, and values fixed and
    /// hidden from the model (`[tools.NAME]`'s `defaults` and `fixed`).
    pub shaping: ParamShaping,
    /// Other names a call may use for it: its own name, when an operator renamed it
    /// (`[tools.NAME] name = "…"`).
    pub aliases: Vec<String>,
    /// Whether a person approves each call before it runs, whatever the host's
    /// `Approval` says (`[tools.NAME] approval = true`).
    pub approval: bool,
}

/// Where a tool comes from, and the facts only that kind of tool has.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolOrigin {
    /// An exported function of a WebAssembly component, run in the host's sandbox.
    Component(WitFunction),
    /// A tool of an MCP server (a `NAME.mcp.toml` plugin), which runs outside the
    /// host's sandbox.
    McpServer(ServerTool),
    /// An operation of a REST API (a `NAME.openapi.toml` plugin), called over HTTP
    /// outside the host's sandbox; its `remote_name` is its method and path.
    RestApi(ServerTool),
}

/// A component's exported function: where it is, and its WIT signature.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WitFunction {
    /// The exported interface the function sits in (e.g. `example:text/text`), if any.
    pub interface: Option<String>,
    /// The function's WIT name (kebab-case).
    pub wit_name: String,
    /// The parameters, in call order.
    pub params: Vec<ParamSpec>,
    /// The result type, if the function returns anything.
    pub result: Option<WitType>,
}

/// A tool described by JSON Schemas that runs outside the host: an MCP server's tool
/// (the server's own name for it), or a REST API's operation (its method and path).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerTool {
    /// The name the server lists it under (the call is sent under it); for a REST
    /// operation, its method and path (`GET /pet/{petId}`).
    pub remote_name: String,
    /// The JSON Schema of its arguments, as the server sent it.
    pub input_schema: Value,
    /// The JSON Schema of its structured result, if the server sent one.
    pub output_schema: Option<Value>,
}

/// One parameter of a component's tool.
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

impl WitFunction {
    /// The function `wit_name` with these parameters and result, in no interface.
    pub fn new(wit_name: &str, params: Vec<ParamSpec>, result: Option<WitType>) -> WitFunction {
        WitFunction { interface: None, wit_name: wit_name.to_string(), params, result }
    }

    /// What a successful call returns: `T` for `-> T` and `-> result<T, E>`; `None`
    /// when it returns nothing on success.
    fn success_type(&self) -> Option<&WitType> {
        match &self.result {
            Some(WitType::Result { ok, .. }) => ok.as_deref(),
            other => other.as_ref(),
        }
    }
}

impl ServerTool {
    /// The server's tool `remote_name`, its arguments described by `input_schema`.
    pub fn new(remote_name: &str, input_schema: Value, output_schema: Option<Value>) -> ServerTool {
        ServerTool { remote_name: remote_name.to_string(), input_schema, output_schema }
    }
}

/// What describes a tool's arguments and result, answered by each origin for itself.
trait Contract {
    /// Names of the required (`required: true`) or the optional parameters, in order.
    fn param_names(&self, required: bool) -> Vec<&str>;
    /// The JSON Schema of the arguments object.
    fn parameters_schema(&self) -> Value;
    /// The JSON Schema of a successful call's value, if it has one.
    fn result_schema(&self) -> Option<Value>;
    /// The JSON Schema of MCP's structured content, if the tool has some.
    fn output_schema(&self) -> Option<Value>;
    /// A successful call's value as MCP's structured content.
    fn structured_result(&self, value: Value) -> Option<Value>;
    /// `(a: u64, b?: string) -> u64`, for listings.
    fn signature(&self) -> String;
}

impl Contract for WitFunction {
    fn param_names(&self, required: bool) -> Vec<&str> {
        self.params.iter().filter(|p| p.required() == required).map(|p| p.name.as_str()).collect()
    }

    /// One property per parameter, `option<T>` parameters not required, no other
    /// properties allowed.
    fn parameters_schema(&self) -> Value {
        object_schema(self.params.iter().map(|p| (p.name.as_str(), &p.ty, p.description.as_deref())))
    }

    fn result_schema(&self) -> Option<Value> {
        self.success_type().map(type_schema)
    }

    /// A record result's own schema, any other result wrapped as `{"result": …}`.
    fn output_schema(&self) -> Option<Value> {
        match self.success_type()? {
            record @ WitType::Record(_) => Some(type_schema(record)),
            other => Some(object_schema([("result", other, None)])),
        }
    }

    /// A record as it is, anything else as `{"result": value}`.
    fn structured_result(&self, value: Value) -> Option<Value> {
        match self.success_type()? {
            WitType::Record(_) => Some(value),
            _ => Some(serde_json::json!({ "result": value })),
        }
    }

    fn signature(&self) -> String {
        let params: Vec<String> =
            self.params.iter().map(|p| format!("{}{}: {}", p.name, optional_mark(p.required()), p.ty)).collect();
        let result = self.result.as_ref().map(|r| format!(" -> {r}")).unwrap_or_default();
        format!("({}){result}", params.join(", "))
    }
}

impl Contract for ServerTool {
    fn param_names(&self, required: bool) -> Vec<&str> {
        schema_params(&self.input_schema, required)
    }

    fn parameters_schema(&self) -> Value {
        self.input_schema.clone()
    }

    fn result_schema(&self) -> Option<Value> {
        self.output_schema.clone()
    }

    fn output_schema(&self) -> Option<Value> {
        self.output_schema.clone()
    }

    /// The server's structured content as it is, when the tool has an output schema.
    fn structured_result(&self, value: Value) -> Option<Value> {
        self.output_schema.as_ref().map(|_| value)
    }

    /// The JSON Schema types of the top-level properties.
    fn signature(&self) -> String {
        let required = self.param_names(true);
        let properties = self.input_schema.get("properties").and_then(Value::as_object).into_iter().flatten();
        let params: Vec<String> = properties
            .map(|(name, schema)| {
                let ty = schema.get("type").map_or_else(|| "any".to_string(), |t| t.to_string().replace('"', ""));
                format!("{name}{}: {ty}", optional_mark(required.contains(&name.as_str())))
            })
            .collect();
        format!("({})", params.join(", "))
    }
}

/// `?` after an optional parameter's name.
fn optional_mark(required: bool) -> &'static str {
    if required { "" } else { "?" }
}

impl ToolOrigin {
    /// What describes the tool's arguments and result.
    fn contract(&self) -> &dyn Contract {
        match self {
            ToolOrigin::Component(function) => function,
            ToolOrigin::McpServer(tool) | ToolOrigin::RestApi(tool) => tool,
        }
    }
}

impl ToolSpec {
    /// A tool of `component` named `name` (snake_case): a WIT function with no
    /// parameters and no result, no description, a title made from its name and
    /// MCP's worst-case annotations. Set the rest by its fields.
    pub fn new(name: &str, component: &str) -> ToolSpec {
        ToolSpec {
            name: name.to_string(),
            component: component.to_string(),
            description: String::new(),
            title: title_from_name(name),
            annotations: ToolAnnotations::default(),
            tasks: TaskSupport::default(),
            origin: ToolOrigin::Component(WitFunction::new(&name.replace('_', "-"), Vec::new(), None)),
            shaping: ParamShaping::default(),
            aliases: Vec::new(),
            approval: false,
        }
    }

    /// The tool `component` offers as `function`, named for it (snake_case), with a
    /// title made from that name and no description yet.
    pub fn for_function(component: &str, function: WitFunction) -> ToolSpec {
        let name = snake_case(&function.wit_name);
        ToolSpec { origin: ToolOrigin::Component(function), ..ToolSpec::new(&name, component) }
    }

    /// The tool the MCP server `server` lists as `tool`, under the server's name for
    /// it, with a title made from that name and no description yet.
    pub fn for_server_tool(server: &str, tool: ServerTool) -> ToolSpec {
        let spec = ToolSpec::new(&tool.remote_name, server);
        ToolSpec { origin: ToolOrigin::McpServer(tool), ..spec }
    }

    /// The operation `name` of the REST API `api` (its method and path in `tool`),
    /// with a title made from that name and no description yet.
    pub fn for_rest_operation(api: &str, name: &str, tool: ServerTool) -> ToolSpec {
        ToolSpec { origin: ToolOrigin::RestApi(tool), ..ToolSpec::new(name, api) }
    }

    /// Whether the tool runs in the host's sandbox (a component's), or outside it
    /// (an MCP server's, a REST API's).
    pub fn sandboxed(&self) -> bool {
        matches!(self.origin, ToolOrigin::Component(_))
    }

    /// The WIT function behind a component's tool; `None` for an MCP server's.
    pub fn wit_function(&self) -> Option<&WitFunction> {
        match &self.origin {
            ToolOrigin::Component(function) => Some(function),
            ToolOrigin::McpServer(_) | ToolOrigin::RestApi(_) => None,
        }
    }

    /// Names of the required parameters the model is shown, in order.
    pub fn required_params(&self) -> Vec<&str> {
        let required = self.origin.contract().param_names(true).into_iter();
        required.filter(|name| !self.shaping.hides(name) && !self.shaping.defaults(name)).collect()
    }

    /// Names of the optional parameters the model is shown (those with an operator's
    /// default among them), in order.
    pub fn optional_params(&self) -> Vec<&str> {
        let contract = self.origin.contract();
        let defaulted = contract.param_names(true).into_iter().filter(|name| self.shaping.defaults(name));
        let optional = defaulted.chain(contract.param_names(false));
        optional.filter(|name| !self.shaping.hides(name)).collect()
    }

    /// The required and optional parameter names, for an arguments error.
    pub fn expected_parameters(&self) -> ExpectedParameters {
        ExpectedParameters {
            required: self.required_params().into_iter().map(str::to_string).collect(),
            optional: self.optional_params().into_iter().map(str::to_string).collect(),
        }
    }

    /// The JSON Schema of the tool's arguments object: for a component's tool, one
    /// property per parameter, `option<T>` parameters not required, no other
    /// properties allowed; for an MCP server's, the server's own schema.
    pub fn parameters_schema(&self) -> Value {
        self.shaping.shown(self.own_parameters_schema())
    }

    /// The JSON Schema of its arguments as the tool itself declares them: every
    /// parameter, fixed ones too, with no operator's default.
    pub(crate) fn own_parameters_schema(&self) -> Value {
        self.origin.contract().parameters_schema()
    }

    /// The JSON Schema of the value a successful call returns (what [`crate::Host::call`]
    /// gives back); `None` when it returns nothing (an MCP server's tool: when the
    /// server sent no output schema).
    pub fn result_schema(&self) -> Option<Value> {
        self.origin.contract().result_schema()
    }

    /// The JSON Schema of [`ToolSpec::structured_result`]: a record result's own
    /// schema, any other result wrapped as `{"result": …}`; `None` when the tool
    /// returns nothing on success. (An MCP server's tool: the server's own, if any.)
    pub fn output_schema(&self) -> Option<Value> {
        self.origin.contract().output_schema()
    }

    /// A successful call's JSON value as an object (MCP's structured content): a
    /// record as it is, anything else as `{"result": value}`; `None` when the tool
    /// returns nothing on success. (An MCP server's tool: the server's structured
    /// content as it is, when the tool has an output schema.)
    pub fn structured_result(&self, value: Value) -> Option<Value> {
        self.origin.contract().structured_result(value)
    }

    /// The tool's signature for a listing: `(a: u64, b?: string) -> u64`, in WIT
    /// types for a component's tool, in the JSON Schema types of its top-level
    /// properties for an MCP server's.
    pub fn signature(&self) -> String {
        self.origin.contract().signature()
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
