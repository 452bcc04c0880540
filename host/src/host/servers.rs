//! The MCP servers and REST APIs a snapshot serves beside its components
//! (`NAME.mcp.toml` and `NAME.openapi.toml` files): started (or loaded) when their
//! file is new or changed, kept while it is not, their tools taken into the registry
//! as last listed. Without the cargo feature `mcp-servers` (or `rest-apis`) such a
//! file is skipped with a warning that says how to get it served.

use std::path::PathBuf;

use crate::load::Version;
use crate::tool::{Asked, ToolSpec};

/// One server as a snapshot serves it, and the version of its file.
#[derive(Clone)]
pub(super) struct ServedServer {
    pub(super) source: PathBuf,
    pub(super) version: Version,
    inner: imp::Inner,
}

impl ServedServer {
    /// Its tools' specs, in the order the server listed them.
    pub(super) fn specs(&self) -> Vec<ToolSpec> {
        imp::specs(&self.inner)
    }

    /// What serving it says that a user should know (tools whose schema is unread).
    pub(super) fn warnings(&self) -> Vec<String> {
        imp::warnings(&self.inner)
    }

    /// The same server with its tools as listed now (after it said they changed).
    pub(super) fn relisted(&self) -> ServedServer {
        ServedServer { inner: imp::relisted(&self.inner), ..self.clone() }
    }

    /// Whether the server declared resources, and whether it declared prompts.
    pub(super) fn offers(&self) -> (bool, bool) {
        imp::offers(&self.inner)
    }

    /// Its name: its file's, without `.mcp.toml`.
    pub(super) fn name(&self) -> &str {
        imp::name(&self.inner)
    }

    /// Asks the server for what it offers besides tools: MCP's JSON, or why not.
    pub(super) async fn ask(&self, asked: Asked) -> Result<serde_json::Value, String> {
        imp::ask(&self.inner, asked).await
    }

    /// How many times it was started again after its first start.
    pub(super) fn restarts(&self) -> u64 {
        imp::restarts(&self.inner)
    }

    /// Whether it is an MCP server (else a REST API).
    pub(super) fn is_mcp(&self) -> bool {
        imp::is_mcp(&self.inner)
    }

    /// How it is served now: its name, tools, restarts, and why it is down if it is.
    pub(super) fn state(&self) -> super::McpServerState {
        super::McpServerState {
            name: self.name().to_string(),
            tools: self.specs().len(),
            restarts: self.restarts(),
            down: imp::down(&self.inner),
        }
    }
}

/// Why a build without the feature does not serve a `NAME.openapi.toml` file.
#[cfg(not(feature = "rest-apis"))]
const WITHOUT_REST_APIS: &str =
    "this build of toolhost cannot call REST APIs: build it with the cargo feature `rest-apis`";

#[cfg(feature = "mcp-servers")]
pub(super) use imp::{ServerCall, Servers, bind};

#[cfg(not(feature = "mcp-servers"))]
pub(super) use imp::Servers;

#[cfg(feature = "mcp-servers")]
mod imp {
    use std::path::Path;
    use std::sync::{Arc, OnceLock};

    use serde_json::Value;

    use super::ServedServer;
    use crate::bind::{Arguments, SchemaBinder, bind_for_server};
    use crate::error::ToolError;
    use crate::load::Version;
    use crate::remote::{RemoteRuntime, RemoteServer, RemoteTool, ServerConfig};
    #[cfg(feature = "rest-apis")]
    use crate::rest::{ApiConfig, RestApi};
    use crate::sandbox::Limits;
    use crate::tool::{Asked, Repair, Returned, ToolSpec};

    /// A started server (or a loaded REST API), its tools as the snapshot took them,
    /// and the limits of its calls.
    #[derive(Clone)]
    pub(super) struct Inner {
        plugin: Plugin,
        limits: Limits,
    }

    /// What serves the tools.
    #[derive(Clone)]
    enum Plugin {
        Mcp {
            server: Arc<RemoteServer>,
            tools: Arc<Vec<RemoteTool>>,
        },
        #[cfg(feature = "rest-apis")]
        Rest(Arc<RestApi>),
    }

    /// What starting servers needs: the runtime their connections (and REST APIs'
    /// requests) run on, made when the first such file is found.
    #[derive(Default)]
    pub(in crate::host) struct Servers {
        runtime: OnceLock<Arc<RemoteRuntime>>,
    }

    impl Servers {
        /// Starts the server of the file at `path` (or loads the REST API), or says
        /// why it cannot be.
        pub(in crate::host) fn start(
            &self,
            path: &Path,
            version: Version,
            limits: Limits,
            on_change: impl Fn() + Send + Sync + 'static,
        ) -> Result<ServedServer, String> {
            let plugin = if crate::load::is_rest_api_file(path) {
                self.load_api(path)?
            } else {
                let config = ServerConfig::read(path, |name| std::env::var(name).ok()).map_err(|e| e.to_string())?;
                let name = config.name.clone();
                let server = RemoteServer::start(config, self.runtime()?)
                    .map_err(|why| format!("the MCP server '{name}' cannot be used: {why}"))?;
                server.on_change(on_change);
                let tools = server.tools();
                Plugin::Mcp { server, tools }
            };
            Ok(ServedServer { source: path.to_path_buf(), version, inner: Inner { plugin, limits } })
        }

        #[cfg(feature = "rest-apis")]
        fn load_api(&self, path: &Path) -> Result<Plugin, String> {
            let config = ApiConfig::read(path, |name| std::env::var(name).ok())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let name = config.name.clone();
            let api = RestApi::load(config, self.runtime()?)
                .map_err(|why| format!("the REST API '{name}' cannot be used: {why}"))?;
            Ok(Plugin::Rest(api))
        }

        #[cfg(not(feature = "rest-apis"))]
        fn load_api(&self, _path: &Path) -> Result<Plugin, String> {
            Err(super::WITHOUT_REST_APIS.into())
        }

        /// The plugins' runtime, made the first time.
        fn runtime(&self) -> Result<Arc<RemoteRuntime>, String> {
            if let Some(runtime) = self.runtime.get() {
                return Ok(runtime.clone());
            }
            let made = RemoteRuntime::new().map_err(|e| format!("cannot start the plugins' runtime: {e}"))?;
            Ok(self.runtime.get_or_init(|| Arc::new(made)).clone())
        }
    }

    pub(super) fn specs(inner: &Inner) -> Vec<ToolSpec> {
        match &inner.plugin {
            Plugin::Mcp { tools, .. } => tools.iter().map(|tool| tool.spec.clone()).collect(),
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(api) => api.tools().iter().map(|tool| tool.spec.clone()).collect(),
        }
    }

    pub(super) fn warnings(inner: &Inner) -> Vec<String> {
        match &inner.plugin {
            Plugin::Mcp { server, tools } => {
                let unread = tools.iter().filter_map(|tool| {
                    let why = tool.binder.unreadable()?;
                    Some(format!("{}: tool '{}': {why}", server.name(), tool.spec.name))
                });
                server.warnings().into_iter().chain(unread).collect()
            }
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(api) => api.warnings(),
        }
    }

    pub(super) fn relisted(inner: &Inner) -> Inner {
        match &inner.plugin {
            Plugin::Mcp { server, .. } => {
                let plugin = Plugin::Mcp { server: server.clone(), tools: server.tools() };
                Inner { plugin, ..inner.clone() }
            }
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(_) => inner.clone(),
        }
    }

    pub(super) fn offers(inner: &Inner) -> (bool, bool) {
        match &inner.plugin {
            Plugin::Mcp { server, .. } => server.offers(),
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(_) => (false, false),
        }
    }

    pub(super) fn name(inner: &Inner) -> &str {
        match &inner.plugin {
            Plugin::Mcp { server, .. } => server.name(),
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(api) => api.name(),
        }
    }

    pub(super) fn is_mcp(inner: &Inner) -> bool {
        matches!(inner.plugin, Plugin::Mcp { .. })
    }

    pub(super) async fn ask(inner: &Inner, asked: Asked) -> Result<Value, String> {
        match &inner.plugin {
            Plugin::Mcp { server, .. } => server.ask(asked).await,
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(_) => Err("a REST API offers no resources or prompts".into()),
        }
    }

    pub(super) fn restarts(inner: &Inner) -> u64 {
        match &inner.plugin {
            Plugin::Mcp { server, .. } => server.restarts(),
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(_) => 0,
        }
    }

    pub(super) fn down(inner: &Inner) -> Option<String> {
        match &inner.plugin {
            Plugin::Mcp { server, .. } => server.why_down(),
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(_) => None,
        }
    }

    /// Where a bound call goes.
    enum Destination<'a> {
        Mcp {
            server: &'a Arc<RemoteServer>,
            remote_name: &'a str,
        },
        #[cfg(feature = "rest-apis")]
        Rest {
            api: &'a Arc<RestApi>,
            index: usize,
        },
    }

    /// A server's tool (or a REST API's operation) with its arguments bound, ready to send.
    pub(in crate::host) struct ServerCall<'a> {
        to: Destination<'a>,
        tool: &'a str,
        arguments: Value,
        limits: Limits,
    }

    impl ServerCall<'_> {
        /// The call with its limits as `change` makes them (a caller's deadline).
        pub(in crate::host) fn within(self, change: impl FnOnce(Limits) -> Limits) -> Self {
            ServerCall { limits: change(self.limits), ..self }
        }

        /// The arguments as bound for the server.
        pub(in crate::host) fn arguments(&self) -> &Value {
            &self.arguments
        }

        /// The call with `arguments` (a policy's rewrite) in place of those bound.
        pub(in crate::host) fn with_arguments(self, arguments: Value) -> Self {
            ServerCall { arguments, ..self }
        }

        /// Sends the call and waits for the answer, blocking this thread.
        pub(in crate::host) fn run(self) -> Result<Returned, ToolError> {
            let ServerCall { to, tool, arguments, limits } = self;
            match to {
                Destination::Mcp { server, remote_name } => {
                    server.call(tool, remote_name, arguments, limits.time, limits.result_bytes)
                }
                #[cfg(feature = "rest-apis")]
                Destination::Rest { api, index } => api.call(tool, index, arguments, limits.time, limits.result_bytes),
            }
        }

        /// Sends the call and awaits the answer; dropping the future cancels the call
        /// at the server (or abandons the request).
        pub(in crate::host) async fn run_async(self) -> Result<Returned, ToolError> {
            let ServerCall { to, tool, arguments, limits } = self;
            match to {
                Destination::Mcp { server, remote_name } => {
                    server.call_async(tool, remote_name, arguments, limits.time, limits.result_bytes).await
                }
                #[cfg(feature = "rest-apis")]
                Destination::Rest { api, index } => {
                    api.call_async(tool, index, arguments, limits.time, limits.result_bytes).await
                }
            }
        }
    }

    /// Binds `arguments` to the server's tool number `index` (registered as `tool`).
    pub(in crate::host) fn bind<'a>(
        served: &'a ServedServer,
        index: usize,
        tool: &'a str,
        arguments: Arguments<'_>,
        repairs: &mut Vec<Repair>,
    ) -> Result<ServerCall<'a>, ToolError> {
        let host_limits = served.inner.limits;
        let bound = |binder: &SchemaBinder, spec: &ToolSpec, repairs: &mut Vec<Repair>| {
            bind_for_server(binder, spec, tool, arguments, repairs)
        };
        // The file's `timeout_ms` (and an API's `max_response_bytes`) over the host's
        // limits; a caller's deadline may shorten the time.
        match &served.inner.plugin {
            Plugin::Mcp { server, tools } => {
                let Some(remote) = tools.get(index) else {
                    let reason = "no longer has this tool".to_string();
                    let server = server.name().to_string();
                    return Err(ToolError::ServerFailed { tool: tool.to_string(), server, reason, retry: false });
                };
                let arguments = bound(&remote.binder, &remote.spec, repairs)?;
                let limits = Limits { time: server.time_limit(host_limits.time), ..host_limits };
                let to = Destination::Mcp { server, remote_name: &remote.remote_name };
                Ok(ServerCall { to, tool, arguments, limits })
            }
            #[cfg(feature = "rest-apis")]
            Plugin::Rest(api) => {
                let tools = api.tools();
                let operation = tools.get(index).ok_or_else(|| ToolError::ApiFailed {
                    tool: tool.to_string(),
                    api: api.name().to_string(),
                    status: None,
                    reason: "no longer has this operation".into(),
                    retry: false,
                })?;
                let arguments = bound(&operation.binder, &operation.spec, repairs)?;
                let limits = Limits {
                    time: api.time_limit(host_limits.time),
                    result_bytes: api.response_limit(host_limits.result_bytes),
                    ..host_limits
                };
                Ok(ServerCall { to: Destination::Rest { api, index }, tool, arguments, limits })
            }
        }
    }
}

#[cfg(not(feature = "mcp-servers"))]
mod imp {
    use std::path::Path;

    use super::ServedServer;
    use crate::load::Version;
    use crate::sandbox::Limits;
    use crate::tool::ToolSpec;

    /// Nothing can be served without the feature: no value of this type exists.
    #[derive(Clone)]
    pub(super) enum Inner {}

    /// Refuses every server file.
    #[derive(Default)]
    pub(in crate::host) struct Servers;

    impl Servers {
        pub(in crate::host) fn start(
            &self,
            _path: &Path,
            _version: Version,
            _limits: Limits,
            _on_change: impl Fn() + Send + Sync + 'static,
        ) -> Result<ServedServer, String> {
            if crate::load::is_rest_api_file(_path) {
                return Err(super::WITHOUT_REST_APIS.into());
            }
            Err("this build of toolhost cannot start MCP servers: build it with the cargo feature `mcp-servers`".into())
        }
    }

    pub(super) fn specs(inner: &Inner) -> Vec<ToolSpec> {
        match *inner {}
    }

    pub(super) fn warnings(inner: &Inner) -> Vec<String> {
        match *inner {}
    }

    pub(super) fn relisted(inner: &Inner) -> Inner {
        match *inner {}
    }

    pub(super) fn offers(inner: &Inner) -> (bool, bool) {
        match *inner {}
    }

    pub(super) fn name(inner: &Inner) -> &str {
        match *inner {}
    }

    pub(super) async fn ask(inner: &Inner, _asked: crate::tool::Asked) -> Result<serde_json::Value, String> {
        match *inner {}
    }

    pub(super) fn restarts(inner: &Inner) -> u64 {
        match *inner {}
    }

    pub(super) fn is_mcp(inner: &Inner) -> bool {
        match *inner {}
    }

    pub(super) fn down(inner: &Inner) -> Option<String> {
        match *inner {}
    }
}
