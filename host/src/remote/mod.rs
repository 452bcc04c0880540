//! MCP servers as plugins (cargo feature `mcp-servers`). A `NAME.mcp.toml` file
//! (`config.rs`) names a server that the host starts (stdio) or reaches (streamable
//! HTTP) with rmcp's client (`connection.rs`). Its tools join the registry as specs
//! described by the server's JSON Schemas, each with the binder for its arguments;
//! calls go to the server under a time limit, and their answers and failures come
//! back in the model's terms (`outcome.rs`). A server that exits is started again at
//! the next call, after a backoff and at most a few times a minute; one that says its
//! tools changed is listed again and the host told. Its own resources and prompts
//! are asked for on the same connection (`offers.rs`).
//!
//! The host does not sandbox these servers: they run with what their file grants.

mod config;
mod connection;
mod offers;
mod outcome;

use std::collections::VecDeque;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::Value;

pub(crate) use config::ServerConfig;
#[cfg(feature = "rest-apis")]
pub(crate) use config::{expand, read_text};

use crate::bind::SchemaBinder;
use crate::error::ToolError;
use crate::load::shaping::{check_unique_names, unmatched_table};
use crate::mutex::lock;
use crate::tool::names::{NameMatch, match_name};
use crate::tool::{Returned, ServerTool, ToolAnnotations, ToolSpec};
use connection::Client;

/// How many times a minute a server is started at most.
const MAX_STARTS_PER_MINUTE: usize = 5;
/// The longest wait between attempts to start a server that keeps failing.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The tokio runtime the servers' connections run on, shut down in the background
/// when dropped (so that dropping the last host inside async code cannot panic).
pub(crate) struct RemoteRuntime(Option<tokio::runtime::Runtime>);

impl RemoteRuntime {
    /// Two worker threads: the connections only wait on their servers.
    pub(crate) fn new() -> std::io::Result<RemoteRuntime> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("toolhost-mcp")
            .enable_all()
            .build()?;
        Ok(RemoteRuntime(Some(runtime)))
    }

    /// Starts `future` on the runtime; `None` once the runtime is shut down.
    pub(crate) fn spawn<T: Send + 'static>(
        &self,
        future: impl Future<Output = T> + Send + 'static,
    ) -> Option<tokio::task::JoinHandle<T>> {
        Some(self.0.as_ref()?.spawn(future))
    }

    /// Runs `future` on the runtime and waits for it, from any thread.
    pub(crate) fn run<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Option<T> {
        futures::executor::block_on(self.spawn(future)?).ok()
    }
}

impl Drop for RemoteRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// One of a server's tools as the host serves it.
pub(crate) struct RemoteTool {
    pub(crate) spec: ToolSpec,
    /// The name the server lists it under, which calls are sent under.
    pub(crate) remote_name: String,
    /// Checks and repairs arguments against the tool's input schema.
    pub(crate) binder: SchemaBinder,
}

/// An MCP server the host uses: its file, its connection, its tools.
pub(crate) struct RemoteServer {
    /// Itself, for its connection's handler.
    me: Weak<RemoteServer>,
    config: ServerConfig,
    runtime: Arc<RemoteRuntime>,
    link: tokio::sync::Mutex<Link>,
    tools: ArcSwap<Vec<RemoteTool>>,
    /// What the file says that the server does not bear out (a hidden tool it lacks).
    warnings: Mutex<Vec<String>>,
    on_change: OnceLock<Box<dyn Fn() + Send + Sync>>,
    /// Whether it declared resources, and prompts, when it last started.
    declared: Mutex<(bool, bool)>,
    /// Starts after the first one that succeeded (it exited, or its connection broke).
    restarts: AtomicU64,
}

/// The connection, and when it was last (re)made.
#[derive(Default)]
struct Link {
    client: Option<Arc<Client>>,
    /// When each start in the last minute was tried.
    starts: VecDeque<Instant>,
    /// Starts that failed in a row, and why the last one did.
    failures: u32,
    last_error: String,
    /// Whether a start has succeeded before.
    started_once: bool,
}

/// Why there is no connection to use.
enum Down {
    /// Starting or reaching the server failed.
    CannotStart(String),
    /// Not tried again yet.
    Waiting { retry_in: Duration, last_error: String },
}

impl RemoteServer {
    /// Starts (or reaches) the server of `config` and lists its tools.
    pub(crate) fn start(config: ServerConfig, runtime: Arc<RemoteRuntime>) -> Result<Arc<RemoteServer>, String> {
        let server = Arc::new_cyclic(|me| RemoteServer {
            me: me.clone(),
            config,
            runtime,
            link: tokio::sync::Mutex::new(Link::default()),
            tools: ArcSwap::from_pointee(Vec::new()),
            warnings: Mutex::new(Vec::new()),
            on_change: OnceLock::new(),
            declared: Mutex::new((false, false)),
            restarts: AtomicU64::new(0),
        });
        let started = server.clone();
        let outcome = server.runtime.run(async move {
            let mut link = started.link.lock().await;
            started.reconnect(&mut link).await
        });
        match outcome {
            Some(Ok(_)) => Ok(server),
            Some(Err(Down::CannotStart(why) | Down::Waiting { last_error: why, .. })) => Err(why),
            None => Err("the host is shutting down".into()),
        }
    }

    /// The server's name: its file name without `.mcp.toml`.
    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }

    /// Its tools as last listed.
    pub(crate) fn tools(&self) -> Arc<Vec<RemoteTool>> {
        self.tools.load_full()
    }

    /// What its file says that the server does not bear out.
    pub(crate) fn warnings(&self) -> Vec<String> {
        lock(&self.warnings).clone()
    }

    /// Calls `listener` whenever the server's tool list changes (once set, kept).
    pub(crate) fn on_change(&self, listener: impl Fn() + Send + Sync + 'static) {
        let _ = self.on_change.set(Box::new(listener));
    }

    /// The time a call may take: the file's `timeout_ms`, else the host's `time`.
    pub(crate) fn time_limit(&self, time: Duration) -> Duration {
        self.config.timeout.unwrap_or(time)
    }

    /// Calls the tool the server names `remote_name` (registered as `tool`) with
    /// bound `arguments`, blocking this thread until it answers or `limit` passes
    /// (see [`RemoteServer::time_limit`]); `result_bytes` is the host's limit.
    pub(crate) fn call(
        self: &Arc<Self>,
        tool: &str,
        remote_name: &str,
        arguments: Value,
        limit: Duration,
        result_bytes: usize,
    ) -> Result<Returned, ToolError> {
        futures::executor::block_on(self.call_async(tool, remote_name, arguments, limit, result_bytes))
    }

    /// [`RemoteServer::call`] for async callers. The call runs on the servers' runtime;
    /// dropping this future cancels it there, which tells the server
    /// (`notifications/cancelled`, sent by rmcp when the request is dropped unanswered).
    pub(crate) async fn call_async(
        self: &Arc<Self>,
        tool: &str,
        remote_name: &str,
        arguments: Value,
        limit: Duration,
        result_bytes: usize,
    ) -> Result<Returned, ToolError> {
        let (server, tool_name, remote_name) = (self.clone(), tool.to_string(), remote_name.to_string());
        // Held by this future: when it is dropped, `caller_gone` resolves.
        let (_caller, caller_gone) = tokio::sync::oneshot::channel::<()>();
        let exchange = async move {
            let answer = server.exchange(&tool_name, &remote_name, arguments, limit, result_bytes);
            match futures::future::select(std::pin::pin!(answer), caller_gone).await {
                futures::future::Either::Left((answer, _)) => answer,
                futures::future::Either::Right(_) => Err(ToolError::Cancelled { tool: tool_name.clone() }),
            }
        };
        match self.runtime.spawn(exchange) {
            Some(task) => {
                task.await.unwrap_or_else(|_| Err(self.failed(tool, "was stopped with the host".into(), false)))
            }
            None => Err(self.failed(tool, "was stopped with the host".into(), false)),
        }
    }

    /// One call's requests to the server: sent once more if the first could not be.
    async fn exchange(
        &self,
        tool: &str,
        remote_name: &str,
        arguments: Value,
        limit: Duration,
        result_bytes: usize,
    ) -> Result<Returned, ToolError> {
        // The binder gives an object; anything else would be sent as no arguments.
        let arguments = arguments.as_object().cloned().unwrap_or_default();
        let params = CallToolRequestParams::new(remote_name.to_string()).with_arguments(arguments);
        // A request that could not even be sent (the server had just exited) is sent
        // once more, to the server started again; one that was sent is never repeated.
        for attempt in 0..2 {
            let client = self.client().await.map_err(|down| self.down(tool, down))?;
            match tokio::time::timeout(limit, client.call_tool(params.clone())).await {
                Err(_) => return Err(ToolError::TimedOut { tool: tool.to_string(), limit }),
                Ok(Ok(answer)) => return outcome::returned(tool, answer, result_bytes),
                Ok(Err(ServiceError::TransportSend(_))) if attempt == 0 => self.forget(&client).await,
                Ok(Err(error)) => return Err(self.broken(tool, &client, error).await),
            }
        }
        Err(self.failed(tool, "could not be sent the call".into(), true))
    }

    /// The live connection, started (again) when there is none.
    async fn client(&self) -> Result<Arc<Client>, Down> {
        let mut link = self.link.lock().await;
        match &link.client {
            // A server that exited ends its connection's loop, which closes the channel.
            Some(client) if !client.is_closed() && !client.peer().is_transport_closed() => Ok(client.clone()),
            _ => self.reconnect(&mut link).await,
        }
    }

    /// Starts the server (or reaches it) and lists its tools, unless it was started
    /// too often in the last minute or the backoff after a failure has not passed.
    async fn reconnect(&self, link: &mut Link) -> Result<Arc<Client>, Down> {
        link.client = None;
        let now = Instant::now();
        link.starts.retain(|started| now.duration_since(*started) < Duration::from_secs(60));
        let backoff = backoff(link.failures);
        let since_last = link.starts.back().map(|last| now.duration_since(*last));
        let waiting = since_last.and_then(|since| backoff.checked_sub(since)).filter(|_| link.failures > 0);
        if let Some(retry_in) = waiting {
            return Err(Down::Waiting { retry_in, last_error: link.last_error.clone() });
        }
        if link.starts.len() >= MAX_STARTS_PER_MINUTE {
            let oldest = link.starts.front().map_or(Duration::ZERO, |first| now.duration_since(*first));
            let retry_in = Duration::from_secs(60).saturating_sub(oldest);
            return Err(Down::Waiting { retry_in, last_error: "was started 5 times in the last minute".into() });
        }
        link.starts.push_back(now);
        let limit = self.config.start_timeout;
        let connected = tokio::time::timeout(limit, async {
            let client = connection::connect(&self.config, self.me.clone()).await?;
            let listed = client.peer().list_all_tools().await.map_err(|e| format!("did not list its tools: {e}"))?;
            Ok::<_, String>((client, listed))
        })
        .await
        .unwrap_or_else(|_| Err(format!("did not start and list its tools within {} ms", limit.as_millis())));
        match connected {
            Ok((client, listed)) => {
                link.failures = 0;
                let first = !std::mem::replace(&mut link.started_once, true);
                if !first {
                    self.restarts.fetch_add(1, Ordering::Relaxed);
                }
                if let Some(info) = client.peer_info() {
                    let capabilities = &info.capabilities;
                    *lock(&self.declared) = (capabilities.resources.is_some(), capabilities.prompts.is_some());
                }
                // The file must fit the tools the server first lists; later, a tool that
                // went away only warns.
                if let Err(why) = self.store_tools(listed, first) {
                    return Err(Down::CannotStart(why));
                }
                let client = Arc::new(client);
                link.client = Some(client.clone());
                Ok(client)
            }
            Err(why) => {
                link.failures += 1;
                link.last_error.clone_from(&why);
                Err(Down::CannotStart(why))
            }
        }
    }

    /// How many times it was started again after its first start.
    pub(crate) fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// Why its connection is down, if it is: `None` while it is up, or while it is
    /// being made again (the next call waits for it).
    pub(crate) fn why_down(&self) -> Option<String> {
        let link = self.link.try_lock().ok()?;
        match link.client {
            Some(_) => None,
            None if link.last_error.is_empty() => Some("not connected".into()),
            None => Some(link.last_error.clone()),
        }
    }

    /// Lists the tools again (after the server said they changed) and tells the host.
    pub(crate) async fn refresh_tools(&self) {
        let client = { self.link.lock().await.client.clone() };
        let Some(client) = client else { return };
        match client.peer().list_all_tools().await {
            Ok(listed) => {
                let _ = self.store_tools(listed, false);
                if let Some(listener) = self.on_change.get() {
                    listener();
                }
            }
            Err(error) => {
                tracing::warn!("MCP server '{}' said its tools changed, but did not list them: {error}", self.name())
            }
        }
    }

    /// Makes `listed` the server's tools: hidden and excluded ones left out, the
    /// file's tables put on. A table or key that names nothing is an error when
    /// `strict` (nothing is stored then), else a warning and the table is skipped.
    fn store_tools(&self, listed: Vec<rmcp::model::Tool>, strict: bool) -> Result<(), String> {
        let mut warnings = Vec::new();
        for name in &self.config.hide {
            if !listed.iter().any(|tool| tool.name == *name) {
                warnings
                    .push(format!("{}: the file names the tool '{name}', which the server does not have", self.name()));
            }
        }
        let mut tools: Vec<RemoteTool> = listed
            .into_iter()
            .filter(|tool| !self.config.hide.iter().any(|hidden| *hidden == tool.name))
            .filter(|tool| self.config.choice.serves(&tool.name))
            .map(|tool| self.remote_tool(tool))
            .collect();
        for fault in self.shape(&mut tools) {
            let fault = format!("{}: {fault}", self.config.path.display());
            if strict {
                return Err(fault);
            }
            warnings.push(fault);
        }
        self.tools.store(Arc::new(tools));
        *lock(&self.warnings) = warnings;
        Ok(())
    }

    /// Puts the file's `[tools.NAME]` tables on `tools`; what does not fit.
    fn shape(&self, tools: &mut [RemoteTool]) -> Vec<String> {
        let lines = &self.config.lines;
        let mut faults = Vec::new();
        for (key, table) in &self.config.tools {
            let names: Vec<&str> = tools.iter().map(|tool| tool.remote_name.as_str()).collect();
            let applied = match match_name(names.iter().copied(), key) {
                NameMatch::One(i) => table.apply(key, &mut tools[i].spec, lines),
                unmatched => Err(unmatched_table(key, &names, &unmatched, lines)),
            };
            faults.extend(applied.err());
        }
        faults.extend(check_unique_names(&tools.iter().map(|tool| &tool.spec).collect::<Vec<_>>()).err());
        faults
    }

    /// One listed tool as the host serves it.
    fn remote_tool(&self, tool: rmcp::model::Tool) -> RemoteTool {
        let name = tool.name.to_string();
        let hints = tool.annotations.clone().unwrap_or_default();
        let description = tool.description.as_ref().map(|d| d.to_string()).unwrap_or_default();
        let input_schema = Value::Object((*tool.input_schema).clone());
        let output_schema = tool.output_schema.as_ref().map(|schema| Value::Object((**schema).clone()));
        let unclaimed = ToolAnnotations::default();
        let binder = SchemaBinder::new(input_schema.clone());
        let spec = ToolSpec::for_server_tool(&self.config.name, ServerTool::new(&name, input_schema, output_schema));
        let spec = ToolSpec {
            description,
            // The server's, or (from `for_server_tool`) one made from the name; the
            // file's is put on later (`shape`).
            title: tool.title.clone().or(hints.title.clone()).unwrap_or(spec.title),
            // The server's own claims, passed on; where it says nothing, MCP's worst case.
            annotations: ToolAnnotations {
                read_only: hints.read_only_hint.unwrap_or(unclaimed.read_only),
                destructive: hints.destructive_hint.unwrap_or(unclaimed.destructive),
                idempotent: hints.idempotent_hint.unwrap_or(unclaimed.idempotent),
                open_world: hints.open_world_hint.unwrap_or(unclaimed.open_world),
            },
            ..spec
        };
        RemoteTool { spec, remote_name: name, binder }
    }

    /// Drops `client` if it is still the connection, so that the next call starts
    /// the server again.
    async fn forget(&self, client: &Arc<Client>) {
        let mut link = self.link.lock().await;
        if link.client.as_ref().is_some_and(|current| Arc::ptr_eq(current, client)) {
            link.client = None;
        }
    }

    /// The error for a call the connection failed, which is then dropped if it broke.
    async fn broken(&self, tool: &str, client: &Arc<Client>, error: ServiceError) -> ToolError {
        match error {
            ServiceError::McpError(error) => {
                self.failed(tool, format!("answered the call with an error: {}", error.message), false)
            }
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                self.forget(client).await;
                let reason = "exited, or its connection broke, during the call (it may or may not have run it; \
                              the server is started again for the next call)";
                self.failed(tool, reason.into(), true)
            }
            other => self.failed(tool, format!("sent something that is not a usable MCP answer ({other})"), false),
        }
    }

    fn down(&self, tool: &str, down: Down) -> ToolError {
        match down {
            Down::CannotStart(why) => self.failed(tool, format!("cannot be started: {why}"), true),
            Down::Waiting { retry_in, last_error } => self.failed(
                tool,
                format!("is not running ({last_error}); it is started again in {} s", retry_in.as_secs().max(1)),
                true,
            ),
        }
    }

    fn failed(&self, tool: &str, reason: String, retry: bool) -> ToolError {
        ToolError::ServerFailed { tool: tool.to_string(), server: self.config.name.clone(), reason, retry }
    }
}

/// How long to wait before starting again a server that failed to start `failures`
/// times in a row: 1 s, 2 s, 4 s, … up to 30 s.
fn backoff(failures: u32) -> Duration {
    Duration::from_secs(1u64 << failures.saturating_sub(1).min(5)).min(MAX_BACKOFF)
}
