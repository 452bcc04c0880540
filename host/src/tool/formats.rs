//! The registry rendered in the tool formats agents send to models: OpenAI chat
//! completions, OpenAI responses, Anthropic messages, and MCP `tools/list`.

use serde_json::{Value, json};

/// A provider's format for tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFormat {
    /// OpenAI chat completions: `{"type": "function", "function": {name, description, parameters}}`.
    OpenAiChat,
    /// OpenAI responses: `{"type": "function", name, description, parameters}`.
    OpenAiResponses,
    /// Anthropic messages: `{name, description, input_schema}`.
    Anthropic,
    /// MCP `tools/list` entries: `{name, description, inputSchema}`.
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

    /// The format's name, as [`ToolFormat::from_name`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            ToolFormat::OpenAiChat => "openai",
            ToolFormat::OpenAiResponses => "openai-responses",
            ToolFormat::Anthropic => "anthropic",
            ToolFormat::Mcp => "mcp",
        }
    }

    /// A tool's definition in this format, from its model name, description and
    /// parameters schema.
    pub(crate) fn definition(self, name: &str, description: &str, schema: Value) -> Value {
        match self {
            ToolFormat::OpenAiChat => json!({
                "type": "function",
                "function": { "name": name, "description": description, "parameters": schema },
            }),
            ToolFormat::OpenAiResponses => json!({
                "type": "function", "name": name, "description": description, "parameters": schema,
            }),
            ToolFormat::Anthropic => json!({ "name": name, "description": description, "input_schema": schema }),
            ToolFormat::Mcp => json!({ "name": name, "description": description, "inputSchema": schema }),
        }
    }
}
