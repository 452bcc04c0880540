//! toolhost runs an AI agent's tools as sandboxed WebAssembly components.
//!
//! A [`Host`] loads every component in a plugin folder, describes each exported WIT
//! function as a tool ([`ToolSpec`]), and runs the calls a model makes: the name is
//! resolved (and repaired where that needs no guess), the JSON arguments are bound
//! to the WIT signature, the function runs in a fresh, deny-by-default sandbox under
//! time and memory limits, and the outcome comes back as JSON or as a [`ToolError`]
//! whose text is a corrective message for the model.
//!
//! ```no_run
//! let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
//! match host.request("Evaluate").text(r#"{"expression": "2 * (3 + 4)",}"#).run().result {
//!     Ok(value) => println!("{value}"),                // 14.0
//!     Err(error) => println!("tell the model: {error}"), // a corrective message
//! }
//! # Ok::<(), toolhost::LoadError>(())
//! ```
//!
//! # Where things are
//!
//! One folder per stage of a call (`tool/`, `load/`, `resolve/`, `bind/`,
//! `extract/`, `invoke/`, `sandbox/`, …), each depending only on the stages before
//! it; `ARCHITECTURE.md` at the repository root has the map, the table of which stage
//! may use which (a test reads it from there), and how to add to it. Where a call's
//! limits come from is written in `sandbox/`'s module doc.
//!
//! # Crate features
//!
//! None is on by default; the default build is the library alone.
//!
//! - `mcp`: the MCP server face ([`mcp`]), over stdio, on rmcp.
//! - `http`: the MCP server over streamable HTTP (`mcp::http`), on axum and hyper.
//! - `mcp-servers`: MCP servers as plugins (`NAME.mcp.toml` files), on rmcp's client.
//! - `oci`: pulling and pushing components as OCI artifacts, with cosign signatures
//!   ([`oci`]); `registry` is its old name.
//! - `semantic`: tool search by meaning too, with a sentence-embedding model the
//!   user points to ([`EmbeddingModel`], [`HostBuilder::embedding_model`]), on candle.
//! - `fuzzing`: entry points for the fuzz targets; not API.

pub mod bind;
mod error;
mod extract;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod host;
mod invoke;
mod load;
#[cfg(feature = "mcp")]
pub mod mcp;
mod mutex;
#[cfg(feature = "oci")]
pub mod oci;
/// The old name of [`oci`], kept for one release.
#[cfg(feature = "oci")]
#[deprecated(since = "0.2.0", note = "renamed `toolhost::oci`")]
pub mod registry {
    pub use crate::oci::*;
}
mod policy;
#[cfg(feature = "mcp-servers")]
mod remote;
mod resolve;
#[cfg(feature = "rest-apis")]
mod rest;
mod runtime;
mod sandbox;
mod search;
mod sys;
mod tool;

pub use error::{LoadError, ToolError, Unapproved};
pub use extract::{Dialect, ExtractedCall, Extraction};
pub use host::{
    CALLER_NAME, CallOutcome, CallRequest, Definitions, DefinitionsRequest, Disclosure, FINDER_NAME, Host, HostBuilder,
    HostStats, Profile, RepairedCall,
};
pub use invoke::PrewarmState;
pub use load::{ComponentReport, LoadReport, Provenance, SecretError, SecretStore};
pub use policy::{Approval, DEFAULT_POLICY_LIMITS, Policy, PolicyCall, PolicyComponent, PolicyScope, Verdict};
pub use resolve::{Registry, Resolved, ToolsetError};
pub use runtime::{Capacity, Compiler, Prewarm, UnknownCompiler};
pub use sandbox::{
    CallObserver, DirGrant, Elicitation, ElicitationAnswer, Grants, HttpHostPattern, HttpHostPatternError, Limits,
    LogLevel, Progress, Sampling, SamplingRole,
};
pub use search::ToolMatch;
#[cfg(feature = "semantic")]
pub use search::{EmbeddingModel, ModelError};

/// The old name of [`HttpHostPattern`], kept for one release.
#[deprecated(since = "0.2.0", note = "renamed `HttpHostPattern`")]
pub type HostPattern = HttpHostPattern;
/// The old name of [`HttpHostPatternError`], kept for one release.
#[deprecated(since = "0.2.0", note = "renamed `HttpHostPatternError`")]
pub type HostPatternError = HttpHostPatternError;
pub use tool::{
    Case, Content, EmbeddedResource, ExpectedParameters, Field, Media, ParamShaping, ParamSpec, Repair,
    ResourceContents, ResourceLink, ServerTool, TaskSupport, ToolAnnotations, ToolCall, ToolFormat, ToolOrigin,
    ToolSpec, UnknownFormat, WitFunction, WitType,
};
