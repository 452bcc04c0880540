//! What a client may assume of a tool before calling it: MCP's tool annotations
//! (hints), which the host derives from what the sandbox lets the tool touch, whether
//! its calls may go on as tasks, and a tool's human-readable title.

/// What a tool can touch, as hints for a client deciding what to confirm with the
/// user. The host derives them from the tool's grants (see `HostBuilder`), so they are
/// facts about the sandbox, not claims by the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ToolAnnotations {
    /// The tool changes nothing outside its call: no writable folder, no network.
    pub read_only: bool,
    /// A change it makes may destroy something (meaningful when not read-only).
    pub destructive: bool,
    /// Calling it again with the same arguments changes nothing more.
    pub idempotent: bool,
    /// It may reach things outside the host (it is allowed some network).
    pub open_world: bool,
}

impl Default for ToolAnnotations {
    /// What MCP tells clients to assume of a tool that says nothing: the worst.
    fn default() -> ToolAnnotations {
        ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: true }
    }
}

impl ToolAnnotations {
    /// The hints for a tool that may write to a folder (`writes`) or reach the network
    /// (`network`), starting from `claimed` (its manifest's `idempotent` and
    /// `destructive`, which can only narrow what the grants allow).
    pub(crate) fn from_grants(claimed: ToolAnnotations, writes: bool, network: bool) -> ToolAnnotations {
        let read_only = !writes && !network;
        ToolAnnotations {
            read_only,
            destructive: !read_only && claimed.destructive,
            idempotent: read_only || claimed.idempotent,
            open_world: network,
        }
    }
}

/// Whether a call of the tool may go on as a task the client polls (MCP's tasks
/// extension), as a component's manifest says (`task = "required"` under its
/// `[tools.NAME]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskSupport {
    /// A call still running after the server's patience goes on as a task, for a
    /// client that takes tasks.
    #[default]
    Optional,
    /// Every call runs as a task: a client that does not take tasks is refused.
    Required,
    /// A call always answers in its request.
    Forbidden,
}

/// A title made from a tool's name: `get_weather` → `Get weather`, `units/convert` →
/// `Convert`.
pub(crate) fn title_from_name(name: &str) -> String {
    let words = super::names::unqualified(name).replace(['_', '-'], " ");
    let mut chars = words.trim().chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_follow_the_grants_and_the_manifest_only_narrows() {
        let unclaimed = ToolAnnotations::default();
        let pure = ToolAnnotations::from_grants(unclaimed, false, false);
        assert_eq!(pure, ToolAnnotations { read_only: true, destructive: false, idempotent: true, open_world: false });
        let writer = ToolAnnotations::from_grants(unclaimed, true, false);
        assert_eq!(
            writer,
            ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: false }
        );
        let narrowed = ToolAnnotations { destructive: false, idempotent: true, ..unclaimed };
        let careful_writer = ToolAnnotations::from_grants(narrowed, true, false);
        assert_eq!((careful_writer.destructive, careful_writer.idempotent), (false, true));
        let fetcher = ToolAnnotations::from_grants(unclaimed, false, true);
        assert_eq!((fetcher.read_only, fetcher.open_world), (false, true));
    }

    #[test]
    fn titles_are_made_from_names() {
        assert_eq!(title_from_name("get_weather"), "Get weather");
        assert_eq!(title_from_name("units/convert"), "Convert");
        assert_eq!(title_from_name(""), "");
    }
}
