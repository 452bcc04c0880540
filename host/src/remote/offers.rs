//! A server's own resources and prompts, asked for on its connection: listed, read,
//! got and completed, as MCP's JSON, under the file's time limit (or 10 s). A server
//! that did not declare resources or prompts is not asked for them.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CompleteRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};

use super::RemoteServer;
use crate::mutex::lock;
use crate::tool::Asked;

/// How long a request of these waits for the server when its file sets no `timeout_ms`.
const DEFAULT_WAIT: Duration = Duration::from_secs(10);

impl RemoteServer {
    /// Whether the server declared resources, and whether it declared prompts, when
    /// it last started.
    pub(crate) fn offers(&self) -> (bool, bool) {
        *lock(&self.declared)
    }

    /// Sends `asked` and waits for the answer, as MCP's JSON; the server's error, or
    /// why it could not be asked, in words.
    pub(crate) async fn ask(self: &Arc<Self>, asked: Asked) -> Result<Value, String> {
        let limit = self.config.timeout.unwrap_or(DEFAULT_WAIT);
        let server = self.clone();
        let exchange = async move {
            let client = server.client().await.map_err(|_| "it cannot be reached".to_string())?;
            let answer = tokio::time::timeout(limit, send(&client, asked)).await;
            answer.map_err(|_| format!("it did not answer within {} ms", limit.as_millis()))?
        };
        match self.runtime.spawn(exchange) {
            Some(task) => task.await.unwrap_or_else(|_| Err("it was stopped with the host".into())),
            None => Err("it was stopped with the host".into()),
        }
    }
}

/// One request on the connection, its answer as JSON.
async fn send(client: &super::connection::Client, asked: Asked) -> Result<Value, String> {
    let failed = |error: rmcp::service::ServiceError| error.to_string();
    let json = |answer: Result<Value, serde_json::Error>| answer.map_err(|error| error.to_string());
    match asked {
        Asked::Resources => json(serde_json::to_value(client.list_all_resources().await.map_err(failed)?)),
        Asked::Templates => json(serde_json::to_value(client.list_all_resource_templates().await.map_err(failed)?)),
        Asked::Read(uri) => {
            let params: ReadResourceRequestParams = parsed(json!({"uri": uri}))?;
            json(serde_json::to_value(client.read_resource(params).await.map_err(failed)?))
        }
        Asked::Prompts => json(serde_json::to_value(client.list_all_prompts().await.map_err(failed)?)),
        Asked::Prompt(name, arguments) => {
            let params: GetPromptRequestParams = parsed(json!({"name": name, "arguments": arguments}))?;
            json(serde_json::to_value(client.get_prompt(params).await.map_err(failed)?))
        }
        Asked::Complete(reference, argument, value) => {
            let params: CompleteRequestParams =
                parsed(json!({"ref": reference, "argument": {"name": argument, "value": value}}))?;
            json(serde_json::to_value(client.complete(params).await.map_err(failed)?))
        }
    }
}

/// rmcp's request parameters from MCP's JSON.
fn parsed<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, String> {
    serde_json::from_value(params).map_err(|error| format!("the request cannot be made: {error}"))
}
