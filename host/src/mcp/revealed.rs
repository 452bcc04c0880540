//! The tools a disclosing host's finder found in a session, listed to that session
//! from then on: an MCP client that calls only the tools it was listed can call them
//! on its next turn. Each new one joins the session's `tools/list`, and the client is
//! told the list changed (sessions only: the stateless revision has none to list to).

use std::collections::VecDeque;
use std::sync::Mutex;

use rmcp::model::Tool;

use super::listed::mcp_tool;
use crate::host::{CallOutcome, Host};
use crate::mutex::lock;

/// Found tools a session lists at most; past this, the longest-known go.
const MOST_REVEALED: usize = 64;

/// The registered names of the tools found in one session, oldest first.
#[derive(Default)]
pub(crate) struct Revealed {
    names: Mutex<VecDeque<String>>,
}

impl Revealed {
    /// Adds the tools a call of `host`'s finder found, if `outcome` is one; whether
    /// any is new to the session.
    pub(crate) fn add_found(&self, host: &Host, outcome: &CallOutcome) -> bool {
        let Some(disclosure) = host.disclosure() else { return false };
        let (Some(tool), Ok(found)) = (&outcome.tool, &outcome.result) else { return false };
        if tool != disclosure.finder() {
            return false;
        }
        let found = found["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
        let mut names = lock(&self.names);
        let mut added = false;
        for name in found.iter().filter_map(|definition| definition["name"].as_str()) {
            let Ok(registered) = host.resolve_name(name) else { continue };
            if !names.contains(&registered) {
                if names.len() == MOST_REVEALED {
                    names.pop_front();
                }
                names.push_back(registered);
                added = true;
            }
        }
        added
    }

    /// The found tools of `host` that `listed` does not hold, as MCP lists them.
    pub(crate) fn tools(&self, host: &Host, listed: &[Tool]) -> Vec<Tool> {
        let names = lock(&self.names);
        names
            .iter()
            .filter_map(|name| host.tool(name))
            .map(|spec| mcp_tool(&spec))
            .filter(|tool| listed.iter().all(|shown| shown.name != tool.name))
            .collect()
    }
}
