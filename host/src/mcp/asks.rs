//! A tool's questions sent to the MCP client that made the call: a question for the
//! person as `elicitation/create` (form mode), a request to the client's model as
//! `sampling/createMessage`. A client without the capability is not asked: the
//! question is declined, the request told why.

#![allow(deprecated, reason = "rmcp marks MCP sampling deprecated (SEP-2577); the revisions we serve still have it")]

use rmcp::model::{CreateMessageRequestParams, ElicitRequestParams, ElicitationAction};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};

use crate::sandbox::{Elicitation, ElicitationAnswer, Sampling, SamplingRole};

/// Why a client is not asked for its model's text.
pub(super) const NO_SAMPLING: &str = "the MCP client has no model to ask (it did not declare sampling)";

/// Asks the client's user `question`; declines for a client that cannot ask, or a
/// schema MCP elicitation does not take.
pub(super) async fn elicit(peer: Peer<RoleServer>, question: Elicitation) -> ElicitationAnswer {
    if !peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
        tracing::debug!("a tool's question declined: the MCP client has no elicitation capability");
        return ElicitationAnswer::Decline;
    }
    let params: ElicitRequestParams = match serde_json::from_value(elicitation_params(&question)) {
        Ok(params) => params,
        Err(error) => {
            tracing::warn!("a tool's question declined: its schema is not one MCP elicitation takes ({error})");
            return ElicitationAnswer::Decline;
        }
    };
    match peer.create_elicitation(params).await {
        Ok(answer) => match answer.action {
            ElicitationAction::Accept => ElicitationAnswer::Accept(answer.content.unwrap_or_else(|| json!({}))),
            ElicitationAction::Decline => ElicitationAnswer::Decline,
            // Cancel, and any action a later revision adds: not an answer.
            _ => ElicitationAnswer::Cancel,
        },
        Err(error) => {
            tracing::info!("a tool's question got no answer from the MCP client: {error}");
            ElicitationAnswer::Cancel
        }
    }
}

/// Asks the client's model to continue `request`'s conversation: the text it wrote,
/// or why there is none.
pub(super) async fn sample(peer: Peer<RoleServer>, request: Sampling) -> Result<String, String> {
    let can_sample = peer.peer_info().is_some_and(|client| client.capabilities.sampling.is_some());
    if !can_sample {
        return Err(NO_SAMPLING.into());
    }
    let params: CreateMessageRequestParams = serde_json::from_value(sampling_params(&request))
        .map_err(|error| format!("the request cannot be sent: {error}"))?;
    let reply = peer.create_message(params).await.map_err(|error| format!("the MCP client did not answer: {error}"))?;
    reply_text(&serde_json::to_value(&reply).unwrap_or_default())
}

/// The parameters of `elicitation/create` (form mode) for `question`, as MCP's JSON.
pub(super) fn elicitation_params(question: &Elicitation) -> Value {
    json!({"mode": "form", "message": question.message, "requestedSchema": question.schema})
}

/// The parameters of `sampling/createMessage` for `request`, as MCP's JSON.
pub(super) fn sampling_params(request: &Sampling) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|(role, text)| {
            let role = match role {
                SamplingRole::User => "user",
                SamplingRole::Assistant => "assistant",
            };
            json!({"role": role, "content": {"type": "text", "text": text}})
        })
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": request.max_tokens});
    if let Some(prompt) = &request.system_prompt {
        params["systemPrompt"] = Value::String(prompt.clone());
    }
    params
}

/// The text of a `sampling/createMessage` result: its text block, or its text blocks
/// joined; an error when it has none.
pub(super) fn reply_text(reply: &Value) -> Result<String, String> {
    let blocks = match &reply["content"] {
        Value::Array(blocks) => blocks.clone(),
        block => vec![block.clone()],
    };
    let texts: Vec<&str> = blocks.iter().filter_map(|block| block["text"].as_str()).collect();
    if texts.is_empty() {
        return Err(format!("the model's reply has no text (it sent {})", reply["content"]));
    }
    Ok(texts.join("\n"))
}
