//! The `toolhost:tool` imports a tool may use (`wit/toolhost.wit`): `log` (0.1.0 on),
//! `progress`, `content`, `elicit` and `sample` (0.2.0 on). Log lines, progress,
//! questions and requests to the caller's model go to the call's
//! [`Reports`](crate::sandbox::Reports), which pass them on to the caller within the
//! call's bounds (log lines to `tracing` too); content blocks to the call's result.
//! And `wasi:config/store`, which serves the component's secrets.

use futures::future::{FutureExt as _, ready};
use wasmtime::component::{ComponentType, Lift, Linker, Lower, Val};

use crate::sandbox::{
    CallState, Elicitation, ElicitationAnswer, LogLevel, Progress, Sampling, SamplingRole, is_secret_name, redact,
};
use crate::tool::{Content, ResourceContents, ResourceLink};

/// The versions of the package the host serves; a component may import any.
const VERSIONS: [&str; 3] = ["0.1.0", "0.2.0", "0.3.0"];

/// The versions that have every interface but `log`.
const SINCE_0_2: [&str; 2] = ["0.2.0", "0.3.0"];

/// Links the host's services under every version that has them.
pub(super) fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    for version in VERSIONS {
        linker.instance(&format!("toolhost:tool/log@{version}"))?.func_new("log", |mut store, _ty, params, _| {
            if let [Val::Enum(level), Val::String(message)] = params {
                log(store.data_mut(), LogLevel::from_wit(level).unwrap_or(LogLevel::Error), message);
            }
            Ok(())
        })?;
    }
    for version in SINCE_0_2 {
        linker.instance(&format!("toolhost:tool/progress@{version}"))?.func_new(
            "report",
            |mut store, _ty, params, _| {
                if let [Val::Float64(done), total, message] = params {
                    let progress = Progress { done: *done, total: option_f64(total), message: option_string(message) };
                    let state = store.data_mut();
                    let component = state.component.clone();
                    state.reports.progress(&component, &progress);
                }
                Ok(())
            },
        )?;
        linker.instance(&format!("toolhost:tool/content@{version}"))?.func_wrap(
            "add",
            |mut store, (block,): (Block,)| {
                store.data_mut().attached.add(block.into());
                Ok(())
            },
        )?;
        add_asks(linker, version)?;
    }
    add_config(linker)
}

/// The versions of `wasi:config/store` served: the draft wasmtime and Spin serve,
/// and its first release candidate (the same functions).
const CONFIG_VERSIONS: [&str; 2] = ["0.2.0-draft", "0.2.0-rc.1"];

/// `wasi:config/store`: the component's secrets, read by name. (Written here rather
/// than with `wasmtime-wasi-config`, whose `get` answers nothing for a key that is not
/// set: this one's error names the command that sets it.)
fn add_config(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    for version in CONFIG_VERSIONS {
        let mut store = linker.instance(&format!("wasi:config/store@{version}"))?;
        store.func_wrap("get", |store, (key,): (String,)| Ok((config_get(store.data(), &key),)))?;
        store.func_wrap("get-all", |store, ()| {
            let all = store.data().secrets.values.iter();
            let all: Vec<(String, String)> =
                all.map(|(name, secret)| (name.clone(), secret.value().to_string())).collect();
            Ok((Ok::<_, ConfigError>(all),))
        })?;
    }
    Ok(())
}

/// The secret `key` of the calling component; an error naming the command that sets
/// it when it is not set (`Ok(None)` would leave the tool to guess why).
fn config_get(state: &CallState, key: &str) -> Result<Option<String>, ConfigError> {
    if let Some(secret) = state.secrets.get(key) {
        return Ok(Some(secret.value().to_string()));
    }
    // Not echoed when it can name no secret (a long one would fill the log).
    if key.len() > 128 || !is_secret_name(key) {
        return Err(ConfigError::Upstream(
            "no secret is named so: a secret's name is letters, digits and '_', not starting with a digit".into(),
        ));
    }
    let component = &state.component;
    tracing::warn!(%component, "the component asked for the secret '{key}', which is not set");
    Err(ConfigError::Upstream(format!(
        "the secret '{key}' is not set for the component '{component}': set it with `toolhost secret set {component} \
         {key}` (the value on stdin)"
    )))
}

/// `wasi:config/store.error`.
#[allow(dead_code, reason = "`io` is part of the interface; the secrets are read before the call")]
#[derive(ComponentType, Lower)]
#[component(variant)]
enum ConfigError {
    #[component(name = "upstream")]
    Upstream(String),
    #[component(name = "io")]
    Io(String),
}

/// `elicit.ask` and `sample.complete`: the call waits in the host for its caller's
/// answer (the wait counts against its time limit).
fn add_asks(linker: &mut Linker<CallState>, version: &str) -> wasmtime::Result<()> {
    linker.instance(&format!("toolhost:tool/elicit@{version}"))?.func_wrap_async(
        "ask",
        |mut store, (message, schema): (String, String)| {
            let answer = match serde_json::from_str(&schema) {
                Ok(schema) => store.data_mut().reports.elicit(Elicitation::new(message, schema)),
                Err(error) => {
                    tracing::warn!(component = %store.data().component, "a question's schema is not JSON ({error}); declined");
                    ready(ElicitationAnswer::Decline).boxed()
                }
            };
            Box::new(async move { Ok((WitAnswer::from(answer.await),)) })
        },
    )?;
    linker.instance(&format!("toolhost:tool/sample@{version}"))?.func_wrap_async(
        "complete",
        |mut store, (messages, system_prompt, max_tokens): (Vec<WitMessage>, Option<String>, u32)| {
            let messages = messages.into_iter().map(|message| (message.role.into(), message.text)).collect();
            let reply = store.data_mut().reports.sample(Sampling::new(messages, system_prompt, max_tokens));
            Box::new(async move { Ok((reply.await,)) })
        },
    )?;
    Ok(())
}

/// A tool's log line: to `tracing`, tagged with its component, and to the caller
/// (its secrets' values taken out).
fn log(state: &mut CallState, level: LogLevel, message: &str) {
    let message = &*redact(message, &state.secrets.values);
    let component = state.component.clone();
    match level {
        LogLevel::Trace => tracing::trace!(target: "toolhost::guest", %component, "{message}"),
        LogLevel::Debug => tracing::debug!(target: "toolhost::guest", %component, "{message}"),
        LogLevel::Info => tracing::info!(target: "toolhost::guest", %component, "{message}"),
        LogLevel::Warn => tracing::warn!(target: "toolhost::guest", %component, "{message}"),
        LogLevel::Error => tracing::error!(target: "toolhost::guest", %component, "{message}"),
    }
    state.reports.log(level, &component, message);
}

fn option_f64(value: &Val) -> Option<f64> {
    match value {
        Val::Option(Some(inner)) => match **inner {
            Val::Float64(number) => Some(number),
            _ => None,
        },
        _ => None,
    }
}

fn option_string(value: &Val) -> Option<String> {
    match value {
        Val::Option(Some(inner)) => match &**inner {
            Val::String(text) => Some(text.clone()),
            _ => None,
        },
        _ => None,
    }
}

// The `content` interface's types as wasmtime lifts them (typed, so that an image's
// bytes are copied once rather than as one `Val` per byte).

/// `content.media`.
#[derive(ComponentType, Lift)]
#[component(record)]
struct Media {
    data: Vec<u8>,
    #[component(name = "mime-type")]
    mime_type: String,
}

/// `content.contents`.
#[derive(ComponentType, Lift)]
#[component(variant)]
enum Contents {
    #[component(name = "text")]
    Text(String),
    #[component(name = "blob")]
    Blob(Vec<u8>),
}

/// `content.embedded-resource`.
#[derive(ComponentType, Lift)]
#[component(record)]
struct Embedded {
    uri: String,
    #[component(name = "mime-type")]
    mime_type: Option<String>,
    contents: Contents,
}

/// `content.resource-link`.
#[derive(ComponentType, Lift)]
#[component(record)]
struct Link {
    uri: String,
    name: String,
    description: Option<String>,
    #[component(name = "mime-type")]
    mime_type: Option<String>,
}

/// `content.block`.
#[derive(ComponentType, Lift)]
#[component(variant)]
enum Block {
    #[component(name = "text")]
    Text(String),
    #[component(name = "image")]
    Image(Media),
    #[component(name = "audio")]
    Audio(Media),
    #[component(name = "resource-link")]
    ResourceLink(Link),
    #[component(name = "embedded")]
    Embedded(Embedded),
}

impl From<Block> for Content {
    fn from(block: Block) -> Content {
        match block {
            Block::Text(text) => Content::text(text),
            Block::Image(media) => Content::image(media.data, media.mime_type),
            Block::Audio(media) => Content::audio(media.data, media.mime_type),
            Block::ResourceLink(link) => {
                Content::ResourceLink(ResourceLink::new(link.uri, link.name, link.description, link.mime_type))
            }
            Block::Embedded(resource) => {
                let contents = match resource.contents {
                    Contents::Text(text) => ResourceContents::Text { text },
                    Contents::Blob(blob) => ResourceContents::Blob { blob },
                };
                Content::resource(resource.uri, resource.mime_type, contents)
            }
        }
    }
}

/// `elicit.answer`.
#[derive(ComponentType, Lower)]
#[component(variant)]
enum WitAnswer {
    #[component(name = "accept")]
    Accept(String),
    #[component(name = "decline")]
    Decline,
    #[component(name = "cancel")]
    Cancel,
}

impl From<ElicitationAnswer> for WitAnswer {
    fn from(answer: ElicitationAnswer) -> WitAnswer {
        match answer {
            ElicitationAnswer::Accept(values) => WitAnswer::Accept(values.to_string()),
            ElicitationAnswer::Decline => WitAnswer::Decline,
            ElicitationAnswer::Cancel => WitAnswer::Cancel,
        }
    }
}

/// `sample.role`.
#[allow(dead_code, reason = "its cases are made by wasmtime's `Lift`, which the lint does not see")]
#[derive(ComponentType, Lift, Clone, Copy)]
#[component(enum)]
#[repr(u8)]
enum WitRole {
    #[component(name = "user")]
    User,
    #[component(name = "assistant")]
    Assistant,
}

impl From<WitRole> for SamplingRole {
    fn from(role: WitRole) -> SamplingRole {
        match role {
            WitRole::User => SamplingRole::User,
            WitRole::Assistant => SamplingRole::Assistant,
        }
    }
}

/// `sample.message`.
#[derive(ComponentType, Lift)]
#[component(record)]
struct WitMessage {
    role: WitRole,
    text: String,
}
