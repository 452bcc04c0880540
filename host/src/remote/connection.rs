//! One connection to an MCP server, made with rmcp's client: a child process spoken
//! to on stdin and stdout (its environment only what the file grants, and `PATH`; its
//! stderr to the log, bounded), or a streamable HTTP endpoint. The connection tells
//! its server when the tool list changed.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Weak;

use http::{HeaderName, HeaderValue};
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient};
use tokio::io::{AsyncRead, AsyncReadExt};

use super::RemoteServer;
use super::config::{ServerConfig, Transport};

/// A live connection.
pub(super) type Client = RunningService<RoleClient, Notices>;

/// How many lines of a server's stderr go to the log per connection, and how long
/// each may be; the rest is read and dropped.
const MAX_STDERR_LINES: usize = 1000;
const MAX_STDERR_LINE: usize = 2000;

/// What the host does with the notifications a server sends: a changed tool list
/// is listed again.
#[derive(Clone)]
pub(super) struct Notices {
    server: Weak<RemoteServer>,
}

impl ClientHandler for Notices {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(server) = self.server.upgrade() {
            // Not on the connection's own task, which must go on reading the answer.
            tokio::spawn(async move { server.refresh_tools().await });
        }
    }
}

/// Starts or reaches the server of `config`, and makes the MCP handshake (the
/// current revision where the server has it, else an older one).
pub(super) async fn connect(config: &ServerConfig, server: Weak<RemoteServer>) -> Result<Client, String> {
    let notices = Notices { server };
    let lifecycle =
        ClientLifecycleMode::Auto { preferred_versions: vec![ProtocolVersion::V_2026_07_28], legacy_version: None };
    match &config.transport {
        Transport::Stdio { program, args, env, cwd } => {
            let mut command = tokio::process::Command::new(program);
            command.args(args).current_dir(cwd).env_clear().envs(env.iter().map(|(k, v)| (k, v)));
            if let Some(path) = std::env::var_os("PATH") {
                command.env("PATH", path);
            }
            let (transport, stderr) = TokioChildProcess::builder(command)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("cannot start `{program}`: {e}"))?;
            if let Some(stderr) = stderr {
                tokio::spawn(log_stderr(config.name.clone(), stderr));
            }
            notices.serve_with_lifecycle(transport, lifecycle).await.map_err(|e| format!("no MCP handshake: {e}"))
        }
        Transport::Http { url, headers } => {
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let name = HeaderName::try_from(name.as_str()).map_err(|e| format!("header {name:?}: {e}"))?;
                let value = HeaderValue::try_from(value.as_str()).map_err(|e| format!("header {name}: {e}"))?;
                custom.insert(name, value);
            }
            let transport_config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            let transport = StreamableHttpClientTransport::from_config(transport_config);
            notices
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(|e| format!("no MCP handshake at {url}: {e}"))
        }
    }
}

/// Copies a server's stderr to the log, line by line, each line cut to a length
/// and the lines to a number (a line that never ends is read, not kept).
async fn log_stderr(server: String, mut stderr: impl AsyncRead + Unpin) {
    let (mut chunk, mut line, mut logged) = ([0u8; 4096], Vec::new(), 0);
    while let Ok(read) = stderr.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        for piece in chunk[..read].split_inclusive(|&b| b == b'\n') {
            let room = MAX_STDERR_LINE.saturating_sub(line.len());
            line.extend_from_slice(&piece[..piece.len().min(room)]);
            if piece.ends_with(b"\n") {
                logged += 1;
                log_line(&server, &line, logged);
                line.clear();
            }
        }
    }
}

fn log_line(server: &str, line: &[u8], number: usize) {
    if number <= MAX_STDERR_LINES {
        let line = String::from_utf8_lossy(line);
        tracing::info!(target: "toolhost::mcp_server", "{server}: {}", line.trim_end());
    } else if number == MAX_STDERR_LINES + 1 {
        tracing::info!(target: "toolhost::mcp_server", "{server}: more on stderr, not logged");
    }
}
