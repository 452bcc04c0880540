//! What the model sees of a tool: its spec (names, description, parameters, result),
//! the content a call may return besides its value, the WIT value types, their JSON
//! Schema, the providers' definition formats, and the name conventions every stage
//! matches names by. Pure data: nothing here knows
//! wasmtime, so every other stage may depend on it.

mod annotations;
#[cfg(test)]
pub(crate) mod arbitrary;
mod asked;
mod call;
mod content;
mod formats;
pub(crate) mod names;
mod repair;
mod results;
mod schema;
mod shape;
mod spec;
mod types;

pub use annotations::{TaskSupport, ToolAnnotations};
pub(crate) use asked::Asked;
pub use call::ToolCall;
pub use content::{Content, EmbeddedResource, Media, ResourceContents, ResourceLink};
pub(crate) use content::{Returned, json_len};
pub use formats::{ToolFormat, UnknownFormat};
pub use repair::Repair;
#[cfg(test)]
pub(crate) use schema::type_schema;
pub(crate) use schema::{json_kind, schema_params};
pub use shape::ParamShaping;
pub use spec::{ExpectedParameters, ParamSpec, ServerTool, ToolOrigin, ToolSpec, WitFunction};
pub use types::{Case, Field, WitType};
