//! `toolhost-guest`: everything a tool author needs to write a toolhost tool in Rust.
//!
//! A tool crate depends on this crate alone, keeps its own world in `wit/`, and
//! calls [`generate!`] with that world's name:
//!
//! ```ignore
//! toolhost_guest::generate!({ world: "greeter" });
//!
//! struct Greeter;
//!
//! impl Guest for Greeter {
//!     fn greet(name: String) -> String {
//!         toolhost_guest::log::info(&format!("greeting {name}"));
//!         format!("Hello, {name}!")
//!     }
//! }
//!
//! export!(Greeter);
//! ```
//!
//! The host-side contract (the `toolhost:tool` WIT package) is compiled into this
//! crate, so a tool's world does not need to import it: using [`log`] is enough
//! for the import to appear in the built component.

/// The wit-bindgen version this SDK is built and tested with.
pub use wit_bindgen;

/// Embeds the crate's WIT doc comments in the component (called by [`generate!`]).
pub use toolhost_guest_macros::embed_docs;

/// Generates bindings for a tool's world, like `wit_bindgen::generate!`, but with
/// wit-bindgen's runtime taken from this crate so the tool needs no other dependency.
///
/// Takes the same options as `wit_bindgen::generate!` inside braces; the WIT is read
/// from the crate's `wit/` folder. It also embeds the WIT doc comments in the
/// component (wit-bindgen drops them), so the host can describe each tool to the
/// model. The crate must be a dependency named `toolhost_guest` (the default).
#[macro_export]
macro_rules! generate {
    ({ $($options:tt)* }) => {
        $crate::wit_bindgen::generate!({
            runtime_path: "::toolhost_guest::wit_bindgen::rt",
            $($options)*
        });
        $crate::embed_docs!();
    };
}

mod bindings {
    wit_bindgen::generate!({
        path: "../wit",
        world: "host-services",
    });
}

/// Log lines that reach the host's `tracing` output, tagged with the tool's
/// component, and the MCP client that made the call (`notifications/message`).
pub mod log {
    pub use super::bindings::toolhost::tool::log::Level;
    use super::bindings::toolhost::tool::log::log;

    /// Writes `message` at `level`.
    pub fn write(level: Level, message: &str) {
        log(level, message);
    }

    /// Writes `message` at trace level.
    pub fn trace(message: &str) {
        write(Level::Trace, message);
    }

    /// Writes `message` at debug level.
    pub fn debug(message: &str) {
        write(Level::Debug, message);
    }

    /// Writes `message` at info level.
    pub fn info(message: &str) {
        write(Level::Info, message);
    }

    /// Writes `message` at warn level.
    pub fn warn(message: &str) {
        write(Level::Warn, message);
    }

    /// Writes `message` at error level.
    pub fn error(message: &str) {
        write(Level::Error, message);
    }
}

/// How far a long call has come: an MCP client that asked for progress gets each
/// report as `notifications/progress`; other callers nothing.
///
/// ```ignore
/// for (done, item) in items.iter().enumerate() {
///     toolhost_guest::progress::report(done as f64, Some(items.len() as f64), None);
///     work_on(item);
/// }
/// ```
pub mod progress {
    /// Reports that the call is at `done` of `total` (when known), with a message.
    /// `done` should grow from one report to the next.
    pub fn report(done: f64, total: Option<f64>, message: Option<&str>) {
        super::bindings::toolhost::tool::progress::report(done, total, message);
    }
}
