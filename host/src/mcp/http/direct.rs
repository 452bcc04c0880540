//! The common request answered without rmcp's per-request service: a `tools/call`
//! in the stateless revision (2026-07-28) whose headers and body are plainly right
//! goes straight to the handler, its answer written here as rmcp writes it (JSON, or
//! an event stream when the call told progress or log lines first). rmcp builds a
//! whole service for each stateless request (a peer, channels, a task), which costs
//! more server time than the sandboxed call itself.
//!
//! rmcp stays the authority: anything not taken here — another method, a session,
//! an `Origin`, a parameter header, a `_meta` key beyond the revision's own and
//! `progressToken`, a `requestState`, traces, a body that does not read as this
//! exact shape, a call refused before it starts (a tool that needs a task its
//! client cannot take) — is handed to rmcp untouched, which accepts or refuses it
//! as before. So this path only answers what rmcp would have answered the same way.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt as _};
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, ClientCapabilities, JsonObject, ProgressToken, RequestId, ServerJsonRpcMessage,
    ServerNotification, ServerResult,
};
use serde::Deserialize;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::{AllowedHosts, Handler, HttpOptions};
use crate::mcp::{Caller, DirectCall};

/// The revision whose `tools/call` is answered here.
const REVISION: &str = "2026-07-28";

/// What decides whether a request is answered here, and answers it.
pub(super) struct Direct {
    handler: Arc<Handler>,
    /// The `Host` values rmcp lets in.
    hosts: AllowedHosts,
    /// Calls are spans: their trace comes from the request, which rmcp reads.
    tracing: bool,
    /// Cancelled when the server stops: an open event stream ends.
    stopped: CancellationToken,
}

impl Direct {
    /// The path for `handler`, letting in the `Host` values rmcp lets in.
    pub(super) fn new(options: &HttpOptions, handler: Arc<Handler>, stopped: CancellationToken) -> Direct {
        Direct { handler, hosts: AllowedHosts::new(options), tracing: options.tracing, stopped }
    }

    /// The answer to `parts` and `body` when it is taken here, else `None` (for rmcp).
    /// `caller` is who the guards let in.
    pub(super) async fn answer(&self, parts: &Parts, body: &Bytes, caller: &Caller) -> Option<Response> {
        if self.tracing || !self.headers_plain(&parts.headers) {
            return None;
        }
        let message = read(body)?;
        if !names_match(&parts.headers, &message.params.name) {
            return None;
        }
        let server = self.handler.get()?;
        // The name for the debug line, copied only when that line is written.
        let logged = tracing::enabled!(tracing::Level::DEBUG).then(|| message.params.name.clone());
        let call = DirectCall {
            name: message.params.name,
            arguments: message.params.arguments,
            capabilities: message.params.meta.capabilities,
            progress_token: message.params.meta.progress_token,
            caller: caller.clone(),
            profile: crate::mcp::profiles::named_in(parts.uri.path()).map(str::to_string),
        };
        let (notices, told) = mpsc::unbounded_channel();
        // Dropped with the answer before it is complete (the client left): the call stops.
        let left = CancellationToken::new();
        let closed = left.clone().cancelled_owned();
        let answer = server.call_directly(call, notices, closed)?;
        if let Some(name) = logged {
            tracing::debug!("the stateless call of '{name}' is answered without rmcp's per-request service");
        }
        let (answered, answer_told) = oneshot::channel();
        tokio::spawn(async move {
            let _ = answered.send(answer.await);
        });
        Some(respond(message.id, told, answer_told, left.drop_guard(), self.stopped.clone()).await)
    }

    /// Whether the headers are those of a plain stateless call rmcp lets in: the
    /// revision's version, no session, no `Origin`, an allowed `Host`, JSON in, JSON
    /// and event streams accepted, the standard headers once each, no parameter headers.
    fn headers_plain(&self, headers: &HeaderMap) -> bool {
        let once = |name: &str| only_value(headers, name);
        once("mcp-protocol-version") == Some(REVISION)
            && once("mcp-method") == Some("tools/call")
            && once(header::CONTENT_TYPE.as_str()).is_some_and(|media| media.eq_ignore_ascii_case("application/json"))
            && once(header::ACCEPT.as_str()).is_some_and(accepts_both)
            && self.hosts.allow(once(header::HOST.as_str()))
            && !headers.contains_key("mcp-session-id")
            && !headers.contains_key(header::ORIGIN)
            && !headers.keys().any(|name| name.as_str().starts_with("mcp-param-"))
    }
}

/// Whether an `Accept` header takes both JSON and event streams, each plainly
/// (a media range with parameters, such as a weight, is left to rmcp).
fn accepts_both(accept: &str) -> bool {
    let mut ranges = accept.split(',').map(str::trim);
    let plain = |wanted: &str| accept.split(',').map(str::trim).any(|range| range.eq_ignore_ascii_case(wanted));
    !ranges.any(|range| range.contains(';')) && plain("application/json") && plain("text/event-stream")
}

/// Whether `Mcp-Name` is the body's tool name, as it is (rmcp decodes a Base64 one).
fn names_match(headers: &HeaderMap, name: &str) -> bool {
    only_value(headers, "mcp-name").is_some_and(|value| value == name && !value.starts_with("=?"))
}

/// The header's value, when it is given once, as text.
fn only_value<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    values.next().filter(|_| values.next().is_none()).and_then(|value| value.to_str().ok())
}

/// A stateless `tools/call` body of exactly this shape: anything else (other keys, a
/// duplicate key, another type) does not read, and goes to rmcp.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: JsonRpc,
    id: RequestId,
    #[serde(rename = "method")]
    _method: ToolsCall,
    params: Params,
}

#[derive(Deserialize)]
enum JsonRpc {
    #[serde(rename = "2.0")]
    V2,
}

#[derive(Deserialize)]
enum ToolsCall {
    #[serde(rename = "tools/call")]
    ToolsCall,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    #[serde(rename = "_meta")]
    meta: Meta,
}

/// The request's `_meta`: the revision's own keys only.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    _version: Revision,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    capabilities: ClientCapabilities,
    /// Read by nothing here; rmcp keeps it for the peer, which this path has not.
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
    _client_info: Option<serde::de::IgnoredAny>,
    #[serde(rename = "progressToken", default)]
    progress_token: Option<ProgressToken>,
}

#[derive(Deserialize)]
enum Revision {
    #[serde(rename = "2026-07-28")]
    Current,
}

/// The body as a plain stateless call, if it is one.
fn read(body: &Bytes) -> Option<Message> {
    serde_json::from_slice(body).ok()
}

/// The answer to the call `id`: JSON when the call told nothing before its answer,
/// else an event stream of what it told, then the answer (as rmcp answers).
async fn respond(
    id: RequestId,
    told: mpsc::UnboundedReceiver<ServerNotification>,
    answer: oneshot::Receiver<Result<CallToolResponse, ErrorData>>,
    left: tokio_util::sync::DropGuard,
    stopped: CancellationToken,
) -> Response {
    let mut messages = Box::pin(messages(id, told, answer, left));
    match messages.next().await {
        Some(answer @ (ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_))) => json(&answer),
        first => event_stream(futures::stream::iter(first).chain(messages), stopped),
    }
}

/// What the call tells (looked at first: it comes before the answer), then its
/// answer, which disarms `left`.
fn messages(
    id: RequestId,
    told: mpsc::UnboundedReceiver<ServerNotification>,
    answer: oneshot::Receiver<Result<CallToolResponse, ErrorData>>,
    left: tokio_util::sync::DropGuard,
) -> impl Stream<Item = ServerJsonRpcMessage> + Send {
    futures::stream::unfold(Some((id, told, answer, left)), |state| async move {
        let (id, mut told, mut answer, left) = state?;
        tokio::select! {
            biased;
            Some(notice) = told.recv() => Some((ServerJsonRpcMessage::notification(notice), Some((id, told, answer, left)))),
            answered = &mut answer => {
                left.disarm();
                Some((message(id, answered), None))
            }
        }
    })
}

/// The answer as a JSON-RPC message (a lost answer an internal error, as rmcp has it).
fn message(
    id: RequestId,
    answered: Result<Result<CallToolResponse, ErrorData>, oneshot::error::RecvError>,
) -> ServerJsonRpcMessage {
    let lost = || ErrorData::internal_error("the call ended without an answer", None);
    match answered.unwrap_or_else(|_| Err(lost())) {
        Ok(response) => ServerJsonRpcMessage::response(ServerResult::from(response), id),
        Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
    }
}

/// A JSON-RPC message as a JSON answer, 200 (the errors of this path are all 200's
/// in rmcp's mapping).
fn json(message: &ServerJsonRpcMessage) -> Response {
    let body = serde_json::to_vec(message).unwrap_or_default();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::OK;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// Messages as an event stream, kept alive, ended when the server stops.
fn event_stream(
    messages: impl Stream<Item = ServerJsonRpcMessage> + Send + 'static,
    stopped: CancellationToken,
) -> Response {
    let events = messages
        .map(|message| Ok::<_, Infallible>(Event::default().data(serde_json::to_string(&message).unwrap_or_default())))
        .take_until(stopped.cancelled_owned());
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_plain_shape_reads() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let plain = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}}}"#
        );
        assert!(read(&Bytes::from(plain.clone())).is_some());
        let with_token = plain.replace(r#""_meta":{"#, r#""_meta":{"progressToken":"p-1","#);
        assert!(read(&Bytes::from(with_token)).is_some_and(|message| message.params.meta.progress_token.is_some()));
        for other in [
            // a log level, another revision, another method, a duplicate key, no meta
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","_meta":{{"io.modelcontextprotocol/logLevel":"info",{}}}}}}}"#,
                &meta[9..meta.len() - 1]
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo",{}}}}}"#,
                meta.replace("2026-07-28", "2025-11-25")
            ),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"name":"echo",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/call","params":{{"name":"echo",{meta}}}}}"#),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}"#.to_string(),
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","requestState":"x",{meta}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":[1],{meta}}}}}"#
            ),
        ] {
            assert!(read(&Bytes::from(other.clone())).is_none(), "{other}");
        }
    }

    #[test]
    fn accept_must_name_both_plainly() {
        assert!(accepts_both("application/json, text/event-stream"));
        assert!(accepts_both("text/event-stream,application/json"));
        assert!(!accepts_both("application/json"));
        assert!(!accepts_both("application/json, text/event-stream;q=0"));
        assert!(!accepts_both("*/*"));
    }
}
