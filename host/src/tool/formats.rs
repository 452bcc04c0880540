//! The registry rendered in the tool formats agents send to models: OpenAI chat
//! completions, OpenAI responses, Anthropic messages, and MCP `tools/list`.

use serde_json::{Value, json};

use super::annotations::ToolAnnotations;

/// A provider's format for tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFormat {
    /// OpenAI chat completions: `{"type": "function", "function": {name, description, parameters}}`.
    OpenAiChat,
    /// OpenAI responses: `{"type": "function", name, description, parameters}`.
    OpenAiResponses,
    /// Anthropic messages: `{name, description, input_schema}`.
    Anthropic,
    /// MCP `tools/list` entries: `{name, title, description, inputSchema,
    /// outputSchema, annotations}` (`outputSchema` when the tool returns something).
    Mcp,
}

impl ToolFormat {
    /// Every format, for listings.
    pub const ALL: [ToolFormat; 4] =
        [ToolFormat::OpenAiChat, ToolFormat::OpenAiResponses, ToolFormat::Anthropic, ToolFormat::Mcp];

    /// Parses a format name: `openai` (chat), `openai-responses`, `anthropic`, `mcp`.
    pub fn from_name(name: &str) -> Option<ToolFormat> {
        match name.to_ascii_lowercase().as_str() {
            "openai" | "openai-chat" => Some(ToolFormat::OpenAiChat),
            "openai-responses" | "responses" => Some(ToolFormat::OpenAiResponses),
            "anthropic" | "claude" => Some(ToolFormat::Anthropic),
            "mcp" => Some(ToolFormat::Mcp),
            _ => None,
        }
    }

    /// The format's name, as [`ToolFormat::from_name`] and `parse` read it.
    pub fn name(self) -> &'static str {
        match self {
            ToolFormat::OpenAiChat => "openai",
            ToolFormat::OpenAiResponses => "openai-responses",
            ToolFormat::Anthropic => "anthropic",
            ToolFormat::Mcp => "mcp",
        }
    }

    /// A tool's definition in this format. Only MCP has fields for the title, the
    /// output schema and the annotations.
    pub(crate) fn definition(self, tool: Definition<'_>) -> Value {
        let (name, description, schema) = (tool.name, tool.description, tool.input_schema);
        match self {
            ToolFormat::OpenAiChat => json!({
                "type": "function",
                "function": { "name": name, "description": description, "parameters": schema },
            }),
            ToolFormat::OpenAiResponses => json!({
                "type": "function", "name": name, "description": description, "parameters": schema,
            }),
            ToolFormat::Anthropic => json!({ "name": name, "description": description, "input_schema": schema }),
            ToolFormat::Mcp => {
                mcp_definition(tool.name, tool.title, description, schema, tool.output_schema, tool.annotations)
            }
        }
    }
}

impl std::str::FromStr for ToolFormat {
    type Err = UnknownFormat;

    /// Reads a format name as [`ToolFormat::from_name`] does, or says which names there are.
    fn from_str(name: &str) -> Result<ToolFormat, UnknownFormat> {
        ToolFormat::from_name(name).ok_or_else(|| UnknownFormat { name: name.to_string() })
    }
}

/// A name that is no [`ToolFormat`]'s; its message lists the names there are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format '{name}': use one of {}", ToolFormat::ALL.map(ToolFormat::name).join(", "))]
pub struct UnknownFormat {
    /// The name as given.
    pub name: String,
}

/// What a tool definition is made of.
pub(crate) struct Definition<'a> {
    pub(crate) name: &'a str,
    pub(crate) title: &'a str,
    pub(crate) description: &'a str,
    pub(crate) input_schema: Value,
    pub(crate) output_schema: Option<Value>,
    pub(crate) annotations: &'a ToolAnnotations,
}

/// An MCP `tools/list` entry.
fn mcp_definition(
    name: &str,
    title: &str,
    description: &str,
    input_schema: Value,
    output_schema: Option<Value>,
    hints: &ToolAnnotations,
) -> Value {
    let mut tool = json!({ "name": name, "title": title, "description": description, "inputSchema": input_schema });
    if let Some(output_schema) = output_schema {
        tool["outputSchema"] = output_schema;
    }
    tool["annotations"] = json!({
        "readOnlyHint": hints.read_only,
        "destructiveHint": hints.destructive,
        "idempotentHint": hints.idempotent,
        "openWorldHint": hints.open_world,
    });
    tool
}
