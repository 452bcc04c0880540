//! MCP over streamable HTTP (cargo feature `http`): rmcp's streamable HTTP service at
//! `/mcp` — stateless for the current revision (2026-07-28), with sessions for the
//! older ones (2025-06-18, 2025-11-25) — and `/health` for load balancers, behind
//! the guards in `guard.rs` (a bearer token, a bounded queue of requests) and rmcp's
//! own (Host and Origin checks, a request-body limit), on the connections of
//! `listener.rs` (header, body and write timeouts; a graceful shutdown), a session
//! call's event stream closed for its client to resume when asked (`polling.rs`);
//! and, on an address of its own, Prometheus metrics at `/metrics`. A plain
//! stateless `tools/call` is answered without rmcp's per-request service
//! (`direct.rs`). With `console` on, the console's pages for people (`console/`).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use toolhost::mcp::http::{HttpOptions, HttpServer};
//!
//! let options = HttpOptions::new("127.0.0.1:8080".parse()?);
//! let server = HttpServer::bind(options).await?;
//! let host = async { toolhost::Host::builder().plugin_dir("plugins").build() };
//! server.serve(host, async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(())
//! # }
//! ```

mod auth;
mod console;
mod direct;
mod guard;
mod listener;
mod polling;
mod turns;

pub use super::store::{Store, StoreAddress, StoreError};
pub use auth::OAuthOptions;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::{McpServer, Metrics, RecentCalls, ServeError};
use crate::error::LoadError;
use crate::host::Host;
use guard::Guards;

/// How an HTTP server listens, whom it lets in, and how much it takes at once.
/// Start from [`HttpOptions::new`] and set fields.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Where to listen.
    pub addr: SocketAddr,
    /// The bearer token every MCP request must carry (`Authorization: Bearer …`);
    /// `None` lets anyone in, which [`HttpServer::bind`] refuses on an address other
    /// than loopback unless `allow_unauthenticated` is set.
    pub token: Option<String>,
    /// More static bearer tokens, by name (`name → token`): a request carrying one
    /// is that name's, for [`HttpOptions::access`], the rate limits and the audit log
    /// (the one of `token` is named `token`).
    pub named_tokens: BTreeMap<String, String>,
    /// OAuth 2.1 access tokens from an authorization server (MCP's authorization),
    /// besides or instead of static tokens; the server then publishes its Protected
    /// Resource Metadata.
    pub oauth: Option<OAuthOptions>,
    /// Which tools each caller may see and call (see [`crate::mcp::Access`]); all
    /// tools for every caller let in when `None`.
    pub access: Option<Arc<crate::mcp::Access>>,
    /// Serve a non-loopback address without a token all the same.
    pub allow_unauthenticated: bool,
    /// Host names (or `host:port`) a request's `Host` header may name, besides
    /// `localhost`, `127.0.0.1` and `::1` (DNS-rebinding protection).
    pub allowed_hosts: Vec<String>,
    /// Browser origins (`https://app.example.com`, `http://localhost:*`) a request's
    /// `Origin` header may name, besides loopback ones; requests without one pass.
    pub allowed_origins: Vec<String>,
    /// The largest request body, in bytes; a larger one gets 413 (default 4 MiB).
    pub max_body_bytes: usize,
    /// MCP requests handled at once (default: twice the cores).
    pub max_concurrent_requests: usize,
    /// MCP requests that may wait for a turn; more get 503 (default 512).
    pub max_queued_requests: usize,
    /// How long a request may wait for a turn before it gets 503 (default 10 s).
    pub queue_timeout: Duration,
    /// How long a client may take to send a request's headers, or its body, and how
    /// long a write to a client that stopped reading may wait (default 30 s).
    pub io_timeout: Duration,
    /// Connections held at once (default 10,000). A new one beyond makes the
    /// connection idle longest close; it is refused only when every one is busy.
    pub max_connections: usize,
    /// Connections held at once from one client address, the same way (default
    /// 1,024): one client cannot take every place. Behind a proxy every connection
    /// comes from the proxy's address: raise it to `max_connections` there.
    pub max_connections_per_address: usize,
    /// How long a shutdown waits for the requests in flight (default 30 s).
    pub shutdown_timeout: Duration,
    /// How long, once told to stop, the server goes on answering requests on the
    /// connections it has open, closing each after its answer, before it closes the
    /// idle ones (default 1 s): a load balancer that keeps connections open learns
    /// from the closed socket and the closing answers to send elsewhere, instead of
    /// sending a request down a connection as it closes.
    pub drain: Duration,
    /// How long a call from a client that takes tasks (MCP's tasks extension,
    /// revision 2026-07-28 on) runs in its request before it goes on as a task the
    /// client polls (default 1 s); `None`: calls never become tasks.
    pub tasks_after: Option<Duration>,
    /// How long a call's event stream stays open in the session revisions before the
    /// server closes it, the client coming back after `sse_retry` with `Last-Event-ID`
    /// for what the call sent since (SSE polling, SEP-1699: no proxy in between has to
    /// hold a response open for the whole of a long call); `None` (the default): open
    /// until the call's answer.
    pub poll_after: Option<Duration>,
    /// How long a client whose event stream ended waits before it resumes it: the
    /// `retry` field of each stream's first event (default 3 s).
    pub sse_retry: Duration,
    /// Where every tool call is recorded (see [`crate::mcp::AuditLog`]); none by default.
    pub audit: Option<Arc<crate::mcp::AuditLog>>,
    /// Calls and requests each caller may make a minute (see
    /// [`crate::mcp::RateLimits`]); no limit by default.
    pub rate_limits: Option<Arc<crate::mcp::RateLimits>>,
    /// Where to serve Prometheus metrics (`GET /metrics`, see [`crate::mcp::Metrics`]),
    /// apart from the MCP endpoint and without its token: keep it internal, as it
    /// names the tools. None by default.
    pub metrics_addr: Option<SocketAddr>,
    /// Make each call an OpenTelemetry span (see [`McpServer::with_tracing`]).
    pub tracing: bool,
    /// Named toolsets each served at `/mcp/NAME` (see [`McpServer::with_profiles`]);
    /// none by default. `/mcp` serves every tool.
    pub profiles: BTreeMap<String, crate::host::Profile>,
    /// The Redis or Valkey store this server shares with its other replicas (see
    /// [`Store`]), so that the stateless revision needs no affinity; none by default:
    /// a task, or a call waiting for an answer, is then known only to its replica.
    pub store: Option<Store>,
    /// Serve the console, web pages for people at `/console` (the tools, Try, the
    /// recent calls, health), behind the same access as `/mcp`; off by default.
    pub console: bool,
    /// Serve MCP at `/mcp` (the default); `false` serves only `/health` and the
    /// console, as beside a server on stdio.
    pub mcp: bool,
    /// The calls the console shows; the server keeps its own unless given. Give an
    /// [`McpServer`] serving elsewhere (on stdio) the same, with
    /// [`McpServer::with_recent_calls`], and its calls show too.
    pub recent_calls: Option<Arc<RecentCalls>>,
}

impl HttpOptions {
    /// The defaults, listening on `addr`, with no token.
    pub fn new(addr: SocketAddr) -> HttpOptions {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        HttpOptions {
            addr,
            token: None,
            named_tokens: BTreeMap::new(),
            oauth: None,
            access: None,
            allow_unauthenticated: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body_bytes: 4 << 20,
            max_concurrent_requests: 2 * cores,
            max_queued_requests: 512,
            queue_timeout: Duration::from_secs(10),
            io_timeout: Duration::from_secs(30),
            max_connections: 10_000,
            max_connections_per_address: 1_024,
            shutdown_timeout: Duration::from_secs(30),
            drain: Duration::from_secs(1),
            tasks_after: Some(super::tasks::DEFAULT_PATIENCE),
            poll_after: None,
            sse_retry: Duration::from_secs(3),
            audit: None,
            rate_limits: None,
            metrics_addr: None,
            tracing: false,
            profiles: BTreeMap::new(),
            store: None,
            console: false,
            mcp: true,
            recent_calls: None,
        }
    }
}

impl HttpOptions {
    /// Every static token by name: the named ones, and `token` as `token`.
    fn all_tokens(&self) -> BTreeMap<String, String> {
        let mut tokens = self.named_tokens.clone();
        if let Some(token) = &self.token {
            tokens.insert("token".into(), token.clone());
        }
        tokens
    }

    /// Whether a request must carry a token at all.
    fn authorizes(&self) -> bool {
        self.token.is_some() || !self.named_tokens.is_empty() || self.oauth.is_some()
    }

    /// The checks [`HttpServer::bind`] makes before it listens: no empty token, no
    /// address other than loopback open to anyone (unless `allow_unauthenticated`),
    /// OAuth settings a token could pass, with an https issuer (http only on loopback).
    pub fn check(&self) -> Result<(), ServeError> {
        if let Some(name) = self.profiles.keys().find(|name| !crate::host::Profile::valid_name(name)) {
            return Err(ServeError(format!(
                "the profile name '{name}' cannot be a path (/mcp/NAME): use 1 to 64 letters, digits, '_' and '-'"
            )));
        }
        check_access(self)
    }
}

/// An MCP server bound to its address, ready to serve.
pub struct HttpServer {
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    options: HttpOptions,
}

/// The host, once it has loaded: until then `/health` says 503.
type Ready = Arc<OnceLock<Host>>;

/// The server's one MCP handler, made once the plugins have loaded: rmcp's service
/// and the direct path (`direct.rs`) both answer with it.
struct Handler {
    ready: Ready,
    server: OnceLock<McpServer>,
    make: Box<dyn Fn(&Host) -> McpServer + Send + Sync>,
}

impl Handler {
    /// The handler `options` describe, with `metrics`, keeping its calls in `recent`,
    /// for the host once `ready`.
    fn new(
        options: &HttpOptions,
        metrics: Option<Arc<Metrics>>,
        recent: Option<Arc<RecentCalls>>,
        ready: Ready,
    ) -> Handler {
        let options = options.clone();
        let make = move |host: &Host| {
            McpServer::new(host.clone())
                .with_tasks_after(options.tasks_after)
                .with_audit(options.audit.clone())
                .with_rate_limits(options.rate_limits.clone())
                .with_access(options.access.clone())
                .with_metrics(metrics.clone())
                .with_tracing(options.tracing)
                .with_profiles(options.profiles.clone())
                .with_recent_calls(recent.clone())
                .with_store(options.store.clone())
        };
        Handler { ready, server: OnceLock::new(), make: Box::new(make) }
    }

    /// The handler, once the plugins have loaded.
    fn get(&self) -> Option<&McpServer> {
        let host = self.ready.get()?;
        Some(self.server.get_or_init(|| (self.make)(host)))
    }
}

impl HttpServer {
    /// Binds `options.addr`. Refuses to serve an address other than loopback
    /// without a token (unless `allow_unauthenticated`), and an empty token.
    pub async fn bind(options: HttpOptions) -> Result<HttpServer, ServeError> {
        options.check()?;
        crate::sys::raise_open_file_limit();
        let listener = listen(options.addr).await?;
        let metrics_listener = match options.metrics_addr {
            Some(addr) => Some(listen(addr).await?),
            None => None,
        };
        Ok(HttpServer { listener, metrics_listener, options })
    }

    /// The address it listens on (with the port the system chose, for port 0).
    pub fn local_addr(&self) -> Result<SocketAddr, ServeError> {
        self.listener.local_addr().map_err(|e| ServeError(format!("cannot read the listening address: {e}")))
    }

    /// The address it serves metrics on, if it does.
    pub fn metrics_addr(&self) -> Result<Option<SocketAddr>, ServeError> {
        let Some(listener) = &self.metrics_listener else { return Ok(None) };
        listener.local_addr().map(Some).map_err(|e| ServeError(format!("cannot read the metrics address: {e}")))
    }

    /// Serves until `shutdown` resolves, then drains (see [`HttpOptions::drain`]),
    /// finishes the requests in flight (up to `shutdown_timeout`) and returns. `host`
    /// may still be loading: until it has, `/health` answers 503 and MCP requests get
    /// 503 with `Retry-After`.
    pub async fn serve(
        self,
        host: impl Future<Output = Result<Host, LoadError>> + Send + 'static,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), ServeError> {
        let ready: Ready = Arc::new(OnceLock::new());
        let stopped = CancellationToken::new();
        let metrics = self.metrics_listener.map(|listener| serve_metrics(listener, stopped.clone()));
        let loading = tokio::spawn(load_into(host, ready.clone(), metrics.clone()));
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.sse_retry = Some(self.options.sse_retry);
        let sessions = Arc::new(sessions);
        let relayed = Arc::new(polling::Sessions::new(sessions.clone(), self.options.poll_after));
        let recent = match &self.options.recent_calls {
            Some(recent) => Some(recent.clone()),
            None => self.options.console.then(|| Arc::new(RecentCalls::new())),
        };
        let handler = Arc::new(Handler::new(&self.options, metrics, recent.clone(), ready.clone()));
        let direct = direct::Direct::new(&self.options, handler.clone(), stopped.clone());
        let guards = Arc::new(Guards::new(&self.options, ready, direct));
        let app = router(&self.options, handler, guards.clone(), relayed, stopped.clone(), recent);
        let connections = listener::Connections::new(&self.options);
        tokio::spawn(return_memory_when_idle(guards.clone(), stopped.clone()));
        // Accepting stops, and the socket closes: new connections are refused at once,
        // so a load balancer sends them to another replica.
        let outcome = connections.accept(self.listener, app, shutdown).await;
        loading.abort();
        // Requests that come on open connections are still answered, each answer
        // closing its connection; /health says 503.
        guards.stop_keeping_alive();
        tokio::time::sleep(self.options.drain.min(self.options.shutdown_timeout)).await;
        let closed = connections.close(self.options.shutdown_timeout);
        guards.drain(self.options.shutdown_timeout).await;
        // Session clients' event streams end with their sessions; rmcp's own tasks,
        // which a stateless request still needs, are stopped only once every
        // connection has closed.
        end_sessions(&sessions).await;
        closed.await;
        stopped.cancel();
        outcome
    }
}

/// Every few seconds while no request is being handled, gives what the allocator
/// holds free back to the system (after a burst, glibc's would keep it all).
async fn return_memory_when_idle(guards: Arc<Guards>, stopped: CancellationToken) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(2));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = stopped.cancelled() => return,
        }
        if guards.idle() {
            let _ = tokio::task::spawn_blocking(crate::sys::return_free_memory).await;
        }
    }
}

/// Refuses the settings that would expose tools to anyone.
fn check_access(options: &HttpOptions) -> Result<(), ServeError> {
    if let Some((name, _)) = options.all_tokens().iter().find(|(_, token)| token.trim().is_empty()) {
        return Err(ServeError(format!("the token '{name}' is empty: give a token of some length, or none")));
    }
    if let Some(oauth) = &options.oauth {
        check_oauth(oauth)?;
    }
    if !options.authorizes() && !options.addr.ip().is_loopback() && !options.allow_unauthenticated {
        return Err(ServeError(format!(
            "refusing to serve {} without a token: anyone who can reach it could run the tools. Set one with \
             --token-file FILE or TOOLHOST_TOKEN (clients send `Authorization: Bearer <token>`), serve a loopback \
             address, or pass --allow-unauthenticated if something in front of it checks access",
            options.addr
        )));
    }
    Ok(())
}

/// Refuses OAuth settings no token could pass, or that would fetch keys in the clear.
fn check_oauth(oauth: &OAuthOptions) -> Result<(), ServeError> {
    auth::metadata_url(&oauth.resource).map_err(|e| ServeError(format!("OAuth: {e}")))?;
    auth::check_issuer_url("issuer", &oauth.issuer).map_err(|e| ServeError(format!("OAuth: {e}")))?;
    if let Some(jwks_uri) = &oauth.jwks_uri {
        auth::check_issuer_url("jwks_uri", jwks_uri).map_err(|e| ServeError(format!("OAuth: {e}")))?;
    }
    Ok(())
}

/// Binds `addr`.
async fn listen(addr: SocketAddr) -> Result<TcpListener, ServeError> {
    TcpListener::bind(addr).await.map_err(|e| ServeError(format!("cannot listen on {addr}: {e}")))
}

/// Serves `GET /metrics` on `listener` until `stopped`; returns the metrics it serves.
fn serve_metrics(listener: TcpListener, stopped: CancellationToken) -> Arc<Metrics> {
    let metrics = Arc::new(Metrics::new());
    let scraped = metrics.clone();
    let app = Router::new().route(
        "/metrics",
        get(move || {
            let text = scraped.encode();
            async move { ([(axum::http::header::CONTENT_TYPE, Metrics::CONTENT_TYPE)], text) }
        }),
    );
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).with_graceful_shutdown(stopped.cancelled_owned()).await {
            tracing::error!("the metrics endpoint stopped: {error}");
        }
    });
    metrics
}

/// Waits for the host to load, then makes it the one requests are served by (and
/// the metrics read).
async fn load_into(host: impl Future<Output = Result<Host, LoadError>>, ready: Ready, metrics: Option<Arc<Metrics>>) {
    match host.await {
        Ok(host) => {
            if let Some(metrics) = &metrics {
                metrics.watch(&host);
            }
            let _ = ready.set(host);
            tracing::info!("plugins loaded; serving MCP over HTTP");
        }
        // Without a host there is nothing to serve: /health keeps saying so.
        Err(error) => tracing::error!("the plugins could not be loaded, so no tools are served: {error}"),
    }
}

/// Ends every session of the older revisions, and with it its event stream.
async fn end_sessions(sessions: &LocalSessionManager) {
    let ids: Vec<_> = sessions.sessions.read().await.keys().cloned().collect();
    for id in ids {
        if let Err(error) = sessions.close_session(&id).await {
            tracing::debug!("session {id} did not close cleanly: {error}");
        }
    }
}

/// `/health`, `/mcp` behind the guards, and the console when it keeps `recent` calls.
fn router(
    options: &HttpOptions,
    handler: Arc<Handler>,
    guards: Arc<Guards>,
    sessions: Arc<polling::Sessions>,
    stopped: CancellationToken,
    recent: Option<Arc<RecentCalls>>,
) -> Router {
    let serving = handler.clone();
    let mcp = StreamableHttpService::new(
        move || {
            serving
                .get()
                .cloned()
                .map(|server| server.for_session())
                .ok_or_else(|| std::io::Error::other("the plugins are still loading"))
        },
        sessions,
        rmcp_config(options, stopped),
    );
    let health = guards.clone();
    let metadata = guards.resource_metadata(scopes_supported(options));
    let mut router = Router::new();
    if let Some(metadata) = metadata {
        let metadata: Arc<str> = metadata.into();
        let (root, below) = (metadata.clone(), metadata);
        router = router
            .route("/.well-known/oauth-protected-resource", get(move || guard::document(root.clone())))
            .route("/.well-known/oauth-protected-resource/{*path}", get(move || guard::document(below.clone())));
    }
    if let Some(recent) = recent.filter(|_| options.console) {
        router = router.merge(console::router(options, handler, guards.clone(), recent));
    }
    if options.mcp {
        router = router.nest_service("/mcp", mcp);
    }
    router
        .route("/health", get(move || guard::health(health.clone())))
        .layer(axum::middleware::from_fn(move |request, next| guard::check(guards.clone(), request, next)))
}

/// The scopes the metadata lists: those every request needs, and those that grant
/// tools (the grants that are no static token's name).
fn scopes_supported(options: &HttpOptions) -> Vec<String> {
    let needed = options.oauth.iter().flat_map(|oauth| oauth.scopes.iter().cloned());
    let tokens = options.all_tokens();
    let granting = options.access.iter().flat_map(|access| access.grant_names().map(String::from).collect::<Vec<_>>());
    let mut scopes: Vec<String> = needed.chain(granting.filter(|grant| !tokens.contains_key(grant))).collect();
    scopes.sort();
    scopes.dedup();
    scopes
}

/// The `Host` values a request may name: loopback, and those `options` allow.
fn allowed_hosts(options: &HttpOptions) -> Vec<String> {
    let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].map(String::from);
    loopback.into_iter().chain(options.allowed_hosts.iter().cloned()).collect()
}

/// The `Host` values a request may name, as rmcp compares them: a name, with the
/// one port it must carry (any port when none).
pub(super) struct AllowedHosts(Vec<(String, Option<u16>)>);

impl AllowedHosts {
    pub(super) fn new(options: &HttpOptions) -> AllowedHosts {
        AllowedHosts(allowed_hosts(options).iter().filter_map(|allowed| authority(allowed)).collect())
    }

    /// Whether a request whose `Host` header is `host` is let in.
    pub(super) fn allow(&self, host: Option<&str>) -> bool {
        let Some((name, port)) = host.and_then(authority) else { return false };
        self.0.iter().any(|(allowed, allowed_port)| *allowed == name && allowed_port.is_none_or(|p| Some(p) == port))
    }
}

/// A host and port (`name`, `name:port`, `[v6]:port`) as rmcp compares them:
/// lowercase, without brackets.
fn authority(text: &str) -> Option<(String, Option<u16>)> {
    let parsed = axum::http::uri::Authority::try_from(text.trim()).ok()?;
    let name = parsed.host().trim_matches(['[', ']']).to_ascii_lowercase();
    Some((name, parsed.port_u16()))
}

/// rmcp's own checks: Host and Origin (loopback unless more are allowed), the body
/// limit, sessions for the older revisions (their streams' `retry`), JSON answers
/// where they suffice.
fn rmcp_config(options: &HttpOptions, stopped: CancellationToken) -> StreamableHttpServerConfig {
    let loopback_origins = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"].map(String::from);
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts(options))
        .with_allowed_origins(loopback_origins.into_iter().chain(options.allowed_origins.iter().cloned()))
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_legacy_session_mode(true)
        .with_sse_retry(Some(options.sse_retry))
        .with_json_response(true)
        .with_cancellation_token(stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_compare_as_rmcp_compares_them() {
        assert_eq!(authority("LocalHost:8080"), Some(("localhost".into(), Some(8080))));
        assert_eq!(authority("[::1]:80"), Some(("::1".into(), Some(80))));
        assert_eq!(authority("example.com"), Some(("example.com".into(), None)));
        assert_eq!(authority("bad host"), None);
        let hosts = AllowedHosts::new(&HttpOptions::new("127.0.0.1:0".parse().expect("an address")));
        assert!(hosts.allow(Some("localhost:8080")) && hosts.allow(Some("[::1]")));
        assert!(!hosts.allow(Some("evil.example:8080")) && !hosts.allow(None));
    }
}
