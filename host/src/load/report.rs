//! What a load or reload did: each component that loaded, and one warning per
//! problem (a file skipped, a function left out, a manifest entry not applied).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Serialize, Serializer};

/// What happened to one component while loading. Serialised with `path` as text
/// and `elapsed` as `elapsed_ms`, a number of milliseconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComponentReport {
    /// The component's name.
    pub name: String,
    /// The file it came from.
    #[serde(serialize_with = "path_text")]
    pub path: PathBuf,
    /// How many tools it offers.
    pub tools: usize,
    /// Whether it was compiled now (`false`: taken from the cache, or kept from the
    /// previous load).
    pub compiled: bool,
    /// Whether it serves on the baseline compiler's code (see
    /// [`Compiler`](crate::Compiler)); under `Compiler::Auto` its optimized code then
    /// replaces it, and the report says `false`.
    pub baseline: bool,
    /// How long loading it took.
    #[serde(rename = "elapsed_ms", serialize_with = "milliseconds")]
    pub elapsed: Duration,
    /// Where its file came from, as its folder's `toolhost.lock` says.
    pub provenance: Provenance,
}

/// Where a component's file came from; serialised as `{"kind": "local"}` or
/// `{"kind": "pulled", "reference": …, "signed_by": […]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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

/// A path as text (a name that is not UTF-8 shown with replacement characters).
fn path_text<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

/// A duration as a number of milliseconds.
fn milliseconds<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64() * 1000.0)
}
