//! One version of the loaded plugins: every component and MCP server as it is
//! served, and the registry over their tools. A reload builds a new snapshot and swaps it in whole,
//! so a call sees one version from start to end.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::servers::ServedServer;
use crate::invoke::WarmPool;
use crate::load::{ComponentReport, FoundTool, LoadReport, Plugin, SecretSource, Version};
use crate::resolve::{Registry, ToolRef};
use crate::sandbox::{Grants, Limits};

/// One version of the loaded plugins; replaced whole on reload.
#[derive(Default)]
pub(super) struct Snapshot {
    /// Counts reloads that changed something; 0 before the first load.
    pub(super) generation: u64,
    /// The components, in the order of their files; the registry's `ToolRef`s index it.
    pub(super) components: Vec<ServedComponent>,
    /// The MCP servers, in the order of their files; the registry's `ToolRef`s index
    /// them after the components.
    pub(super) servers: Vec<ServedServer>,
    pub(super) registry: Arc<Registry>,
    /// What the load that made this snapshot warned about, then what the registry did.
    pub(super) warnings: Vec<String>,
    /// What the load warned about alone (a snapshot made from this one without a
    /// load starts from these).
    pub(super) load_warnings: Vec<String>,
}

/// A component as a snapshot serves it: the plugin, what its calls run with, and
/// which version of which file it came from.
#[derive(Clone)]
pub(super) struct ServedComponent {
    pub(super) plugin: Arc<Plugin>,
    /// Its ready instances; kept with it by a reload that keeps it, dropped with it.
    pub(super) warm: Arc<WarmPool>,
    pub(super) grants: Grants,
    /// Where its secrets come from (its grants carry them as they are now).
    pub(super) secrets: Arc<SecretSource>,
    pub(super) limits: Limits,
    pub(super) source: PathBuf,
    pub(super) version: Version,
    /// What loading it did (kept as it was when the component is kept by a reload).
    pub(super) report: ComponentReport,
}

/// What a registered tool is, in a snapshot.
pub(super) enum Target<'s> {
    Component(&'s ServedComponent, &'s FoundTool),
    /// A server, and the tool's index among its tools.
    #[cfg_attr(not(feature = "mcp-servers"), allow(dead_code))]
    Server(&'s ServedServer, usize),
}

impl Snapshot {
    /// A snapshot of `components` and `servers`, with a registry over all their tools.
    pub(super) fn new(
        generation: u64,
        components: Vec<ServedComponent>,
        servers: Vec<ServedServer>,
        warnings: Vec<String>,
    ) -> Snapshot {
        let component_tools = components.iter().enumerate().flat_map(|(component, served)| {
            let tools = served.plugin.tools.iter().enumerate();
            tools.map(move |(tool, found)| (found.spec.clone(), ToolRef { component, tool }))
        });
        let server_tools = servers.iter().enumerate().flat_map(|(server, served)| {
            let component = components.len() + server;
            served.specs().into_iter().enumerate().map(move |(tool, spec)| (spec, ToolRef { component, tool }))
        });
        let registry = Arc::new(Registry::new(component_tools.chain(server_tools)));
        let load_warnings = warnings;
        let warnings = load_warnings.iter().chain(registry.warnings()).cloned().collect();
        Snapshot { generation, components, servers, registry, warnings, load_warnings }
    }

    /// The component's tool or the server's tool that `tool` points to.
    pub(super) fn target(&self, tool: ToolRef) -> Option<Target<'_>> {
        match self.components.get(tool.component) {
            Some(served) => Some(Target::Component(served, served.plugin.tools.get(tool.tool)?)),
            None => Some(Target::Server(self.servers.get(tool.component - self.components.len())?, tool.tool)),
        }
    }

    /// The server loaded from exactly this version of `path`, if this snapshot has it.
    pub(super) fn unchanged_server(&self, path: &Path, version: Option<Version>) -> Option<&ServedServer> {
        self.servers.iter().find(|s| s.source == path && Some(s.version) == version)
    }

    /// The server loaded from `path`, whatever its version.
    pub(super) fn previous_server(&self, path: &Path) -> Option<&ServedServer> {
        self.servers.iter().find(|s| s.source == path)
    }

    /// The component loaded from exactly this version of `path`, if this snapshot has it.
    pub(super) fn unchanged(&self, path: &Path, version: Option<Version>) -> Option<&ServedComponent> {
        self.components.iter().find(|c| c.source == path && Some(c.version) == version)
    }

    /// The component loaded from `path`, whatever its version.
    pub(super) fn previous(&self, path: &Path) -> Option<&ServedComponent> {
        self.components.iter().find(|c| c.source == path)
    }

    /// Whether `components` and `servers` are exactly the files and versions this
    /// snapshot holds.
    pub(super) fn holds_exactly(
        &self,
        components: &[(PathBuf, Option<Version>)],
        servers: &[(PathBuf, Option<Version>)],
    ) -> bool {
        self.generation > 0
            && components.len() == self.components.len()
            && servers.len() == self.servers.len()
            && components.iter().all(|(path, version)| self.unchanged(path, *version).is_some())
            && servers.iter().all(|(path, version)| self.unchanged_server(path, *version).is_some())
    }

    /// The load report: every component's, and the warnings.
    pub(super) fn report(&self) -> LoadReport {
        LoadReport {
            components: self.components.iter().map(|c| c.report.clone()).collect(),
            warnings: self.warnings.clone(),
        }
    }
}

impl ServedComponent {
    /// The same component, kept by a reload: nothing was compiled for it this time.
    pub(super) fn kept(&self) -> ServedComponent {
        ServedComponent { report: ComponentReport { compiled: false, ..self.report.clone() }, ..self.clone() }
    }
}
