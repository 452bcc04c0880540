//! Toolsets: a registry restricted to the names an agent lists, kept current across
//! reloads.

use std::sync::{Arc, Mutex};

use super::registry::{Registry, ToolsetError};
use crate::mutex::lock;

/// A toolset: the names it was made of, and its registry derived from the newest
/// full registry it has seen (a reload may add or remove tools).
pub(crate) struct Toolset {
    names: Vec<String>,
    derived: Mutex<(u64, Arc<Registry>)>,
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
        Ok(Toolset { names: subset.names(), derived: Mutex::new((generation, Arc::new(subset))) })
    }

    /// The toolset's registry over `full`, of version `generation`: derived again
    /// after a reload, when names no longer present are simply not active.
    pub(crate) fn registry(&self, full: &Registry, generation: u64) -> Arc<Registry> {
        let mut derived = lock(&self.derived);
        if derived.0 != generation {
            let present: Vec<&String> = self.names.iter().filter(|name| full.spec(name).is_some()).collect();
            *derived = (generation, Arc::new(full.subset(&present).unwrap_or_default()));
        }
        derived.1.clone()
    }
}
