//! Tool search: ranks the tools for a task described in words (or for a name a
//! model made up), by the words of their names, descriptions and parameters. An
//! index over a registry's tools, in memory, built with the registry.

mod index;
#[cfg(feature = "semantic")]
mod semantic;
mod words;

pub(crate) use index::SearchIndex;
#[cfg(feature = "semantic")]
pub use semantic::{EmbeddingModel, ModelError};
#[cfg(feature = "semantic")]
pub(crate) use semantic::{FUSED_FROM, SemanticIndex, fuse};

/// A tool that fits a search, with how well.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct ToolMatch {
    /// The tool's registered name (what [`crate::Host::tool`] and calls take).
    pub name: String,
    /// How well it fits: higher is better; comparable within one search only.
    pub score: f32,
}
