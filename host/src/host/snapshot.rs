//! One version of the loaded plugins: every component as it is served, and the
//! registry over their tools. A reload builds a new snapshot and swaps it in whole,
//! so a call sees one version from start to end.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::load::{ComponentReport, LoadReport, Plugin};
use crate::resolve::{Registry, ToolRef};
use crate::sandbox::{Grants, Limits};

/// The digest of one version of a component file and its manifest.
pub(super) type Version = [u8; 32];

/// One version of the loaded plugins; replaced whole on reload.
#[derive(Default)]
pub(super) struct Snapshot {
    /// Counts reloads that changed something; 0 before the first load.
    pub(super) generation: u64,
    /// The components, in the order of their files; the registry's `ToolRef`s index it.
    pub(super) components: Vec<ServedComponent>,
    pub(super) registry: Arc<Registry>,
    /// What the load that made this snapshot warned about.
    pub(super) warnings: Vec<String>,
}

/// A component as a snapshot serves it: the plugin, what its calls run with, and
/// which version of which file it came from.
#[derive(Clone)]
pub(super) struct ServedComponent {
    pub(super) plugin: Arc<Plugin>,
    pub(super) grants: Grants,
    pub(super) limits: Limits,
    pub(super) source: PathBuf,
    pub(super) version: Version,
    /// What loading it did (kept as it was when the component is kept by a reload).
    pub(super) report: ComponentReport,
}

impl Snapshot {
    /// A snapshot of `components`, with a registry over all their tools.
    pub(super) fn new(generation: u64, components: Vec<ServedComponent>, warnings: Vec<String>) -> Snapshot {
        let tools = components.iter().enumerate().flat_map(|(component, served)| {
            let tools = served.plugin.tools.iter().enumerate();
            tools.map(move |(tool, found)| (found.spec.clone(), ToolRef { component, tool }))
        });
        let registry = Arc::new(Registry::new(tools));
        Snapshot { generation, components, registry, warnings }
    }

    /// The component loaded from exactly this version of `path`, if this snapshot has it.
    pub(super) fn unchanged(&self, path: &Path, version: Option<Version>) -> Option<&ServedComponent> {
        self.components.iter().find(|c| c.source == path && Some(c.version) == version)
    }

    /// The component loaded from `path`, whatever its version.
    pub(super) fn previous(&self, path: &Path) -> Option<&ServedComponent> {
        self.components.iter().find(|c| c.source == path)
    }

    /// Whether `versions` are exactly the files and versions this snapshot holds.
    pub(super) fn holds_exactly(&self, versions: &[(PathBuf, Option<Version>)]) -> bool {
        self.generation > 0
            && versions.len() == self.components.len()
            && versions.iter().all(|(path, version)| self.unchanged(path, *version).is_some())
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
