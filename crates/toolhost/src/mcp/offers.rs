//! What components offer besides tools, served over MCP: `resources/list`,
//! `resources/templates/list`, `resources/read`, `resources/subscribe` and
//! `unsubscribe` (accepted; components cannot yet say a resource changed),
//! `prompts/list`, `prompts/get` and `completion/complete`. The host gathers them
//! ([`Host::list_resources`] and the rest); this module puts them in rmcp's types,
//! and declares the capabilities only when some component has them.

use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResult,
    ServerCapabilities,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::ToolError;
use crate::host::Host;

/// Adds to `capabilities` what the host's components offer: resources (with
/// subscriptions), prompts and completion.
pub(super) fn declare(host: &Host, capabilities: &mut ServerCapabilities) {
    if host.has_resources() {
        capabilities.resources = read_json(json!({"subscribe": true, "listChanged": false})).ok();
    }
    if host.has_prompts() {
        capabilities.prompts = read_json(json!({"listChanged": false})).ok();
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
