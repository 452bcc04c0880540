//! toolhost runs an AI agent's tools as sandboxed WebAssembly components.
//!
//! A [`Host`] loads every component in a plugin folder, describes each exported WIT
//! function as a tool ([`ToolSpec`]), and runs the calls a model makes: the name is
//! resolved (and repaired where that needs no guess), the JSON arguments are bound
//! to the WIT signature, the function runs in a fresh, deny-by-default sandbox under
//! time and memory limits, and the outcome comes back as JSON or as a [`ToolError`]
//! whose text is a corrective message for the model.

mod arguments;
mod bind;
mod cache;
mod capture;
mod docs;
mod error;
mod formats;
mod host;
mod introspect;
mod invoke;
mod loader;
mod manifest;
pub mod mcp;
mod names;
mod network;
mod refusals;
mod registry;
mod runtime;
mod sandbox;
mod schema;
mod spec;
mod suggest;
mod types;

pub use error::{ExpectedParameters, LoadError, ToolError};
pub use formats::ToolFormat;
pub use host::{Dispatch, Host, HostBuilder};
pub use loader::{ComponentLoad, LoadReport};
pub use network::{HostPattern, HostPatternError};
pub use registry::{Registry, Resolved, ToolsetError};
pub use sandbox::{DirGrant, Grants, Limits};
pub use spec::{ParamSpec, ToolSpec};
pub use types::{Case, Field, WitType};
