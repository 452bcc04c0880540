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
    /// Where its file came from, as its folder's `toolhost.lock` says.
    pub provenance: Provenance,
}

/// Where a component's file came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provenance {
    /// Not named by a lock file: a file put in the folder by hand or by a build.
    Local,
    /// Pulled from a registry (its file matched its lock entry when it loaded).
    Pulled {
        /// The reference it was pulled from.
        reference: String,
        /// The fingerprints of the keys its cosign signature was verified with; empty:
        /// it was pulled without a key, unverified.
        signed_by: Vec<String>,
    },
}

impl Provenance {
    /// Whether it was pulled with no signature checked.
    pub fn is_unverified(&self) -> bool {
        matches!(self, Provenance::Pulled { signed_by, .. } if signed_by.is_empty())
    }
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
