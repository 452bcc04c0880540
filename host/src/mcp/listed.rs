//! The MCP tool list of each active registry (its tools, or a disclosing host's
//! finder and core), made once: `tools/list` of 10,000
//! tools is then a clone of the list, not 10,000 definitions built and converted.

use std::sync::{Arc, Mutex, Weak};

use rmcp::model::Tool;

use crate::host::{Host, Registry};
use crate::mutex::lock;
use crate::tool::{ToolFormat, ToolSpec};

/// Lists kept at most: the host's and one per caller's set of tools (see
/// `access.rs`), each replaced when a reload makes a new registry.
const MAX_LISTS: usize = 64;

/// A list and the registry it was made from (held weakly: the list goes once its
/// registry is dropped).
type Listed = (Weak<Registry>, Arc<Vec<Tool>>);

/// The lists made so far.
#[derive(Default)]
pub(crate) struct ListedTools {
    lists: Mutex<Vec<Listed>>,
}

impl ListedTools {
    /// The MCP tools of `host`'s active registry.
    pub(crate) fn of(&self, host: &Host) -> Arc<Vec<Tool>> {
        let registry = host.registry();
        let mut lists = lock(&self.lists);
        lists.retain(|(made_from, _)| made_from.strong_count() > 0);
        if let Some((_, list)) = lists.iter().find(|(made_from, _)| made_from.as_ptr() == Arc::as_ptr(&registry)) {
            return list.clone();
        }
        let list: Arc<Vec<Tool>> = Arc::new(host.shown_in(&registry).iter().map(mcp_tool).collect());
        if lists.len() >= MAX_LISTS {
            lists.remove(0);
        }
        lists.push((Arc::downgrade(&registry), list.clone()));
        list
    }
}

/// A tool as MCP lists it: the library's own MCP definition (name, title,
/// description, input and output schemas, annotations), read into rmcp's type.
pub(crate) fn mcp_tool(spec: &ToolSpec) -> Tool {
    serde_json::from_value(spec.definition(ToolFormat::Mcp)).unwrap_or_else(|error| {
        tracing::error!("the MCP definition of '{}' does not fit rmcp's Tool: {error}", spec.name);
        Tool::new(spec.model_name(), spec.description.clone(), serde_json::Map::new())
    })
}
