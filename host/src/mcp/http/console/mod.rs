//! The console (`HttpOptions::console`): web pages at `/console` for people — the
//! tools, searched and read, and Try, which shows what the host makes of what a model
//! wrote, step by step, and runs it only when asked; the recent calls, and the
//! server's health with calls and latency drawn over the last ten minutes (`pages.rs`,
//! `attempt.rs` and `charts.rs` render them).
//!
//! It is served beside `/mcp`, or alone beside a server on stdio (`HttpOptions::mcp`
//! off), behind the same access as `/mcp`: a person signs in once with a token (a
//! static one or an OAuth access token, typed into a form, never in a URL), and a
//! session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` unless the page is on
//! loopback) carries who they are; they see and run the tools that caller may use.
//! Every page is rendered here with its text escaped, under a Content-Security-Policy
//! that runs no script and loads nothing but the console's own style sheet; a form is
//! taken only from the console's own origin, and only for the host names `/mcp`
//! answers.

mod attempt;
mod charts;
mod pages;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Form, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use super::guard::Guards;
use super::{AllowedHosts, Handler, HttpOptions};
use crate::host::Host;
use crate::mcp::recent::RecentCalls;
use crate::mcp::{Caller, McpServer};
use crate::mutex::lock;

/// The session cookie's name.
const COOKIE: &str = "toolhost_console";
/// How long a sign-in lasts.
const SESSION_LIFETIME: Duration = Duration::from_secs(8 * 3600);
/// Sessions held at once; the oldest makes way past it.
const MAX_SESSIONS: usize = 10_000;
/// Tools the tools page lists without a search (a search shows the 50 that fit best).
const MAX_LISTED: usize = 500;
/// Calls Try runs from one reply at most.
const MAX_RUNS: usize = 8;
/// What a page may load and do: its own style sheet and images inline, no script,
/// forms back to itself, no frame around it.
const CONTENT_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; \
                              frame-ancestors 'none'; base-uri 'none'";

/// The console's state, shared by its pages.
pub(super) struct Console {
    handler: Arc<Handler>,
    guards: Arc<Guards>,
    hosts: AllowedHosts,
    sessions: Mutex<HashMap<String, Session>>,
    recent: Arc<RecentCalls>,
}

/// A person signed in: the caller their token made them, until when.
struct Session {
    caller: Caller,
    until: Instant,
}

/// The console's routes, under `/console`.
pub(super) fn router(
    options: &HttpOptions,
    handler: Arc<Handler>,
    guards: Arc<Guards>,
    recent: Arc<RecentCalls>,
) -> Router {
    let hosts = AllowedHosts::new(options);
    let console = Arc::new(Console { handler, guards, hosts, sessions: Mutex::default(), recent });
    Router::new()
        .route("/console", get(|| async { Redirect::to("/console/tools") }))
        .route("/console/", get(|| async { Redirect::to("/console/tools") }))
        .route("/console/sign-in", get(sign_in_page).post(sign_in))
        .route("/console/sign-out", post(sign_out))
        .route("/console/tools", get(tools))
        .route("/console/tools/{name}", get(tool))
        .route("/console/try", get(try_page).post(try_call))
        .route("/console/calls", get(calls))
        .route("/console/health", get(health))
        .route("/console/console.css", get(style))
        // On the console's routes only: a path no route takes is not the console's.
        .route_layer(axum::middleware::from_fn_with_state(console.clone(), protect))
        .route_layer(DefaultBodyLimit::max(options.max_body_bytes))
        .with_state(console)
}

impl Console {
    /// The caller of the session the request's cookie names, if it is current.
    fn session(&self, headers: &HeaderMap) -> Option<Caller> {
        let id = session_cookie(headers)?;
        let sessions = lock(&self.sessions);
        let session = sessions.get(id).filter(|session| session.until > Instant::now())?;
        Some(session.caller.clone())
    }

    /// A new session for `caller`: its id.
    fn open_session(&self, caller: Caller) -> Option<String> {
        let id = crate::mcp::rounds::random_name()?;
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        sessions.retain(|_, session| session.until > now);
        if sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = sessions.iter().min_by_key(|(_, session)| session.until).map(|(id, _)| id.clone())
        {
            sessions.remove(&oldest);
        }
        sessions.insert(id.clone(), Session { caller, until: now + SESSION_LIFETIME });
        Some(id)
    }

    /// The handler, once the plugins have loaded.
    fn server(&self) -> Option<&McpServer> {
        self.handler.get()
    }
}

/// The page for a console whose tools have not loaded yet.
fn loading() -> Response {
    let page = pages::message("Loading", "The tools are still loading: reload this page in a moment.");
    (StatusCode::SERVICE_UNAVAILABLE, page).into_response()
}

/// Who is looking: the caller of their session, or `anonymous` on a server that asks
/// for no token. Anyone else is sent to sign in.
pub(super) struct Viewer {
    caller: Caller,
    /// Whether they signed in (and so may sign out).
    signed_in: bool,
}

impl FromRequestParts<Arc<Console>> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, console: &Arc<Console>) -> Result<Viewer, Response> {
        if let Some(caller) = console.session(&parts.headers) {
            return Ok(Viewer { caller, signed_in: true });
        }
        if !console.guards.requires_token() {
            return Ok(Viewer { caller: Caller::new(super::guard::ANONYMOUS), signed_in: false });
        }
        Err(Redirect::to("/console/sign-in").into_response())
    }
}

impl Viewer {
    /// The host as this viewer may see it.
    fn host(&self, server: &McpServer) -> Host {
        server.view(&self.caller, None)
    }
}

/// For every console request: a host name `/mcp` answers, a form only from the
/// console's own origin (its body read in time and within the limit), and the
/// headers that keep a page to itself on every answer.
async fn protect(State(console): State<Arc<Console>>, request: Request, next: Next) -> Response {
    let mut response = if !console.hosts.allow(request.headers().get(header::HOST).and_then(|v| v.to_str().ok())) {
        plain(StatusCode::FORBIDDEN, "This host name is not served: add it to the server's allowed hosts.")
    } else if request.method() == Method::POST && !same_origin(request.headers()) {
        plain(StatusCode::FORBIDDEN, "A form of the console is taken only from the console's own pages.")
    } else if request.method() == Method::POST {
        match console.guards.read_body(request).await {
            Ok((request, _)) => next.run(request).await,
            Err(refused) => refused,
        }
    } else {
        next.run(request).await
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    response
}

/// Whether a form came from a page of this server: its `Origin` names the host the
/// request was sent to.
fn same_origin(headers: &HeaderMap) -> bool {
    let value = |name| headers.get(name).and_then(|value: &HeaderValue| value.to_str().ok());
    let (Some(origin), Some(host)) = (value(header::ORIGIN), value(header::HOST)) else { return false };
    let authority = origin.strip_prefix("https://").or_else(|| origin.strip_prefix("http://"));
    authority.is_some_and(|authority| authority.eq_ignore_ascii_case(host))
}

/// The session id the request's cookie carries.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    let cookies = headers.get_all(header::COOKIE).into_iter().filter_map(|value| value.to_str().ok());
    cookies.flat_map(|line| line.split(';')).find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        (name == COOKIE).then_some(value)
    })
}

/// A short text answer.
fn plain(status: StatusCode, text: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response()
}

async fn style() -> Response {
    let headers = [(header::CONTENT_TYPE, "text/css; charset=utf-8"), (header::CACHE_CONTROL, "max-age=3600")];
    (headers, include_str!("console.css")).into_response()
}

async fn sign_in_page(State(console): State<Arc<Console>>, headers: HeaderMap) -> Response {
    pages::sign_in(console.guards.requires_token(), !is_loopback(host_of(&headers)), None).into_response()
}

/// The host name a request was sent to.
fn host_of(headers: &HeaderMap) -> &str {
    headers.get(header::HOST).and_then(|value| value.to_str().ok()).unwrap_or_default()
}

/// The sign-in form's fields.
#[derive(Deserialize)]
struct SignIn {
    token: String,
}

/// Checks the token as `/mcp` would; on success opens a session and goes to the tools.
async fn sign_in(State(console): State<Arc<Console>>, headers: HeaderMap, Form(form): Form<SignIn>) -> Response {
    let caller = match console.guards.admit_token(form.token.trim()).await {
        Ok(caller) => caller,
        Err(why) => {
            let page = pages::sign_in(console.guards.requires_token(), !is_loopback(host_of(&headers)), Some(&why));
            return (StatusCode::UNAUTHORIZED, page).into_response();
        }
    };
    let Some(id) = console.open_session(caller) else {
        return plain(StatusCode::INTERNAL_SERVER_ERROR, "No random bytes for a session: try again.");
    };
    let secure = if is_loopback(host_of(&headers)) { "" } else { "; Secure" };
    let cookie = format!(
        "{COOKIE}={id}; Path=/console; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        SESSION_LIFETIME.as_secs()
    );
    let mut response = Redirect::to("/console/tools").into_response();
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// Whether a `Host` header names this machine (a cookie may then go without TLS).
fn is_loopback(host: &str) -> bool {
    let name = host.rsplit_once(':').filter(|(name, _)| !name.ends_with(':')).map_or(host, |(name, _)| name);
    matches!(name.trim_matches(['[', ']']).to_ascii_lowercase().as_str(), "localhost" | "127.0.0.1" | "::1")
}

async fn sign_out(State(console): State<Arc<Console>>, headers: HeaderMap) -> Response {
    if let Some(id) = session_cookie(&headers) {
        lock(&console.sessions).remove(id);
    }
    let mut response = Redirect::to("/console/sign-in").into_response();
    let expired = HeaderValue::from_static("toolhost_console=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0");
    response.headers_mut().insert(header::SET_COOKIE, expired);
    response
}

/// The tools page's query: what to search for.
#[derive(Deserialize)]
struct Search {
    #[serde(default)]
    q: String,
}

async fn tools(State(console): State<Arc<Console>>, viewer: Viewer, Query(search): Query<Search>) -> Response {
    let Some(server) = console.server() else { return loading() };
    let host = viewer.host(server);
    let query = search.q.trim();
    let found = if query.is_empty() {
        let mut tools = host.tools();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools.truncate(MAX_LISTED);
        tools
    } else {
        host.search_tools(query, 50).into_iter().filter_map(|found| host.tool(&found.name)).collect()
    };
    let total = host.stats().tools;
    pages::tools(&viewer, query, &found, total, &host.load_report().warnings).into_response()
}

async fn tool(State(console): State<Arc<Console>>, viewer: Viewer, Path(name): Path<String>) -> Response {
    let Some(server) = console.server() else { return loading() };
    let host = viewer.host(server);
    let Some(spec) = host.tool(&name) else {
        let page = pages::message("No such tool", "No tool of that name is served to you.");
        return (StatusCode::NOT_FOUND, page).into_response();
    };
    let settings = host.component_settings(&spec.component);
    let report = host.load_report().components.into_iter().find(|component| component.name == spec.component);
    pages::tool(&viewer, &spec, settings.as_ref(), report.as_ref()).into_response()
}

/// Try's form: a tool's name and the argument text a model wrote for it, or (with no
/// name) a whole reply; and whether to run what it holds.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Attempt {
    tool: String,
    text: String,
    /// `run` runs the calls; anything else only shows the steps.
    action: String,
}

async fn try_page(viewer: Viewer, Query(form): Query<Attempt>) -> Response {
    attempt::try_page(&viewer, &form.tool, &form.text, None).into_response()
}

async fn try_call(State(console): State<Arc<Console>>, viewer: Viewer, Form(form): Form<Attempt>) -> Response {
    let Some(server) = console.server() else { return loading() };
    let host = viewer.host(server);
    let mut steps = attempt::read_attempt(&host, form.tool.trim(), &form.text);
    if form.action == "run" {
        for step in steps.iter_mut().filter(|step| step.call().is_some()).take(MAX_RUNS) {
            let Some((tool, arguments)) = step.call() else { continue };
            let outcome = server.call_for_console(viewer.caller.clone(), tool, arguments.clone()).await;
            step.outcome = Some(outcome);
        }
    }
    attempt::try_page(&viewer, &form.tool, &form.text, Some(&steps)).into_response()
}

/// The calls page's filters, and whether it reloads itself.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct CallFilter {
    pub(super) tool: String,
    pub(super) caller: String,
    /// `ok`, `failed`, an error's kind, or empty for any.
    pub(super) outcome: String,
    pub(super) live: Option<String>,
}

impl CallFilter {
    /// Whether `call` passes every filter given.
    fn passes(&self, call: &crate::mcp::recent::CallRecord) -> bool {
        let tool = self.tool.trim();
        let named = |name: &str| name.eq_ignore_ascii_case(tool);
        let outcome = match self.outcome.as_str() {
            "" => true,
            "failed" => call.outcome != "ok",
            kind => call.outcome == kind,
        };
        (tool.is_empty() || named(&call.name) || call.tool.as_deref().is_some_and(named))
            && (self.caller.trim().is_empty() || call.caller == self.caller.trim())
            && outcome
    }
}

/// The recent calls the viewer may see: everyone's when every caller may use every
/// tool, else their own.
async fn calls(State(console): State<Arc<Console>>, viewer: Viewer, Query(filter): Query<CallFilter>) -> Response {
    let Some(server) = console.server() else { return loading() };
    let everyone = server.open_to_all();
    let seen = console.recent.calls().into_iter().filter(|call| everyone || call.caller == viewer.caller.name());
    let shown: Vec<_> = seen.filter(|call| filter.passes(call)).take(200).collect();
    pages::calls(&viewer, &filter, &shown, everyone).into_response()
}

async fn health(State(console): State<Arc<Console>>, viewer: Viewer, Query(filter): Query<CallFilter>) -> Response {
    let Some(server) = console.server() else { return loading() };
    let host = viewer.host(server);
    // The whole server's activity and parts, to callers who may use every tool.
    let whole = server.open_to_all().then(|| pages::Whole {
        buckets: console.recent.buckets(),
        report: host.load_report(),
        servers: host.mcp_servers(),
    });
    pages::health(&viewer, &host.stats(), whole.as_ref(), filter.live.is_some()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_forms_from_the_consoles_own_origin_are_taken() {
        let headers = |origin: &str, host: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ORIGIN, HeaderValue::from_str(origin).expect("a value"));
            headers.insert(header::HOST, HeaderValue::from_str(host).expect("a value"));
            headers
        };
        assert!(same_origin(&headers("http://127.0.0.1:8080", "127.0.0.1:8080")));
        assert!(same_origin(&headers("https://Tools.Example", "tools.example")));
        assert!(!same_origin(&headers("http://evil.example", "127.0.0.1:8080")));
        assert!(!same_origin(&headers("null", "127.0.0.1:8080")));
        assert!(!same_origin(&HeaderMap::new()));
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_static("a=1; toolhost_console=abc; b=2"));
        assert_eq!(session_cookie(&headers), Some("abc"));
        assert!(is_loopback("localhost:8080") && is_loopback("[::1]:80") && is_loopback("127.0.0.1"));
        assert!(!is_loopback("tools.example:443") && !is_loopback("10.0.0.1"));
    }
}
