//! What components offer besides tools, served over MCP: `resources/list`,
//! `resources/templates/list`, `resources/read`, `resources/subscribe` and
//! `unsubscribe`, `prompts/list`, `prompts/get` and `completion/complete`. The host
//! gathers them ([`Host::list_resources`] and the rest); this module puts them in
//! rmcp's types, declares the capabilities only when some component has them, and,
//! after a reload, tells a session's client that the lists changed and which of the
//! resources it subscribed to now read differently.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResult,
    ResourceUpdatedNotificationParam, ServerCapabilities,
};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::ToolError;
use crate::host::Host;

/// Adds to `capabilities` what the host's components offer: resources (with
/// subscriptions), prompts and completion.
pub(super) fn declare(host: &Host, capabilities: &mut ServerCapabilities) {
    if host.has_resources() {
        capabilities.resources = read_json(json!({"subscribe": true, "listChanged": true})).ok();
    }
    if host.has_prompts() {
        capabilities.prompts = read_json(json!({"listChanged": true})).ok();
        capabilities.completions = Some(serde_json::Map::new());
    }
}

pub(super) async fn list_resources(host: &Host) -> Result<ListResourcesResult, ErrorData> {
    result(json!({"resources": host.list_resources().await}))
}

pub(super) async fn list_templates(host: &Host) -> Result<ListResourceTemplatesResult, ErrorData> {
    result(json!({"resourceTemplates": host.list_resource_templates().await}))
}

pub(super) async fn read_resource(
    host: &Host,
    request: ReadResourceRequestParams,
) -> Result<ReadResourceResult, ErrorData> {
    match host.read_resource(&request.uri).await {
        Ok(contents) => result(json!({"contents": contents})),
        Err(ToolError::Unavailable { reason, .. }) => {
            Err(ErrorData::resource_not_found(format!("{}: {reason}", request.uri), Some(json!({"uri": request.uri}))))
        }
        Err(error) => Err(ErrorData::invalid_params(error.to_string(), Some(json!({"uri": request.uri})))),
    }
}

/// How many resources one session may subscribe to: each is read again after every
/// reload.
const MAX_SUBSCRIPTIONS: usize = 1_000;

/// The resources one session subscribed to, each with a digest of the contents its
/// client last had news of (`None`: the resource could not be read then).
#[derive(Clone, Default)]
pub(super) struct Subscriptions(Arc<Mutex<BTreeMap<String, Option<u64>>>>);

impl Subscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Option<u64>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Subscribes to `uri` as it reads now.
    pub(super) async fn add(&self, host: &Host, uri: String) -> Result<(), ErrorData> {
        let full = {
            let subscribed = self.lock();
            subscribed.len() >= MAX_SUBSCRIPTIONS && !subscribed.contains_key(&uri)
        };
        if full {
            let message =
                format!("a session may subscribe to at most {MAX_SUBSCRIPTIONS} resources: unsubscribe from one first");
            return Err(ErrorData::invalid_params(message, Some(json!({"uri": uri}))));
        }
        let digest = digest(host, &uri).await;
        self.lock().insert(uri, digest);
        Ok(())
    }

    pub(super) fn remove(&self, uri: &str) {
        self.lock().remove(uri);
    }

    /// The subscribed resources whose contents differ from those last told of (one
    /// gone or unreadable counts), in URI order; each is now told of.
    async fn changed(&self, host: &Host) -> Vec<String> {
        let subscribed: Vec<(String, Option<u64>)> = self.lock().clone().into_iter().collect();
        let mut changed = Vec::new();
        for (uri, told) in subscribed {
            let now = digest(host, &uri).await;
            if now != told {
                // Kept only while still subscribed (an unsubscribe may have come meanwhile).
                if let Some(entry) = self.lock().get_mut(&uri) {
                    *entry = now;
                    changed.push(uri);
                }
            }
        }
        changed
    }
}

/// A digest of what `uri` reads as now, or `None` when it cannot be read.
async fn digest(host: &Host, uri: &str) -> Option<u64> {
    let contents = host.read_resource(uri).await.ok()?;
    let mut hasher = DefaultHasher::new();
    serde_json::to_string(&contents).ok()?.hash(&mut hasher);
    Some(hasher.finish())
}

/// Tells `peer`, after a reload, what changed besides the tools: the resource and
/// prompt lists (when the host has any), then each subscribed resource that reads
/// differently (`notifications/resources/updated`).
pub(super) async fn tell_changes(
    host: &Host,
    subscriptions: &Subscriptions,
    peer: &Peer<RoleServer>,
) -> Result<(), String> {
    if host.has_resources() {
        peer.notify_resource_list_changed().await.map_err(|e| e.to_string())?;
    }
    if host.has_prompts() {
        peer.notify_prompt_list_changed().await.map_err(|e| e.to_string())?;
    }
    for uri in subscriptions.changed(host).await {
        peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await.map_err(|e| e.to_string())?;
    }
    Ok(())
}

pub(super) async fn list_prompts(host: &Host) -> Result<ListPromptsResult, ErrorData> {
    result(json!({"prompts": host.list_prompts().await}))
}

pub(super) async fn get_prompt(host: &Host, request: GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    let arguments = request.arguments.unwrap_or_default();
    match host.get_prompt(&request.name, &arguments).await {
        Ok(messages) => result(json!({"messages": messages})),
        Err(error) => Err(ErrorData::invalid_params(error.to_string(), Some(json!({"name": request.name})))),
    }
}

pub(super) async fn complete(host: &Host, request: CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let reference = serde_json::to_value(&request.r#ref).unwrap_or_default();
    let (argument, value) = (&request.argument.name, &request.argument.value);
    let values = match (reference["type"].as_str(), &reference["name"], &reference["uri"]) {
        (Some("ref/prompt"), Value::String(name), _) => host.complete_prompt(name, argument, value).await,
        (Some("ref/resource"), _, Value::String(uri)) => host.complete_template(uri, argument, value).await,
        _ => Vec::new(),
    };
    // MCP allows at most 100 values in one answer.
    let total = values.len();
    let shown: Vec<String> = values.into_iter().take(100).collect();
    result(json!({"completion": {"values": shown, "total": total, "hasMore": total > 100}}))
}

/// A result of rmcp's type from MCP's JSON, marked complete (revision 2026-07-28
/// requires `resultType`; rmcp takes it away for clients of older revisions).
fn result<T: DeserializeOwned>(mut json: Value) -> Result<T, ErrorData> {
    json["resultType"] = json!("complete");
    read_json(json)
}

/// An rmcp type from MCP's JSON (many of rmcp's types cannot be built field by field).
fn read_json<T: DeserializeOwned>(json: Value) -> Result<T, ErrorData> {
    serde_json::from_value(json)
        .map_err(|error| ErrorData::internal_error(format!("an answer rmcp does not take: {error}"), None))
}
