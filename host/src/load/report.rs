//! What a load or reload did: each component that loaded, and one warning per
//! problem (a file skipped, a function left out, a manifest entry not applied).

use std::path::PathBuf;
use std::time::Duration;

/// What happened to one component while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentReport {
    /// The component's name.
    pub name: String,
    /// The file it came from.
    pub path: PathBuf,
    /// How many tools it offers.
    pub tools: usize,
    /// Whether it was compiled now (`false`: taken from the cache, or kept from the
    /// previous load).
    pub compiled: bool,
    /// How long loading it took.
    pub elapsed: Duration,
}

/// What a load did: the components that loaded, and one warning per problem.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Components that loaded, sorted by file.
    pub components: Vec<ComponentReport>,
    /// Files skipped, functions left out and manifest entries not applied, each naming
    /// the file or component and the reason.
    pub warnings: Vec<String>,
}

impl LoadReport {
    /// How many components had to be compiled (not found in the cache).
    pub fn compiled(&self) -> usize {
        self.components.iter().filter(|c| c.compiled).count()
    }
}
