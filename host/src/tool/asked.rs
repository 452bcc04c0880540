//! What a plugin is asked for besides a tool call: its resources, templates and
//! prompts listed, a resource read, a prompt got, an argument completed (MCP's
//! requests of those names).

use serde_json::{Map, Value};

/// One request for what a plugin offers besides tools.
#[derive(Debug, Clone)]
#[cfg_attr(
    not(feature = "mcp-servers"),
    allow(dead_code, reason = "only MCP server plugins are asked (cargo feature `mcp-servers`)")
)]
pub(crate) enum Asked {
    /// `resources/list`, every page.
    Resources,
    /// `resources/templates/list`, every page.
    Templates,
    /// `resources/read` of a URI.
    Read(String),
    /// `prompts/list`, every page.
    Prompts,
    /// `prompts/get` of a prompt with arguments.
    Prompt(String, Map<String, Value>),
    /// `completion/complete`: the reference (MCP's JSON), the argument, its value.
    Complete(Value, String, String),
}
