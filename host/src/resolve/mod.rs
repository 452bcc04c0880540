//! Resolving the name a model sent to exactly one tool: the registry and its repair
//! rules, the nearest-name hint for a name that matches nothing, and toolsets.

mod registry;
mod suggest;
mod toolset;

pub(crate) use registry::ToolRef;
pub use registry::{Registry, Resolved, ToolsetError};
pub(crate) use toolset::{Toolset, glob_set};
