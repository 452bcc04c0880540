//! `toolhost serve`: MCP over stdio, or with `--http ADDR` over streamable HTTP, where
//! the plugins load while the server already answers `/health` (503 until loaded),
//! and SIGTERM or Ctrl-C finishes the requests in flight before it stops.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use toolhost::HostBuilder;
use toolhost::mcp::http::{HttpOptions, HttpServer, OAuthOptions};
use toolhost::mcp::{Access, AuditLog, RateLimits};

/// How the server listens over HTTP, whom it lets in, how much it takes.
#[derive(Args)]
pub(crate) struct HttpArgs {
    /// Serve MCP over streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8080), with
    /// /health for load balancers, instead of over stdin/stdout.
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<SocketAddr>,
    /// A file holding the bearer token every request must carry (also TOOLHOST_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
    /// Serve an address other than loopback without a token (when something in front
    /// of the server checks access).
    #[arg(long)]
    pub(crate) allow_unauthenticated: bool,
    /// A browser origin that may call the server besides loopback ones, e.g.
    /// https://app.example.com (repeatable).
    #[arg(long, value_name = "ORIGIN")]
    pub(crate) allow_origin: Vec<String>,
    /// A host name clients may reach the server by, besides loopback ones, e.g.
    /// tools.example.com (repeatable).
    #[arg(long, value_name = "HOST")]
    pub(crate) allow_host: Vec<String>,
    /// The largest request body, in bytes [default: 4 MiB].
    #[arg(long)]
    pub(crate) max_body_bytes: Option<usize>,
    /// Requests handled at once [default: twice the cores].
    #[arg(long)]
    pub(crate) max_concurrent_requests: Option<usize>,
    /// Requests that may wait for a turn; more get 503 with Retry-After [default: 512].
    #[arg(long)]
    pub(crate) max_queued_requests: Option<usize>,
    /// Connections held at once; beyond, the one idle longest closes to make way
    /// [default: 10000].
    #[arg(long)]
    pub(crate) max_connections: Option<usize>,
    /// Connections held at once from one client address, the same way; behind a
    /// proxy, raise it to --max-connections [default: 1024].
    #[arg(long)]
    pub(crate) max_connections_per_address: Option<usize>,
    /// How long a client may take to send a request's headers or body, or to read
    /// what it is sent, in milliseconds [default: 30000].
    #[arg(long)]
    pub(crate) io_timeout_ms: Option<u64>,
    /// How long a shutdown waits for the requests in flight, in milliseconds [default: 30000].
    #[arg(long)]
    pub(crate) shutdown_timeout_ms: Option<u64>,
    /// How long, once told to stop, the server goes on answering on its open
    /// connections (closing each after its answer) so that a load balancer notices,
    /// in milliseconds [default: 1000].
    #[arg(long)]
    pub(crate) drain_ms: Option<u64>,
    /// How long a call from a client that takes tasks (MCP's tasks extension) runs
    /// in its request before it goes on as a task the client polls, in milliseconds
    /// [default: 1000].
    #[arg(long, conflicts_with = "no_tasks")]
    pub(crate) tasks_after_ms: Option<u64>,
    /// Never answer a call with a task.
    #[arg(long)]
    pub(crate) no_tasks: bool,
    /// Close a call's event stream (in the session revisions) after this many
    /// milliseconds; the client resumes it with Last-Event-ID (SSE polling, for a proxy
    /// that cuts long responses) [default: open until the answer].
    #[arg(long)]
    pub(crate) poll_after_ms: Option<u64>,
    /// How long a client whose event stream ended waits before it resumes it, in
    /// milliseconds [default: 3000].
    #[arg(long)]
    pub(crate) sse_retry_ms: Option<u64>,
    /// A Redis or Valkey store shared with the server's other replicas
    /// (redis://[:PASSWORD@]HOST[:PORT][/DB]), so that any replica answers a task's
    /// polls and a call's answers: no affinity needed for the stateless revision.
    /// rediss:// reaches it over TLS.
    #[arg(long, env = "TOOLHOST_STORE", value_name = "URL", hide_env_values = true)]
    pub(crate) store: Option<String>,
    /// The certificates (PEM) of the authorities that sign a rediss:// store's
    /// certificate [default: the system's trusted ones].
    #[arg(long, env = "TOOLHOST_STORE_CA", value_name = "FILE")]
    pub(crate) store_ca: Option<PathBuf>,
    /// A client certificate (PEM chain) for a rediss:// store that asks for one, with
    /// --store-key.
    #[arg(long, env = "TOOLHOST_STORE_CERT", value_name = "FILE", requires = "store_key")]
    pub(crate) store_cert: Option<PathBuf>,
    /// The client certificate's key (PEM).
    #[arg(long, env = "TOOLHOST_STORE_KEY", value_name = "FILE", requires = "store_cert")]
    pub(crate) store_key: Option<PathBuf>,
    /// Serve the console, web pages to find, read and try the tools, at
    /// http://ADDR/console, behind the same token as /mcp; with stdio, on an address
    /// of its own (--console-addr).
    #[arg(long)]
    pub(crate) console: bool,
    /// Where the console of a server on stdio listens [default: 127.0.0.1 on a port
    /// the system picks, printed on stderr].
    #[arg(long, value_name = "ADDR", requires = "console", conflicts_with = "http")]
    pub(crate) console_addr: Option<SocketAddr>,
    /// Serve Prometheus metrics at http://ADDR/metrics (e.g. 0.0.0.0:9464), without
    /// the token: keep it internal, as it names the tools.
    #[arg(long, value_name = "ADDR")]
    pub(crate) metrics_addr: Option<SocketAddr>,
    /// The token a config file names by its variable (see `config.rs`), read at load.
    #[arg(skip)]
    pub(crate) configured_token: Option<String>,
    /// A config file's `[auth.tokens]`: more static tokens, by name.
    #[arg(skip)]
    pub(crate) named_tokens: std::collections::BTreeMap<String, String>,
    /// A config file's `[auth]`: OAuth access tokens.
    #[arg(skip)]
    pub(crate) oauth: Option<OAuthOptions>,
    /// A config file's `[access]`: the tools each caller may use.
    #[arg(skip)]
    pub(crate) access: Option<Arc<Access>>,
}

impl HttpArgs {
    /// The shared store, if one is given, with its TLS certificates.
    fn store_address(&self) -> Option<toolhost::mcp::http::StoreAddress> {
        let mut address = toolhost::mcp::http::StoreAddress::new(self.store.clone()?);
        if let Some(ca) = &self.store_ca {
            address = address.ca_file(ca);
        }
        if let (Some(cert), Some(key)) = (&self.store_cert, &self.store_key) {
            address = address.client_cert(cert, key);
        }
        Some(address)
    }

    /// Where to serve over HTTP, if at all.
    pub(crate) fn address(&self) -> Option<SocketAddr> {
        self.http
    }

    /// The server's settings, with the token read from its file or TOOLHOST_TOKEN.
    fn options(&self, addr: SocketAddr) -> anyhow::Result<HttpOptions> {
        let mut options = HttpOptions::new(addr);
        options.token = self.token()?;
        options.named_tokens.clone_from(&self.named_tokens);
        options.oauth.clone_from(&self.oauth);
        options.access.clone_from(&self.access);
        options.metrics_addr = self.metrics_addr;
        options.allow_unauthenticated = self.allow_unauthenticated;
        options.allowed_origins.clone_from(&self.allow_origin);
        options.allowed_hosts.clone_from(&self.allow_host);
        options.max_body_bytes = self.max_body_bytes.unwrap_or(options.max_body_bytes);
        options.max_concurrent_requests = self.max_concurrent_requests.unwrap_or(options.max_concurrent_requests);
        options.max_queued_requests = self.max_queued_requests.unwrap_or(options.max_queued_requests);
        options.max_connections = self.max_connections.unwrap_or(options.max_connections);
        options.max_connections_per_address =
            self.max_connections_per_address.unwrap_or(options.max_connections_per_address);
        options.io_timeout = self.io_timeout_ms.map_or(options.io_timeout, Duration::from_millis);
        options.shutdown_timeout = self.shutdown_timeout_ms.map_or(options.shutdown_timeout, Duration::from_millis);
        options.drain = self.drain_ms.map_or(options.drain, Duration::from_millis);
        options.tasks_after = match self.tasks_after_ms {
            _ if self.no_tasks => None,
            Some(ms) => Some(Duration::from_millis(ms)),
            None => options.tasks_after,
        };
        options.poll_after = self.poll_after_ms.map(Duration::from_millis);
        options.sse_retry = self.sse_retry_ms.map_or(options.sse_retry, Duration::from_millis);
        options.console = self.console;
        Ok(options)
    }

    /// The token: from its file, else TOOLHOST_TOKEN, else the one a config file named.
    fn token(&self) -> anyhow::Result<Option<String>> {
        let token = match &self.token_file {
            Some(file) => std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the token file {}", file.display()))?,
            None => match (std::env::var("TOOLHOST_TOKEN"), &self.configured_token) {
                (Ok(token), _) => token,
                (Err(_), Some(token)) => token.clone(),
                (Err(_), None) => return Ok(None),
            },
        };
        let token = token.trim().to_string();
        if token.is_empty() {
            bail!("the token is empty: put a token in the file (or TOOLHOST_TOKEN), or give none");
        }
        Ok(Some(token))
    }
}

/// Where every tool call is recorded.
#[derive(Args)]
pub(crate) struct AuditArgs {
    /// Record every tool call as a JSON line in FILE (appended; `-`: stderr): time,
    /// caller, tool, repair, outcome, duration, bytes.
    #[arg(long, env = "TOOLHOST_AUDIT_LOG", value_name = "FILE")]
    pub(crate) audit_log: Option<PathBuf>,
    /// Also record each call's arguments (values of fields named like secrets redacted).
    #[arg(long)]
    pub(crate) audit_arguments: bool,
    /// Export an OpenTelemetry span per tool call to this OTLP collector (HTTP, e.g.
    /// http://collector:4318); OTEL_EXPORTER_OTLP_ENDPOINT works too.
    #[arg(long, value_name = "URL")]
    pub(crate) otlp_endpoint: Option<String>,
}

impl AuditArgs {
    /// The audit log to write, if one was asked for.
    pub(crate) fn open(&self) -> anyhow::Result<Option<Arc<AuditLog>>> {
        let Some(file) = &self.audit_log else { return Ok(None) };
        let log = if file.as_os_str() == "-" {
            AuditLog::to_stderr()
        } else {
            AuditLog::to_file(file).with_context(|| format!("cannot open the audit log {}", file.display()))?
        };
        Ok(Some(Arc::new(log.with_arguments(self.audit_arguments))))
    }
}

/// How often each caller may call and send requests.
#[derive(Args)]
pub(crate) struct RateLimitArgs {
    /// Calls a minute each caller may make of any one tool; beyond it a call is
    /// answered with the limit and when to retry.
    #[arg(long, value_name = "N")]
    pub(crate) calls_per_minute: Option<u32>,
    /// MCP requests a minute each caller may send over HTTP; beyond it, 429 with
    /// Retry-After.
    #[arg(long, value_name = "N")]
    pub(crate) requests_per_minute: Option<u32>,
    /// Calls a minute of particular tools, by registered name (a config file's
    /// `[rate_limits.tools]`).
    #[arg(skip)]
    pub(crate) tool_calls_per_minute: std::collections::BTreeMap<String, u32>,
}

impl RateLimitArgs {
    /// The limits, if any is set.
    pub(crate) fn limits(&self) -> Option<Arc<RateLimits>> {
        if self.calls_per_minute.is_none()
            && self.requests_per_minute.is_none()
            && self.tool_calls_per_minute.is_empty()
        {
            return None;
        }
        let mut limits = RateLimits::new();
        if let Some(calls) = self.calls_per_minute {
            limits = limits.calls_per_minute(calls);
        }
        if let Some(requests) = self.requests_per_minute {
            limits = limits.requests_per_minute(requests);
        }
        for (tool, calls) in &self.tool_calls_per_minute {
            limits = limits.tool_calls_per_minute(tool, *calls);
        }
        Some(Arc::new(limits))
    }
}

/// Which tools clients are shown: the profile served (`--profile`, stdio), how
/// (`--disclose`, `[disclosure]`), and the profiles served apart over HTTP.
#[derive(Clone, Default)]
pub(crate) struct Shown {
    pub(crate) disclosure: Option<toolhost::Disclosure>,
    pub(crate) profiles: std::collections::BTreeMap<String, toolhost::Profile>,
    /// The one profile served (stdio only).
    pub(crate) profile: Option<String>,
}

impl Shown {
    /// Refuses a profile that is not defined, and `--profile` over HTTP.
    pub(crate) fn check(&self, http: bool) -> anyhow::Result<()> {
        let Some(name) = &self.profile else { return Ok(()) };
        if http {
            anyhow::bail!("--profile is for stdio: over HTTP every profile is served at /mcp/NAME");
        }
        if !self.profiles.contains_key(name) {
            let defined: Vec<&str> = self.profiles.keys().map(String::as_str).collect();
            anyhow::bail!(
                "no profile '{name}': the config file's [profiles] define {}",
                if defined.is_empty() { "none".to_string() } else { defined.join(", ") }
            );
        }
        Ok(())
    }

    /// `host`, showing what it should: the profile's tools, as it or `--disclose` says.
    pub(crate) fn apply(&self, host: toolhost::Host) -> anyhow::Result<toolhost::Host> {
        let host = match self.profile.as_ref().and_then(|name| self.profiles.get(name)) {
            Some(profile) => profile.apply(&host)?,
            None => host,
        };
        Ok(match &self.disclosure {
            Some(disclosure) => host.disclosing(disclosure.clone()),
            None => host,
        })
    }
}

/// Serves over HTTP at `addr` until SIGTERM or Ctrl-C; the plugins load meanwhile.
pub(crate) fn serve_http(
    http: &HttpArgs,
    addr: SocketAddr,
    builder: HostBuilder,
    (audit, rate_limits): (Option<Arc<AuditLog>>, Option<Arc<RateLimits>>),
    tracing: bool,
    shown: &Shown,
) -> anyhow::Result<()> {
    let mut options = http.options(addr)?;
    options.profiles.clone_from(&shown.profiles);
    options.audit = audit;
    options.rate_limits = rate_limits;
    options.tracing = tracing;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        if let Some(address) = http.store_address() {
            options.store = Some(toolhost::mcp::http::Store::connect(address).await?);
        }
        let server = HttpServer::bind(options).await?;
        eprintln!("toolhost: serving MCP at http://{}/mcp (loading the plugins)", server.local_addr()?);
        if let Some(addr) = server.metrics_addr()? {
            eprintln!("toolhost: serving metrics at http://{addr}/metrics");
        }
        let shown = shown.clone();
        let host = async move {
            let loading = tokio::task::spawn_blocking(move || builder.build()).await;
            let host = loading.map_err(|e| toolhost::LoadError::Engine(format!("loading stopped: {e}")))??;
            for warning in &host.load_report().warnings {
                eprintln!("warning: {warning}");
            }
            shown.apply(host).map_err(|e| toolhost::LoadError::Engine(e.to_string()))
        };
        server.serve(host, stop_signal()).await?;
        eprintln!("toolhost: stopped");
        anyhow::Ok(())
    })
}

/// Resolves on SIGTERM (as an orchestrator stops a replica) or Ctrl-C.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    eprintln!("toolhost: stopping: finishing the requests in flight");
}

/// With stdio: the console on an address of its own (loopback unless told), behind
/// the same token options, showing the calls of `server`, which it returns.
pub(crate) async fn console_beside_stdio(
    http: &HttpArgs,
    host: toolhost::Host,
    server: toolhost::mcp::McpServer,
    (audit, rate_limits): (Option<Arc<AuditLog>>, Option<Arc<RateLimits>>),
) -> anyhow::Result<toolhost::mcp::McpServer> {
    let recent = Arc::new(toolhost::mcp::RecentCalls::new());
    let addr = http.console_addr.unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)));
    let mut options = http.options(addr)?;
    (options.mcp, options.recent_calls) = (false, Some(recent.clone()));
    (options.audit, options.rate_limits) = (audit, rate_limits);
    let console = HttpServer::bind(options).await?;
    eprintln!("toolhost: serving the console at http://{}/console", console.local_addr()?);
    tokio::spawn(async move {
        if let Err(error) = console.serve(async move { Ok(host) }, std::future::pending()).await {
            eprintln!("toolhost: the console stopped: {error}");
        }
    });
    Ok(server.with_recent_calls(Some(recent)))
}
