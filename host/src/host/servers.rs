//! The MCP servers a snapshot serves beside its components (`NAME.mcp.toml` files):
//! started when their file is new or changed, kept while it is not, their tools
//! taken into the registry as last listed. Without the cargo feature `mcp-servers`
//! such a file is skipped with a warning that says how to get it served.

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
    use crate::bind::{Arguments, bind_for_server};
    use crate::error::ToolError;
    use crate::load::Version;
    use crate::remote::{RemoteRuntime, RemoteServer, RemoteTool, ServerConfig};
    use crate::sandbox::Limits;
    use crate::tool::{Asked, Repair, Returned, ToolSpec};

    /// A started server, its tools as the snapshot took them, and the limits of its
    /// calls.
    #[derive(Clone)]
    pub(super) struct Inner {
        server: Arc<RemoteServer>,
        tools: Arc<Vec<RemoteTool>>,
        limits: Limits,
    }

    /// What starting servers needs: the runtime their connections run on, made when
    /// the first server file is found.
    #[derive(Default)]
    pub(in crate::host) struct Servers {
        runtime: OnceLock<Arc<RemoteRuntime>>,
    }

    impl Servers {
        /// Starts the server of the file at `path`, or says why it cannot be.
        pub(in crate::host) fn start(
            &self,
            path: &Path,
            version: Version,
            limits: Limits,
            on_change: impl Fn() + Send + Sync + 'static,
        ) -> Result<ServedServer, String> {
            let config = ServerConfig::read(path, |name| std::env::var(name).ok()).map_err(|e| e.to_string())?;
            let runtime = match self.runtime.get() {
                Some(runtime) => runtime.clone(),
                None => {
                    let made =
                        RemoteRuntime::new().map_err(|e| format!("cannot start the MCP client's runtime: {e}"))?;
                    self.runtime.get_or_init(|| Arc::new(made)).clone()
                }
            };
            let name = config.name.clone();
            let server = RemoteServer::start(config, runtime)
                .map_err(|why| format!("the MCP server '{name}' cannot be used: {why}"))?;
            server.on_change(on_change);
            let tools = server.tools();
            Ok(ServedServer { source: path.to_path_buf(), version, inner: Inner { server, tools, limits } })
        }
    }

    pub(super) fn specs(inner: &Inner) -> Vec<ToolSpec> {
        inner.tools.iter().map(|tool| tool.spec.clone()).collect()
    }

    pub(super) fn warnings(inner: &Inner) -> Vec<String> {
        let unread = inner.tools.iter().filter_map(|tool| {
            let why = tool.binder.unreadable()?;
            Some(format!("{}: tool '{}': {why}", inner.server.name(), tool.spec.name))
        });
        inner.server.warnings().into_iter().chain(unread).collect()
    }

    pub(super) fn relisted(inner: &Inner) -> Inner {
        Inner { tools: inner.server.tools(), ..inner.clone() }
    }

    pub(super) fn offers(inner: &Inner) -> (bool, bool) {
        inner.server.offers()
    }

    pub(super) fn name(inner: &Inner) -> &str {
        inner.server.name()
    }

    pub(super) async fn ask(inner: &Inner, asked: Asked) -> Result<Value, String> {
        inner.server.ask(asked).await
    }

    pub(super) fn restarts(inner: &Inner) -> u64 {
        inner.server.restarts()
    }

    pub(super) fn down(inner: &Inner) -> Option<String> {
        inner.server.why_down()
    }

    /// A server's tool with its arguments bound, ready to send.
    pub(in crate::host) struct ServerCall<'a> {
        server: &'a Arc<RemoteServer>,
        tool: &'a str,
        remote_name: &'a str,
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
            let ServerCall { server, tool, remote_name, arguments, limits } = self;
            server.call(tool, remote_name, arguments, limits.time, limits.result_bytes)
        }

        /// Sends the call and awaits the answer; dropping the future cancels the call
        /// at the server.
        pub(in crate::host) async fn run_async(self) -> Result<Returned, ToolError> {
            let ServerCall { server, tool, remote_name, arguments, limits } = self;
            server.call_async(tool, remote_name, arguments, limits.time, limits.result_bytes).await
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
        let Some(remote) = served.inner.tools.get(index) else {
            let reason = "no longer has this tool".to_string();
            let server = served.inner.server.name().to_string();
            return Err(ToolError::ServerFailed { tool: tool.to_string(), server, reason, retry: false });
        };
        let arguments = bind_for_server(&remote.binder, &remote.spec, tool, arguments, repairs)?;
        let server = &served.inner.server;
        // The file's `timeout_ms` over the host's time limit; a caller's deadline may shorten it.
        let limits = Limits { time: server.time_limit(served.inner.limits.time), ..served.inner.limits };
        Ok(ServerCall { server, tool, remote_name: &remote.remote_name, arguments, limits })
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

    pub(super) fn down(inner: &Inner) -> Option<String> {
        match *inner {}
    }
}
