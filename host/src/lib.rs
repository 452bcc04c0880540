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
//! match host.call_text("Evaluate", r#"{"expression": "2 * (3 + 4)",}"#) {
//!     Ok(value) => println!("{value}"),                // 14.0
//!     Err(error) => println!("tell the model: {error}"), // a corrective message
//! }
//! # Ok::<(), toolhost::LoadError>(())
//! ```
//!
//! # The map
//!
//! The folders follow a call, and each depends only on those above it:
//!
//! - `tool/`: what the model sees of a tool (spec, WIT types, JSON Schema, provider
//!   formats, name rules); pure data, no wasmtime.
//! - `error.rs`: [`ToolError`] (the corrective messages) and [`LoadError`].
//! - `sandbox/`: grants and limits, the per-call store state, denials, the HTTP
//!   allow list, the WASI functions the host replaces, output capture.
//! - `runtime/`: the engine, the linker, the epoch ticker and the admission queue in
//!   front of the instance pool; the one home of engine and machine settings.
//! - `sys.rs`: what differs between operating systems (file kinds, owners, modes).
//! - `load/`: files → components: folder scan, compile cache, manifest,
//!   introspection of exports into specs, embedded docs, parallel loading.
//! - `resolve/`: name → tool: the registry and its repair rules, hints, toolsets.
//! - `bind/`: argument text and JSON → typed WIT values.
//! - `extract/`: tool calls a model wrote into its reply text.
//! - `invoke/`: one call in a fresh instance, and its outcome in the model's terms.
//! - `host/`: the [`Host`] facade, its builder, snapshots and reloads.
//! - `mcp/`: the MCP server face (cargo feature `mcp`), over stdio and, with the
//!   `http` feature, streamable HTTP.
//!
//! `ARCHITECTURE.md` at the repository root says more, and how to add to it.

#![deny(missing_docs)]
#![warn(unreachable_pub, clippy::undocumented_unsafe_blocks, clippy::too_many_lines)]

pub mod bind;
mod error;
mod extract;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod host;
mod invoke;
mod load;
mod lock;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "registry")]
pub mod registry;
#[cfg(feature = "mcp-servers")]
mod remote;
mod resolve;
mod runtime;
mod sandbox;
mod sys;
mod tool;

pub use error::{LoadError, ToolError};
pub use extract::{Dialect, ExtractedCall, Extraction};
pub use host::{CallOutcome, Host, HostBuilder};
pub use invoke::PrewarmState;
pub use load::{ComponentReport, LoadReport, Provenance};
pub use resolve::{Registry, Resolved, ToolsetError};
pub use runtime::{Capacity, Prewarm};
pub use sandbox::{DirGrant, Grants, HostPattern, HostPatternError, Limits};
pub use tool::{
    Case, ExpectedParameters, Field, ParamSpec, Repair, ToolAnnotations, ToolFormat, ToolOrigin, ToolSpec, WitType,
};
