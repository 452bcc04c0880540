//! Toolsets: a registry restricted to the names an agent lists, or to the names
//! matching patterns (`github.*`), kept current across reloads.

use std::sync::{Arc, Mutex};

use globset::{GlobSet, GlobSetBuilder};

use super::registry::{Registry, ToolsetError};
use crate::mutex::lock;
use crate::tool::names::name_pattern;

/// A toolset: what it was made of, and its registry derived from the newest full
/// registry it has seen (a reload may add or remove tools).
pub(crate) struct Toolset {
    selection: Selection,
    /// The toolset this one chooses among, if it was made from one.
    within: Option<Arc<Toolset>>,
    derived: Mutex<(u64, Arc<Registry>)>,
}

/// Which tools a toolset holds.
enum Selection {
    /// These tools, by registered name.
    Names(Vec<String>),
    /// Every tool whose registered name one of these matches (reloads add new ones).
    Patterns(GlobSet),
}

impl Toolset {
    /// The toolset of `names` over `registry` (of version `generation`); each name
    /// must be a tool's name or repair to exactly one.
    pub(crate) fn new<S: AsRef<str>>(
        registry: &Registry,
        generation: u64,
        names: &[S],
    ) -> Result<Toolset, ToolsetError> {
        let subset = registry.subset(names)?;
        let selection = Selection::Names(subset.names());
        Ok(Toolset { selection, within: None, derived: Mutex::new((generation, Arc::new(subset))) })
    }

    /// The toolset of no tools.
    #[cfg(feature = "mcp")]
    pub(crate) fn empty() -> Toolset {
        Toolset {
            selection: Selection::Names(Vec::new()),
            within: None,
            derived: Mutex::new((u64::MAX, Arc::default())),
        }
    }

    /// The toolset of every tool whose name matches one of `patterns` (`*` stands
    /// for any run of characters, `?` for one), over `registry` now and after each
    /// reload. A pattern that is no glob at all is an error naming it.
    pub(crate) fn matching<S: AsRef<str>>(
        full: &Registry,
        generation: u64,
        within: Option<Arc<Toolset>>,
        patterns: &[S],
    ) -> Result<Toolset, ToolsetError> {
        let selection = Selection::Patterns(glob_set(patterns)?);
        let toolset = Toolset { selection, within, derived: Mutex::new((u64::MAX, Arc::default())) };
        toolset.registry(full, generation);
        Ok(toolset)
    }

    /// Fails on a pattern [`Toolset::matching`] would refuse.
    #[cfg(feature = "mcp")]
    pub(crate) fn check_pattern(pattern: &str) -> Result<(), ToolsetError> {
        glob(pattern).map(drop)
    }

    /// The toolset's registry over `full`, of version `generation`: derived again
    /// after a reload, when names no longer present are simply not active.
    pub(crate) fn registry(&self, full: &Registry, generation: u64) -> Arc<Registry> {
        let mut derived = lock(&self.derived);
        if derived.0 != generation {
            let chosen_from = self.within.as_ref().map(|within| within.registry(full, generation));
            *derived = (generation, Arc::new(self.selection.select(chosen_from.as_deref().unwrap_or(full))));
        }
        derived.1.clone()
    }
}

/// Tool name patterns as one matcher (see [`Toolset::matching`]).
pub(crate) fn glob_set<S: AsRef<str>>(patterns: &[S]) -> Result<GlobSet, ToolsetError> {
    let mut globs = GlobSetBuilder::new();
    for pattern in patterns {
        globs.add(glob(pattern.as_ref())?);
    }
    globs.build().map_err(|error| bad_pattern(&patterns_text(patterns), &error))
}

/// A tool name pattern (see [`name_pattern`]), or the error naming it.
fn glob(pattern: &str) -> Result<globset::Glob, ToolsetError> {
    name_pattern(pattern).map_err(|error| bad_pattern(pattern, &error))
}

fn bad_pattern(pattern: &str, error: &globset::Error) -> ToolsetError {
    ToolsetError::BadPattern { pattern: pattern.to_string(), reason: error.kind().to_string() }
}

fn patterns_text<S: AsRef<str>>(patterns: &[S]) -> String {
    patterns.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(", ")
}

impl Selection {
    /// The part of `full` this selection holds.
    fn select(&self, full: &Registry) -> Registry {
        let present: Vec<&str> = match self {
            Selection::Names(names) => {
                names.iter().map(String::as_str).filter(|name| full.spec(name).is_some()).collect()
            }
            Selection::Patterns(globs) => {
                full.specs().map(|spec| spec.name.as_str()).filter(|name| globs.is_match(name)).collect()
            }
        };
        full.subset(&present).unwrap_or_default()
    }
}
