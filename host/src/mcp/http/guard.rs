//! What an MCP request passes before rmcp sees it: its bearer token (a static one,
//! or an OAuth access token: `auth.rs`; a wrong one learns nothing about the tools),
//! its caller's request limit (else 429), the plugins having
//! loaded, its body arriving in time and within the limit (else 408 or 413), and a
//! turn among the requests handled at once (`turns.rs`: a bounded queue shared fairly
//! among callers, then 503 with `Retry-After`). `/health` passes none of them. Once the server is stopping, every
//! answer closes its connection and `/health` says so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::auth::{Authorizer, Refusal};
use super::direct::Direct;
use super::listener::ClientAddress;
use super::turns::Turns;
use super::{HttpOptions, Ready};
use crate::mcp::Caller;

/// The caller of a server that asks for no token.
pub(super) const ANONYMOUS: &str = "anonymous";

/// The guards' state, shared by every connection.
pub(super) struct Guards {
    /// Who may send requests.
    auth: Authorizer,
    ready: Ready,
    turns: Turns,
    max_body_bytes: usize,
    io_timeout: Duration,
    /// Cleared once the server is stopping: answers then close their connections.
    keep_alive: AtomicBool,
    /// Requests each caller may send a minute.
    rate_limits: Option<std::sync::Arc<crate::mcp::RateLimits>>,
    /// The profiles served, each at `/mcp/NAME`.
    profiles: Vec<String>,
    /// Plain stateless calls, answered without rmcp's per-request service.
    direct: Direct,
}

impl Guards {
    pub(super) fn new(options: &HttpOptions, ready: Ready, direct: Direct) -> Guards {
        Guards {
            auth: Authorizer::new(&options.all_tokens(), options.oauth.as_ref()),
            ready,
            turns: Turns::new(
                options.max_concurrent_requests.max(1),
                options.max_queued_requests,
                options.queue_timeout,
            ),
            max_body_bytes: options.max_body_bytes,
            io_timeout: options.io_timeout,
            keep_alive: AtomicBool::new(true),
            rate_limits: options.rate_limits.clone(),
            profiles: options.profiles.keys().cloned().collect(),
            direct,
        }
    }

    /// The 404 for a path below `/mcp` that names no profile served.
    fn unknown_profile(&self, path: &str) -> Option<Response> {
        let name = crate::mcp::profiles::named_in(path)?;
        if self.profiles.iter().any(|profile| profile == name) {
            return None;
        }
        let served: Vec<String> = self.profiles.iter().map(|profile| format!("/mcp/{profile}")).collect();
        let why = match served.is_empty() {
            true => "no profile is served here: the tools are at /mcp".to_string(),
            false => format!("no such profile: the tools are at /mcp, and the profiles at {}", served.join(", ")),
        };
        Some(refusal(StatusCode::NOT_FOUND, &why, None))
    }

    /// Who sent the request (`anonymous` where no token is needed), or the refusal.
    async fn caller(&self, headers: &axum::http::HeaderMap) -> Result<Caller, Response> {
        if !self.auth.required() {
            return Ok(Caller::new(ANONYMOUS));
        }
        self.auth.admit(headers).await.map_err(|refused| {
            let (status, why, retry) = refusal_reason(&refused);
            let mut response = refusal(status, &why, retry);
            if let Ok(challenge) = HeaderValue::from_str(&self.auth.challenge(&refused)) {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
            }
            response
        })
    }

    /// Whether a request must carry a token.
    pub(super) fn requires_token(&self) -> bool {
        self.auth.required()
    }

    /// Who `token` makes its bearer, as a request carrying it to `/mcp` would be
    /// admitted (the console's sign-in), or why it is refused.
    pub(super) async fn admit_token(&self, token: &str) -> Result<Caller, String> {
        let mut headers = axum::http::HeaderMap::new();
        let bearer =
            HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| "that is not a token".to_string())?;
        headers.insert(header::AUTHORIZATION, bearer);
        self.auth.admit(&headers).await.map_err(|refused| refusal_reason(&refused).1)
    }

    /// The Protected Resource Metadata (RFC 9728), when tokens are OAuth's.
    pub(super) fn resource_metadata(&self, scopes_supported: Vec<String>) -> Option<String> {
        Some(self.auth.metadata(scopes_supported)?.to_string())
    }

    /// The request with its body read whole (and the body): within the limit, and in
    /// time. A body announced larger than the limit is refused before it is read.
    pub(super) async fn read_body(&self, request: Request) -> Result<(Request, Bytes), Response> {
        let too_large =
            || refusal(StatusCode::PAYLOAD_TOO_LARGE, "the request body is larger than the server takes", None);
        let announced = request.headers().get(header::CONTENT_LENGTH).and_then(|length| length.to_str().ok());
        if announced
            .and_then(|length| length.parse::<u64>().ok())
            .is_some_and(|length| length > self.max_body_bytes as u64)
        {
            return Err(too_large());
        }
        let (parts, body) = request.into_parts();
        match tokio::time::timeout(self.io_timeout, axum::body::to_bytes(body, self.max_body_bytes)).await {
            Ok(Ok(bytes)) => Ok((Request::from_parts(parts, Body::from(bytes.clone())), bytes)),
            Ok(Err(_)) => Err(too_large()),
            Err(_) => Err(refusal(StatusCode::REQUEST_TIMEOUT, "the request body did not arrive in time", None)),
        }
    }

    /// From now on every answer closes its connection, and `/health` says 503.
    pub(super) fn stop_keeping_alive(&self) {
        self.keep_alive.store(false, Ordering::SeqCst);
    }

    /// Whether no request is being handled now.
    pub(super) fn idle(&self) -> bool {
        self.turns.all_free_now()
    }

    /// Waits until no request is being handled, or `deadline` has passed.
    pub(super) async fn drain(&self, deadline: Duration) {
        match self.turns.all_free(deadline).await {
            true => tracing::info!("every request in flight was answered"),
            false => tracing::warn!("requests still in flight after {} s are cut off", deadline.as_secs()),
        }
    }
}

/// The guards, in order, for everything under `/mcp`; and, while the server stops,
/// `Connection: close` on every answer.
pub(super) async fn check(guards: std::sync::Arc<Guards>, request: Request, next: Next) -> Response {
    let mut response = guarded(&guards, request, next).await;
    if !guards.keep_alive.load(Ordering::SeqCst) {
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

async fn guarded(guards: &Guards, mut request: Request, next: Next) -> Response {
    if !request.uri().path().starts_with("/mcp") {
        return next.run(request).await;
    }
    // Who was let in, for the tools they may use, the rate limits and the audit log.
    let caller = match guards.caller(request.headers()).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    if let Some(wait) = guards.rate_limits.as_ref().and_then(|limits| limits.take_request(&caller).err()) {
        let seconds = u32::try_from(wait.as_secs() + 1).unwrap_or(u32::MAX);
        return refusal(StatusCode::TOO_MANY_REQUESTS, "too many requests: retry after the time given", Some(seconds));
    }
    if let Some(unknown) = guards.unknown_profile(request.uri().path()) {
        return unknown;
    }
    request.extensions_mut().insert(caller);
    if guards.ready.get().is_none() {
        return refusal(StatusCode::SERVICE_UNAVAILABLE, "the tools are still loading", Some(5));
    }
    // Only requests run handlers; the GET of a session's event stream and its DELETE do not.
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let json = request.headers().get(header::CONTENT_TYPE).is_some_and(|media| is_json(media.as_bytes()));
    let (request, body) = match guards.read_body(request).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let (caller, address) = (request.extensions().get::<Caller>(), request.extensions().get::<ClientAddress>());
    let Some(_turn) = guards.turns.take(|| queue_of(caller, address)).await else {
        return refusal(StatusCode::SERVICE_UNAVAILABLE, "the server is busy; retry in a moment", Some(1));
    };
    let (parts, request_body) = request.into_parts();
    if let Some(caller) = parts.extensions.get::<Caller>()
        && let Some(answer) = guards.direct.answer(&parts, &body, caller).await
    {
        return answer;
    }
    let response = next.run(Request::from_parts(parts, request_body)).await;
    // rmcp answers 415 to a JSON body it cannot read as one message: JSON-RPC has
    // errors for that.
    if json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        let (code, message) = crate::mcp::invalid::unreadable_body(&body);
        let error = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code.0, "message": message}});
        return json_response(StatusCode::BAD_REQUEST, &error.to_string());
    }
    response
}

/// Whose queue a request waits in for its turn: its caller's, by the token's name
/// or the OAuth subject; without a token, its client address's.
fn queue_of(caller: Option<&Caller>, address: Option<&ClientAddress>) -> String {
    let caller = caller.map_or(ANONYMOUS, Caller::name);
    match address {
        Some(address) if caller == ANONYMOUS => format!("address {}", address.0),
        _ => format!("caller {caller}"),
    }
}

/// Whether a `Content-Type` is JSON's (`application/json`, with or without parameters).
fn is_json(media: &[u8]) -> bool {
    let essence = media.split(|&byte| byte == b';').next().unwrap_or_default();
    essence.trim_ascii().eq_ignore_ascii_case(b"application/json")
}

/// `/health`: 200 once the plugins are loaded, 503 before and once stopping.
pub(super) async fn health(guards: std::sync::Arc<Guards>) -> Response {
    if !guards.keep_alive.load(Ordering::SeqCst) {
        return json_response(StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"stopping"}"#);
    }
    match guards.ready.get() {
        Some(_) => json_response(StatusCode::OK, r#"{"status":"ready"}"#),
        None => json_response(StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"loading"}"#),
    }
}

/// A JSON document, 200.
pub(super) async fn document(body: std::sync::Arc<str>) -> Response {
    json_response(StatusCode::OK, &body)
}

/// The answer to a refused token: its status, why in a few words, and when to retry.
fn refusal_reason(refused: &Refusal) -> (StatusCode, String, Option<u32>) {
    match refused {
        Refusal::NoToken => (StatusCode::UNAUTHORIZED, "a bearer token is needed".to_string(), None),
        Refusal::InvalidToken(why) => (StatusCode::UNAUTHORIZED, why.clone(), None),
        Refusal::InsufficientScope(why) => (StatusCode::FORBIDDEN, why.clone(), None),
        Refusal::KeysUnavailable => (
            StatusCode::SERVICE_UNAVAILABLE,
            "the authorization server's keys cannot be fetched, so no token can be checked".to_string(),
            Some(5),
        ),
    }
}

/// A refusal in a few words, with `Retry-After` when waiting can help.
fn refusal(status: StatusCode, why: &str, retry_after_seconds: Option<u32>) -> Response {
    let mut response = json_response(status, &serde_json::json!({ "error": why }).to_string());
    if let Some(seconds) = retry_after_seconds {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

fn json_response(status: StatusCode, body: &str) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
