//! `toolhost` for Node.js: the library's `Host` through napi-rs. The package's
//! JavaScript half (`lib/`) wraps these exports in the classes users see (`Host`,
//! `CallOutcome`, `ToolExecutionError`) and the framework adapters; nothing of the
//! host is implemented twice.
//!
//! - `host`: `NativeHost` (loading, calls, toolsets, definitions, extraction,
//!   resources and prompts), every slow method a Promise (a call leaves the event
//!   loop at its first wait or epoch tick)
//! - `options`: the options object of `loadHost`
//! - `outcome`: a call's outcome and errors as plain JavaScript objects
//! - `cancel`: `Cancellation`, which an `AbortSignal` fires to stop a call
//! - `approval`: the options' `approval`, a person's yes asked through a JavaScript
//!   function

pub mod approval;
pub mod cancel;
pub mod host;
pub mod options;
pub mod outcome;
