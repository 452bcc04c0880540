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

/// Content a call returns besides its value, or instead of it: images, audio,
/// links to resources, resources given whole. An MCP client gets each as a content
/// block after the value's text (a tool returning `()` sends the blocks alone).
/// Blocks and value together are held to the call's result limit.
///
/// ```ignore
/// fn chart(data: Vec<f64>) -> String {
///     toolhost_guest::content::image(&render_png(&data), "image/png");
///     format!("{} points", data.len())
/// }
/// ```
pub mod content {
    use super::bindings::toolhost::tool::content::add as add_block;
    pub use super::bindings::toolhost::tool::content::{Block, Contents, EmbeddedResource, Media, ResourceLink};

    /// Adds `block` to the call's result, after the blocks added before it.
    pub fn add(block: &Block) {
        add_block(block);
    }

    /// Adds text.
    pub fn text(text: &str) {
        add(&Block::Text(text.to_string()));
    }

    /// Adds an image of `mime_type` (`image/png`, `image/jpeg`, ...).
    pub fn image(data: &[u8], mime_type: &str) {
        add(&Block::Image(Media { data: data.to_vec(), mime_type: mime_type.to_string() }));
    }

    /// Adds a sound of `mime_type` (`audio/wav`, `audio/mpeg`, ...).
    pub fn audio(data: &[u8], mime_type: &str) {
        add(&Block::Audio(Media { data: data.to_vec(), mime_type: mime_type.to_string() }));
    }

    /// Adds a pointer to the resource at `uri`, called `name`.
    pub fn resource_link(uri: &str, name: &str, description: Option<&str>, mime_type: Option<&str>) {
        let link = ResourceLink {
            uri: uri.to_string(),
            name: name.to_string(),
            description: description.map(str::to_string),
            mime_type: mime_type.map(str::to_string),
        };
        add(&Block::ResourceLink(link));
    }

    /// Adds the text resource at `uri` whole.
    pub fn embedded_text(uri: &str, mime_type: Option<&str>, text: &str) {
        add(&Block::Embedded(EmbeddedResource {
            uri: uri.to_string(),
            mime_type: mime_type.map(str::to_string),
            contents: Contents::Text(text.to_string()),
        }));
    }
}

/// Questions for the person using the agent, asked through the MCP client that made
/// the call. A caller that cannot ask answers [`elicit::Answer::Decline`] at once;
/// the tool decides what to do then.
///
/// ```ignore
/// let schema = r#"{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}"#;
/// match toolhost_guest::elicit::ask("Whose account?", schema) {
///     toolhost_guest::elicit::Answer::Accept(values) => use_values(&values),
///     _ => return Err("the user did not say whose account".into()),
/// }
/// ```
pub mod elicit {
    pub use super::bindings::toolhost::tool::elicit::Answer;

    /// Asks for the values `schema` (JSON Schema text) describes, saying `message`.
    pub fn ask(message: &str, schema: &str) -> Answer {
        super::bindings::toolhost::tool::elicit::ask(message, schema)
    }
}

/// The model of the MCP client that made the call (sampling).
///
/// ```ignore
/// let summary = toolhost_guest::sample::ask("Summarise in one line: ...", 100)?;
/// ```
pub mod sample {
    pub use super::bindings::toolhost::tool::sample::{Message, Role};

    /// Asks the client's model to continue `messages` (after `system_prompt`),
    /// writing at most `max_tokens`: the text it wrote, or why there is none.
    pub fn complete(messages: &[Message], system_prompt: Option<&str>, max_tokens: u32) -> Result<String, String> {
        super::bindings::toolhost::tool::sample::complete(messages, system_prompt, max_tokens)
    }

    /// Asks the client's model one question from the user: the text it wrote, or
    /// why there is none.
    pub fn ask(prompt: &str, max_tokens: u32) -> Result<String, String> {
        complete(&[Message { role: Role::User, text: prompt.to_string() }], None, max_tokens)
    }
}
