//! The MCP face (cargo feature `mcp`): an MCP server, with rmcp, exposing a host's
//! tools over stdio or any byte stream (`transport.rs`), and over streamable HTTP
//! (`http/`, cargo feature `http`). `tools/list` gives every tool's schemas, title
//! and safety hints, and `tools/call` goes through the same name repair, argument
//! binding and sandbox as [`Host::call`]; a corrective message comes back as a tool
//! result with `isError: true`, so the model reads it and tries again. A client with
//! a session is sent `notifications/tools/list_changed` when the plugins reload (the
//! resource and prompt lists' too, when there are any, and
//! `notifications/resources/updated` for each resource it subscribed to that now
//! reads differently).

#[allow(deprecated, reason = "rmcp marks MCP logging deprecated (SEP-2577); the revisions we serve still have it")]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, CompleteRequestParams, CompleteResult,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, RequestParamsMeta, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::broadcast;

mod access;
mod asks;
mod audit;
#[cfg(feature = "http")]
pub mod http;
mod invalid;
mod limits;
mod listed;
mod metrics;
mod notify;
mod offers;
mod profiles;
#[cfg(feature = "http")]
mod recent;
mod revealed;
mod rounds;
#[cfg(feature = "http")]
mod store;
mod tasks;
mod trace;
mod transport;

use crate::error::ToolError;
use crate::host::{CallOutcome, Host, Profile};
use crate::tool::{Content, ToolFormat};
use access::CallerTools;
pub use access::{Access, Caller};
pub use audit::AuditLog;
pub use limits::RateLimits;
pub use metrics::Metrics;
#[cfg(feature = "http")]
pub use recent::RecentCalls;
use rounds::{Round, Rounds};
use tasks::Tasks;
use transport::LineTransport;

/// Why the MCP server stopped with an error.
#[derive(Debug, thiserror::Error)]
#[error("MCP server: {0}")]
pub struct ServeError(String);

/// Serves `host`'s tools over MCP on stdin/stdout until the client disconnects.
/// When the host reloads (see [`Host::reload`] and `HostBuilder::watch`), the client
/// is sent `notifications/tools/list_changed`.
pub async fn serve_stdio(host: Host) -> Result<(), ServeError> {
    McpServer::new(host).serve_stdio().await
}

/// Serves `host`'s tools over MCP as newline-delimited JSON-RPC read from `reader`
/// and written to `writer` (a socket, a pipe; [`serve_stdio`] is this over stdio),
/// until the client disconnects. A line longer than 16 MiB is dropped unread; a
/// request that is not an MCP message is answered with an error carrying its `id`.
pub async fn serve_io<R, W>(host: Host, reader: R, writer: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    McpServer::new(host).serve_io(reader, writer).await
}

/// The rmcp handler over a [`Host`]. Clones share the host and the news of reloads,
/// so one handler can serve many sessions.
#[derive(Clone)]
pub struct McpServer {
    host: Host,
    /// Told of every reload that changed the plugins; each session listens.
    changes: broadcast::Sender<()>,
    /// The log level the session's client asked for (shared by clones: see
    /// [`McpServer::for_session`]).
    level: notify::SessionLevel,
    /// Calls waiting for their client's answers, in the stateless revision (shared
    /// by every session).
    rounds: Rounds,
    /// Long calls that went on as tasks, in the stateless revision (shared by every
    /// session).
    tasks: Tasks,
    /// The resources the session's client subscribed to.
    subscriptions: offers::Subscriptions,
    /// Where each call is recorded, if anywhere.
    audit: Option<Arc<AuditLog>>,
    /// How often each caller may call each tool, if limited.
    limits: Option<Arc<RateLimits>>,
    /// Which tools each caller may see and call, if not all.
    access: Option<Arc<CallerTools>>,
    /// Where each call is counted, if anywhere.
    metrics: Option<Arc<Metrics>>,
    /// Whether each call is an OpenTelemetry span.
    tracing: bool,
    /// The MCP tool list of each registry served, made once (shared by every session).
    listed: Arc<listed::ListedTools>,
    /// The tools the finder found in this session, listed to it (a disclosing host's).
    revealed: Arc<revealed::Revealed>,
    /// The profiles served apart, at `/mcp/NAME` (over HTTP).
    profiles: Option<Arc<profiles::Profiles>>,
    /// The store shared with other replicas (over HTTP), if any.
    #[cfg(feature = "http")]
    store: Option<store::Store>,
    /// The recent calls the console shows (over HTTP), if it is served.
    #[cfg(feature = "http")]
    recent: Option<Arc<recent::RecentCalls>>,
}

impl McpServer {
    /// A handler serving `host`'s tools (for use with any rmcp transport).
    pub fn new(host: Host) -> McpServer {
        let (changes, _) = broadcast::channel(16);
        let sender = changes.clone();
        host.on_change(move || {
            let _ = sender.send(());
        });
        let level = notify::SessionLevel::default();
        let subscriptions = offers::Subscriptions::default();
        McpServer {
            host,
            changes,
            level,
            rounds: Rounds::default(),
            tasks: Tasks::default(),
            subscriptions,
            audit: None,
            limits: None,
            access: None,
            metrics: None,
            tracing: false,
            listed: Arc::default(),
            revealed: Arc::default(),
            profiles: None,
            #[cfg(feature = "http")]
            store: None,
            #[cfg(feature = "http")]
            recent: None,
        }
    }

    /// The same handler, where a call from a client that takes tasks (MCP's tasks
    /// extension, revision 2026-07-28 on) and still runs after `patience` goes on
    /// as a task the client polls; `None`: calls never become tasks. One second
    /// unless set.
    #[must_use]
    pub fn with_tasks_after(self, patience: Option<std::time::Duration>) -> McpServer {
        McpServer { tasks: Tasks::after(patience), ..self }
    }

    /// The same handler, one of several replicas sharing `store`: any of them answers
    /// a task's `tasks/get`, `tasks/update` and `tasks/cancel`, and a retry answering
    /// a call's question, while the call runs on the one that started it. Acts on
    /// what the other replicas ask from then on: the last of the `with_` calls.
    #[cfg(feature = "http")]
    pub(crate) fn with_store(self, store: Option<store::Store>) -> McpServer {
        let Some(store) = store else { return self };
        let server = McpServer {
            rounds: self.rounds.clone().of_replica(store.replica()),
            tasks: self.tasks.clone().shared(store.clone()),
            store: Some(store.clone()),
            ..self
        };
        if let Some(mut inbox) = store.take_inbox() {
            let serving = server.clone();
            tokio::spawn(async move {
                while let Some(asked) = inbox.recv().await {
                    match asked {
                        store::Asked::Resume(resume) => {
                            let (serving, store) = (serving.clone(), store.clone());
                            tokio::spawn(async move { serving.resume_for_replica(&store, resume).await });
                        }
                        other => serving.tasks.asked(other),
                    }
                }
            });
        }
        server
    }

    /// The same handler, keeping its calls in `recent` for a console to show (see
    /// [`http::HttpOptions::recent_calls`]).
    #[cfg(feature = "http")]
    #[must_use]
    pub fn with_recent_calls(self, recent: Option<Arc<RecentCalls>>) -> McpServer {
        McpServer { recent, ..self }
    }

    /// [`serve_stdio`] with this handler (e.g. one [`McpServer::with_audit`]).
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        #[cfg(unix)]
        if let Some((reader, writer)) = transport::stdio_pipes() {
            return self.serve_io(reader, writer).await;
        }
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// [`serve_io`] with this handler.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> Result<(), ServeError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let service = self
            .serve(LineTransport::new(reader, writer))
            .await
            .map_err(|e| ServeError(format!("the session could not start: {e}")))?;
        service.waiting().await.map_err(|e| ServeError(format!("the session ended abnormally: {e}")))?;
        Ok(())
    }

    /// The same handler, refusing calls beyond `limits` (see [`RateLimits`]).
    #[must_use]
    pub fn with_rate_limits(self, limits: Option<Arc<RateLimits>>) -> McpServer {
        McpServer { limits, ..self }
    }

    /// The same handler, counting every call in `metrics` (and reading this host's
    /// state at each scrape: see [`Metrics::watch`]).
    #[must_use]
    pub fn with_metrics(self, metrics: Option<Arc<Metrics>>) -> McpServer {
        if let Some(metrics) = &metrics {
            metrics.watch(&self.host);
        }
        McpServer { metrics, ..self }
    }

    /// The same handler, making each call an OpenTelemetry span (`execute_tool
    /// {tool}`, with GenAI attributes), a child of the trace the request carries, on
    /// the tracer provider and propagator installed with `opentelemetry::global`.
    #[must_use]
    pub fn with_tracing(self, tracing: bool) -> McpServer {
        McpServer { tracing, ..self }
    }

    /// The same handler, where each caller sees and calls only the tools `access`
    /// grants it (see [`Access`]); all tools for everyone when `None`.
    #[must_use]
    pub fn with_access(self, access: Option<Arc<Access>>) -> McpServer {
        McpServer { access: access.map(|access| Arc::new(CallerTools::new(access))), ..self }
    }

    /// The same handler, also serving each of `profiles` (a named toolset) apart: over
    /// HTTP, a request to `/mcp/NAME` sees the tools of the profile `NAME` alone (and
    /// of those, the ones its caller may use).
    #[must_use]
    pub fn with_profiles(self, profiles: BTreeMap<String, Profile>) -> McpServer {
        let profiles = (!profiles.is_empty()).then(|| Arc::new(profiles::Profiles::new(profiles)));
        McpServer { profiles, ..self }
    }

    /// The host as the request's caller may see it, of the profile its path names.
    fn host_for(&self, context: &RequestContext<RoleServer>) -> Host {
        self.view(&caller(context), profile(context).as_deref())
    }

    /// Whether every caller may use every tool (no [`Access`] set).
    #[cfg(feature = "http")]
    pub(crate) fn open_to_all(&self) -> bool {
        self.access.is_none()
    }

    /// The host as `caller` may see it, of `profile` (all the tools for none).
    pub(crate) fn view(&self, caller: &Caller, profile: Option<&str>) -> Host {
        let host = match (profile, &self.profiles) {
            (None, _) => self.host.clone(),
            (Some(name), Some(profiles)) => {
                profiles.host(&self.host, name).unwrap_or_else(|| self.host.without_tools())
            }
            // The HTTP guards answer 404 for a profile there is not.
            (Some(_), None) => self.host.without_tools(),
        };
        match &self.access {
            Some(access) => access.host_for(&host, caller, profile),
            None => host,
        }
    }

    /// The same handler, recording every tool call in `audit` (see [`AuditLog`]).
    #[must_use]
    pub fn with_audit(self, audit: Option<Arc<AuditLog>>) -> McpServer {
        McpServer { audit, ..self }
    }

    /// A handler for one more session: the same host and news of reloads, with its
    /// own log level, subscriptions and found tools.
    pub fn for_session(&self) -> McpServer {
        let subscriptions = offers::Subscriptions::default();
        let revealed = Arc::default();
        McpServer { level: notify::SessionLevel::default(), subscriptions, revealed, ..self.clone() }
    }
}

impl ServerHandler for McpServer {
    #[allow(deprecated, reason = "rmcp marks MCP logging deprecated (SEP-2577); the revisions we serve still have it")]
    fn get_info(&self) -> ServerConfig {
        let mut builder = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_logging();
        if self.tasks.offered() {
            builder = builder.enable_tasks();
        }
        let mut capabilities = builder.build();
        offers::declare(&self.host, &mut capabilities);
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new("toolhost", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Tools run in a sandbox. A failed call returns a message saying what to change; read it and call again."
                .into(),
        );
        info
    }

    /// Once a session is set up, tells its client whenever the plugins reload, for as
    /// long as the session lasts: the tool list changed, and what changed besides.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut changes = self.changes.subscribe();
        let (host, subscriptions) = (self.host.clone(), self.subscriptions.clone());
        let peer = context.peer;
        tokio::spawn(async move {
            let mut check = tokio::time::interval(std::time::Duration::from_secs(30));
            loop {
                tokio::select! {
                    change = changes.recv() => match change {
                        Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                    // A client that left without a word: stop listening for it.
                    _ = check.tick() => {
                        if peer.is_transport_closed() {
                            return;
                        }
                        continue;
                    }
                }
                let told = match peer.notify_tool_list_changed().await {
                    Ok(()) => offers::tell_changes(&host, &subscriptions, &peer).await,
                    Err(error) => Err(error.to_string()),
                };
                if let Err(error) = told {
                    tracing::debug!("the MCP session ended, or cannot be told what the reload changed: {error}");
                    return;
                }
            }
        });
    }

    /// Keeps the least important level of tool log lines the client wants.
    #[allow(deprecated, reason = "rmcp marks MCP logging deprecated (SEP-2577); the revisions we serve still have it")]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.level.set(request.level);
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        offers::list_resources(&self.host).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        offers::list_templates(&self.host).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        offers::read_resource(&self.host, request).await.map(Into::into)
    }

    /// Kept with what the resource reads as now: after a reload, the client is told
    /// if it reads differently.
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.add(&self.host, request.uri).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        offers::list_prompts(&self.host).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        offers::get_prompt(&self.host, request).await.map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        offers::complete(&self.host, request).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks.get(&request.task_id).await.map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.update(&request.task_id, request.input_responses).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(&request.task_id).await
    }

    /// A request rmcp read as none it knows: a known method's params were wrong
    /// (-32602, saying what), else no such method (-32601).
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        Err(invalid::unreadable_request(&request.method, request.params.as_ref()))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let host = self.host_for(&context);
        let listed = self.listed.of(&host);
        let mut tools = listed.as_ref().clone();
        tools.extend(self.revealed.tools(&host, &listed));
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if context.protocol_version().is_some_and(|version| version >= ProtocolVersion::V_2026_07_28) {
            return self.call_in_rounds(request, context).await;
        }
        let progress_token = request.progress_token().or_else(|| context.meta.get_progress_token());
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        // rmcp cancels `ct` on the client's `notifications/cancelled` for this request
        // and when the session ends; the call then stops, and rmcp sends no answer.
        let (observer, notices) = notify::observe(context.peer.clone(), progress_token, self.level.clone());
        let call = self.call(&context);
        let host = call.host.clone();
        let outcome = call.run(&request.name, arguments, observer, context.ct.cancelled()).await;
        // Every notice before the answer (the observer went with the call).
        let _ = notices.await;
        if self.revealed.add_found(&host, &outcome) {
            // The found tools are listed from now on; a client that cannot be told still may call them.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(self.tool_result(outcome).into())
    }
}

impl McpServer {
    /// A call in the stateless revision, where a tool's questions take rounds
    /// (`rounds.rs`): the first round starts the call; a request carrying a
    /// `requestState` resumes the call it names with the client's answers. A call
    /// that runs long, for a client that takes tasks, goes on as a task (`tasks.rs`).
    async fn call_in_rounds(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let support = self.host_for(&context).task_support(&request.name);
        let patience = self.tasks.patience(support, context.client_capabilities().as_ref())?;
        let running = match &request.request_state {
            Some(state) => match self.rounds.resume(state, request.input_responses.as_ref()) {
                Some(running) => running,
                None => return self.resume_elsewhere(state, request.input_responses.clone(), patience, &context).await,
            },
            None => self.start_call(request, &context),
        };
        let round = self.rounds.round(running, context.ct.cancelled(), patience).await;
        self.answer_round(round).await
    }

    /// The first round of a stateless call the HTTP face read itself, without a
    /// session's peer (`http/direct.rs`): what the call reports goes to `notices`, in
    /// order, before its answer. `None` when the answer would be an error, which the
    /// face then leaves to rmcp.
    #[cfg(feature = "http")]
    pub(crate) fn call_directly<C: Future<Output = ()> + Send + 'static>(
        &self,
        call: DirectCall,
        notices: tokio::sync::mpsc::UnboundedSender<rmcp::model::ServerNotification>,
        closed: C,
    ) -> Option<impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + use<C>> {
        let support = self.view(&call.caller, call.profile.as_deref()).task_support(&call.name);
        let patience = self.tasks.patience(support, Some(&call.capabilities)).ok()?;
        let reports = notify::observe_into(notices, call.progress_token, self.level.clone());
        let who = Who { caller: call.caller, profile: call.profile, parent: None };
        let running = self.start_observed(call.name, call.arguments, reports, None, Some(&call.capabilities), who);
        let server = self.clone();
        Some(async move { server.answer_round(server.rounds.round(running, closed, patience).await).await })
    }

    /// A call a person made in the console (`http/console`): `caller`'s, as an MCP
    /// client's would be (its tools, rate limits, audit line, metrics), with no one
    /// to ask a tool's question or an approval.
    #[cfg(feature = "http")]
    pub(crate) async fn call_for_console(&self, caller: Caller, name: &str, arguments: Value) -> CallOutcome {
        struct NoOneAsks;
        impl crate::sandbox::CallObserver for NoOneAsks {}
        let call = self.call_as(caller, None, None);
        call.run(name, arguments, Arc::new(NoOneAsks), std::future::pending()).await
    }

    /// A round for a call that does not wait here: relayed to the replica where it
    /// waits (with a shared store), else refused, saying what to do.
    async fn resume_elsewhere(
        &self,
        state: &str,
        responses: Option<rmcp::model::InputResponses>,
        patience: Option<std::time::Duration>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        #[cfg(feature = "http")]
        if let Some(store) = &self.store
            && let Some(owner) = store.other_owner(state)
        {
            return store.relay(owner, state, responses, patience, context.ct.cancelled()).await;
        }
        #[cfg(not(feature = "http"))]
        let _ = (responses, patience, context);
        Err(no_call_waits(state))
    }

    /// Runs a round another replica relayed (its client's retry reached that one)
    /// and sends it the answer.
    #[cfg(feature = "http")]
    async fn resume_for_replica(&self, store: &store::Store, resume: store::Resume) {
        let answer = match self.rounds.resume(&resume.state, resume.responses.as_ref()) {
            Some(running) => {
                let round = self.rounds.round(running, store.closed(&resume.round), resume.patience).await;
                self.answer_round(round).await
            }
            None => Err(no_call_waits(&resume.state)),
        };
        store.answer(&resume, answer).await;
    }

    /// A round's answer to the client: the call's result, its question, or its task.
    async fn answer_round(&self, round: Option<Round>) -> Result<CallToolResponse, ErrorData> {
        match round {
            Some(Round::Done(outcome)) => Ok(self.tool_result(outcome).into()),
            Some(Round::Asks(asks)) => Ok((*asks).into()),
            Some(Round::Long(running)) => {
                let server = self.clone();
                Ok(CallToolResponse::Task(self.tasks.adopt(running, move |outcome| server.tool_result(outcome)).await))
            }
            None => {
                Err(ErrorData::internal_error("the call was cancelled, or its task ended without an outcome", None))
            }
        }
    }

    /// Starts a call on a task of its own, asking through rounds.
    fn start_call(&self, request: CallToolRequestParams, context: &RequestContext<RoleServer>) -> rounds::Running {
        let progress_token = request.progress_token().or_else(|| context.meta.get_progress_token());
        let (reports, notices) = notify::observe(context.peer.clone(), progress_token, self.level.clone());
        let who = Who { caller: caller(context), profile: profile(context), parent: self.trace_parent(context) };
        let capabilities = context.client_capabilities();
        self.start_observed(request.name.into(), request.arguments, reports, Some(notices), capabilities.as_ref(), who)
    }

    /// Starts `who`'s call of `name` on a task of its own, reporting to `reports`
    /// (whose sending task, if any, ends before the call's outcome is told), asking
    /// through rounds what `capabilities` let it ask.
    fn start_observed(
        &self,
        name: String,
        arguments: Option<rmcp::model::JsonObject>,
        reports: Arc<notify::ClientObserver>,
        sending: Option<tokio::task::JoinHandle<()>>,
        capabilities: Option<&rmcp::model::ClientCapabilities>,
        who: Who,
    ) -> rounds::Running {
        let (observer, running, events, cancel) = Rounds::start(reports, capabilities);
        let server = self.clone();
        let arguments = arguments.map(Value::Object).unwrap_or(Value::Null);
        tokio::spawn(async move {
            let call = server.call_as(who.caller, who.profile.as_deref(), who.parent);
            let outcome = call.run(&name, arguments, observer, async move { cancel.notified().await }).await;
            if let Some(sending) = sending {
                let _ = sending.await;
            }
            let _ = events.send(rounds::Event::Done(outcome));
        });
        running
    }

    /// A call for the request of `context`: see [`McpServer::call_as`].
    fn call(&self, context: &RequestContext<RoleServer>) -> Call<'_> {
        self.call_as(caller(context), profile(context).as_deref(), self.trace_parent(context))
    }

    /// A call by `caller` on this handler's host (the tools it may use of `profile`),
    /// limits, audit log and metrics, a span in `parent`'s trace when calls are spans.
    fn call_as(&self, caller: Caller, profile: Option<&str>, parent: Option<opentelemetry::Context>) -> Call<'_> {
        let (audit, limits, metrics) = (self.audit.as_deref(), self.limits.as_deref(), self.metrics.as_deref());
        Call {
            host: self.view(&caller, profile),
            audit,
            limits,
            metrics,
            #[cfg(feature = "http")]
            recent: self.recent.as_deref(),
            caller,
            parent,
        }
    }

    /// The trace a call joins, when calls are spans.
    fn trace_parent(&self, context: &RequestContext<RoleServer>) -> Option<opentelemetry::Context> {
        self.tracing.then(|| trace::parent(context))
    }

    /// A call's outcome as MCP's tool result: the value's text and content blocks
    /// (and the value as structured content when the tool declares an output
    /// schema), or the corrective message with `isError`.
    fn tool_result(&self, outcome: CallOutcome) -> CallToolResult {
        if let Err(ToolError::Cancelled { tool }) = &outcome.result {
            tracing::info!("MCP call of '{tool}' cancelled by the client");
        }
        if let (Some(from), Some(tool)) = (&outcome.repaired_from, &outcome.tool) {
            tracing::info!("MCP call: repaired tool name '{from}' -> '{tool}'");
        }
        match outcome.result {
            Ok(value) => {
                let mut result = CallToolResult::success(content_blocks(&value, &outcome.content));
                result.structured_content =
                    outcome.tool.as_deref().and_then(|tool| self.host.structured_result(tool, value));
                result
            }
            // A tool's own error and every corrective message are results the model reads.
            Err(error) => CallToolResult::error(vec![ContentBlock::text(error.to_string())]),
        }
    }
}

/// A stateless `tools/call` the HTTP face read itself (`http/direct.rs`): the tool's
/// name and arguments, what its client can do, its progress token, and who calls,
/// on which profile.
#[cfg(feature = "http")]
pub(crate) struct DirectCall {
    pub(crate) name: String,
    pub(crate) arguments: Option<rmcp::model::JsonObject>,
    pub(crate) capabilities: rmcp::model::ClientCapabilities,
    pub(crate) progress_token: Option<rmcp::model::ProgressToken>,
    pub(crate) caller: Caller,
    pub(crate) profile: Option<String>,
}

/// Who makes a call: the caller, on the profile the request named, in the trace it
/// joins (when calls are spans).
struct Who {
    caller: Caller,
    profile: Option<String>,
    parent: Option<opentelemetry::Context>,
}

/// The error for a round that names no waiting call.
fn no_call_waits(state: &str) -> ErrorData {
    let message = "no call waits under this requestState (it ended, or ran out of time): call the tool again";
    ErrorData::invalid_params(message, Some(json!({"requestState": state})))
}

/// One tool call as the face makes it: on the tools this caller may use, within its
/// rate limits (if any), recorded in the audit log (if any) as its, counted in the
/// metrics (if any), a span (when calls are spans).
struct Call<'a> {
    host: Host,
    audit: Option<&'a AuditLog>,
    limits: Option<&'a RateLimits>,
    metrics: Option<&'a Metrics>,
    #[cfg(feature = "http")]
    recent: Option<&'a recent::RecentCalls>,
    caller: Caller,
    /// The trace its span joins, when calls are spans.
    parent: Option<opentelemetry::Context>,
}

impl Call<'_> {
    /// The call, as the caller's (observed, cancellable), unless the caller's limit
    /// for the tool refuses it; then the audit line.
    async fn run(
        self,
        name: &str,
        arguments: Value,
        observer: Arc<dyn crate::sandbox::CallObserver>,
        cancelled: impl Future<Output = ()>,
    ) -> CallOutcome {
        let started = Instant::now();
        let span = self.parent.as_ref().map(|parent| trace::start(name, &self.caller, parent));
        let recorded = self.audit.map(|audit| (audit, arguments.clone()));
        let outcome = match self.refused(name) {
            Some(refused) => refused,
            None => {
                let request = self.host.request(name).arguments(&arguments).observer(observer);
                request.caller(self.caller.name()).cancel_on(cancelled).run_async().await
            }
        };
        let took = started.elapsed();
        if let Some((audit, arguments)) = recorded {
            audit.record(&self.caller, name, &arguments, &outcome, took);
        }
        if let Some(metrics) = self.metrics {
            metrics.record(&outcome, took);
        }
        #[cfg(feature = "http")]
        if let Some(recent) = self.recent {
            recent.record(&self.caller, name, &outcome, took);
        }
        if let Some(span) = span {
            trace::end(span, &outcome);
        }
        outcome
    }

    /// The outcome of a call of `name` beyond the caller's limit for its tool (the
    /// tool it resolves to: a drifted name counts as the tool's).
    fn refused(&self, name: &str) -> Option<CallOutcome> {
        // No limits, no second resolution of the name on the call's path.
        let limits = self.limits?;
        let tool = self.host.resolve_name(name).ok()?;
        let error = limits.take_call(&self.caller, &tool).err()?;
        let repaired_from = (tool != name).then(|| name.to_string());
        Some(CallOutcome {
            tool: Some(tool),
            repaired_from,
            repairs: Vec::new(),
            result: Err(error),
            content: Vec::new(),
            approved: false,
        })
    }
}

/// The profile the request's path names (over HTTP, `/mcp/NAME`), if any.
fn profile(context: &RequestContext<RoleServer>) -> Option<String> {
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<axum::http::request::Parts>() {
        return profiles::named_in(parts.uri.path()).map(str::to_string);
    }
    let _ = context;
    None
}

/// Who sent the request: as the HTTP guards admitted it, else the one client on stdio.
fn caller(context: &RequestContext<RoleServer>) -> Caller {
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<axum::http::request::Parts>()
        && let Some(caller) = parts.extensions.get::<Caller>()
    {
        return caller.clone();
    }
    let _ = context;
    Caller::new("stdio")
}

/// A call's result as MCP content: the value's JSON text, then the blocks the tool
/// added (see [`ToolFormat::tool_result`]), read by rmcp.
fn content_blocks(value: &Value, content: &[Content]) -> Vec<ContentBlock> {
    let blocks = ToolFormat::Mcp.tool_result(value, content);
    serde_json::from_value(blocks).unwrap_or_else(|error| {
        tracing::warn!("rmcp does not read a content block of the result ({error}); sending its text");
        vec![ContentBlock::text(ToolFormat::OpenAiChat.tool_result(value, content).as_str().unwrap_or_default())]
    })
}
