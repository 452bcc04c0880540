//! `toolhost serve --http`: MCP over streamable HTTP, spoken to by rmcp's own client
//! (the stateless current revision and the session-based older ones) and by raw HTTP
//! for what a client library would not send: wrong tokens, foreign origins and hosts,
//! oversized and malformed bodies, idle connections, a shutdown mid-call.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

use crate::common;
use crate::process::Process;

/// A `toolhost serve --http` process on a port of its own.
pub(crate) struct Server {
    child: Process,
    /// Where it listens.
    pub(crate) port: u16,
    /// Where it serves metrics, when asked to (`--metrics-addr`).
    pub(crate) metrics_port: Option<u16>,
    /// The lines it wrote to stderr after its address (the first 10,000).
    said: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Starts a server over `plugins` with `options`, and waits until it listens.
    pub(crate) fn start(plugins: &Path, options: &[&str]) -> Server {
        Server::start_with_cache(plugins, options, &common::test_cache_dir())
    }

    fn start_with_cache(plugins: &Path, options: &[&str], cache: &Path) -> Server {
        Server::spawn(plugins, options, cache, &[])
    }

    /// [`Server::start`] with these environment variables set.
    pub(crate) fn start_with_env(plugins: &Path, options: &[&str], env: &[(&str, &str)]) -> Server {
        Server::spawn(plugins, options, &common::test_cache_dir(), env)
    }

    fn spawn(plugins: &Path, options: &[&str], cache: &Path, env: &[(&str, &str)]) -> Server {
        let mut child = Process::spawn(
            Command::new(env!("CARGO_BIN_EXE_toolhost"))
                .args(["serve", "--http", "127.0.0.1:0", "--plugins"])
                .arg(plugins)
                .args(options)
                .env("TOOLHOST_CACHE_DIR", cache)
                .env_remove("TOOLHOST_TOKEN")
                .envs(env.iter().copied())
                .stdout(Stdio::null())
                .stderr(Stdio::piped()),
        )
        .expect("toolhost serve starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut read_port = || {
            let mut line = String::new();
            stderr.read_line(&mut line).expect("the server says where it listens");
            line.split("http://127.0.0.1:")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .and_then(|port| port.parse().ok())
                .unwrap_or_else(|| panic!("no address in {line:?}"))
        };
        let port = read_port();
        let metrics_port = options.contains(&"--metrics-addr").then(&mut read_port);
        // Keep reading what it says, so that it never blocks on a full pipe.
        let said = Arc::new(Mutex::new(Vec::new()));
        let kept = said.clone();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                let mut kept = kept.lock().expect("lock");
                if kept.len() < 10_000 {
                    kept.push(line);
                }
            }
        });
        Server { child, port, metrics_port, said }
    }

    /// How many lines the server wrote to stderr holding `text`.
    pub(crate) fn said(&self, text: &str) -> usize {
        self.said.lock().expect("lock").iter().filter(|line| line.contains(text)).count()
    }

    /// Waits (a bounded while) until `/health` says the plugins are loaded.
    pub(crate) fn wait_until_ready(&self) {
        for _ in 0..600 {
            if raw(self.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == 200 {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the server was not ready within 30 s");
    }

    /// The MCP endpoint.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Sends SIGTERM, as an orchestrator stopping a replica would.
    pub(crate) fn terminate(&self) {
        self.child.signal(rustix::process::Signal::TERM);
    }

    /// Kills it at once (SIGKILL), as a crash would.
    pub(crate) fn kill(&mut self) {
        self.child.kill();
    }

    /// Waits (a bounded while) for the process to exit, and returns its exit code.
    pub(crate) fn exit_code(&mut self) -> Option<i32> {
        for _ in 0..400 {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the server did not exit within 20 s");
    }
}

/// An HTTP response, read whole.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
}

/// Sends `request` (a whole HTTP/1.1 request) on a fresh connection and reads the answer.
pub(crate) fn raw(port: u16, request: &str) -> Response {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    let request = request.replacen("\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1);
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Response { status, head: head.to_lowercase(), body: body.to_string() }
}

/// A server over the hostile test guest alone, with `options`, ready; and its
/// plugin folder, to keep while it serves.
fn hostile_server(options: &[&str]) -> (tempfile::TempDir, Server) {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let server = Server::start(folder.path(), options);
    server.wait_until_ready();
    (folder, server)
}

/// A POST of `body` to `/mcp`, with these extra header lines.
pub(crate) fn post(port: u16, headers: &str, body: &str) -> Response {
    post_to(port, "/mcp", headers, body)
}

/// [`post`] to `path`.
pub(crate) fn post_to(port: u16, path: &str, headers: &str, body: &str) -> Response {
    raw(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n{headers}\r\n{body}",
            body.len()
        ),
    )
}

/// The stateless revision's headers and `_meta` for a `tools/list`.
fn stateless_list() -> (&'static str, String) {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    ("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n", body.to_string())
}

/// A client that asks for a given protocol revision in its `initialize`.
#[derive(Clone)]
pub(crate) struct Revision(pub(crate) ProtocolVersion);

impl ClientHandler for Revision {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = self.0.clone();
        info
    }
}

/// An rmcp client over HTTP: stateless (the current revision) or in a session of
/// `revision`.
pub(crate) async fn client(
    url: &str,
    token: Option<&str>,
    revision: Option<ProtocolVersion>,
) -> RunningService<RoleClient, Revision> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(token) = token {
        config = config.auth_header(token.to_string());
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    let (handler, lifecycle) = match revision {
        Some(revision) => (Revision(revision), ClientLifecycleMode::Initialize),
        None => (
            Revision(ProtocolVersion::V_2026_07_28),
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
        ),
    };
    handler.serve_with_lifecycle(transport, lifecycle).await.expect("the client connects")
}

/// A `tools/call` of `name` with `arguments`.
pub(crate) fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    CallToolRequestParams::new(name.to_string()).with_arguments(arguments)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

#[test]
fn rmcp_clients_list_and_call_tools_stateless_and_in_sessions_with_a_token() {
    let folder = tempfile::tempdir().expect("temporary folder");
    let token_file = folder.path().join("token");
    std::fs::write(&token_file, "s3cret-token\n").expect("write the token");
    let options = ["--token-file", token_file.to_str().expect("UTF-8")];
    let logs = [("TOOLHOST_LOG", "toolhost::mcp::http::direct=debug")];
    let server = Server::start_with_env(&common::plugins_dir(), &options, &logs);
    server.wait_until_ready();
    let revisions = [None, Some(ProtocolVersion::V_2025_06_18), Some(ProtocolVersion::V_2025_11_25)];
    runtime().block_on(async {
        for revision in revisions {
            let client = client(&server.url(), Some("s3cret-token"), revision.clone()).await;
            let tools = client.list_all_tools().await.expect("tools/list");
            assert_eq!(tools.len(), 37, "{revision:?}");
            let evaluate = tools.iter().find(|t| t.name == "evaluate").expect("evaluate is listed");
            let schema =
                serde_json::to_value(evaluate.output_schema.as_deref().expect("an output schema")).expect("JSON");
            let result = client.call_tool(call("Evaluate", json!({"expression": "6 * 7"}))).await.expect("tools/call");
            assert_eq!(result.is_error, Some(false), "{revision:?}");
            let structured = result.structured_content.expect("structured content");
            assert_eq!(structured, json!({"result": 42.0}));
            assert!(jsonschema::draft202012::is_valid(&schema, &structured));
            let refused = client.call_tool(call("factorial", json!({"n": "five"}))).await.expect("tools/call");
            assert_eq!(refused.is_error, Some(true));
            let text = serde_json::to_value(&refused.content).expect("JSON")[0]["text"].clone();
            assert_eq!(
                text,
                "Invalid arguments for 'factorial': 'n' must be an integer between 0 and 255, got \"five\"."
            );
            client.cancel().await.expect("the client closes");
        }
    });
    // rmcp's client's stateless calls (carrying a progress token) took the direct path.
    assert_eq!(server.said(ANSWERED_DIRECTLY), 2);
}

#[test]
fn every_call_is_one_audit_line_stateless_and_in_a_session() {
    let folder = tempfile::tempdir().expect("temporary folder");
    let (token, log) = (folder.path().join("token"), folder.path().join("audit.log"));
    std::fs::write(&token, "s3cret-token\n").expect("write the token");
    let options = ["--token-file", token.to_str().expect("UTF-8"), "--audit-log", log.to_str().expect("UTF-8")];
    let server = Server::start(&common::plugins_dir(), &options);
    server.wait_until_ready();
    runtime().block_on(async {
        for revision in [None, Some(ProtocolVersion::V_2025_06_18)] {
            let client = client(&server.url(), Some("s3cret-token"), revision).await;
            for (name, arguments) in [
                ("Evaluate", json!({"expression": "6 * 7"})),
                ("factorial", json!({"n": 30})),
                ("web_search", json!({"query": "x"})),
            ] {
                client.call_tool(call(name, arguments)).await.expect("tools/call");
            }
            client.cancel().await.expect("the client closes");
        }
    });
    let text = std::fs::read_to_string(&log).expect("the audit log");
    let lines: Vec<Value> = text.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect();
    assert_eq!(lines.len(), 6, "{text}");
    for (i, line) in lines.iter().enumerate() {
        let expected = [
            json!({"name": "Evaluate", "tool": "evaluate", "repaired_from": "Evaluate", "outcome": "ok", "bytes_out": 4}),
            json!({"name": "factorial", "tool": "factorial", "repaired_from": null, "outcome": "tool_failed"}),
            json!({"name": "web_search", "tool": null, "repaired_from": null, "outcome": "unknown_tool"}),
        ];
        for (field, value) in expected[i % 3].as_object().expect("fields") {
            assert_eq!(&line[field], value, "{field} of line {i}: {line}");
        }
        assert_eq!(line["caller"], "token");
        assert!(line["time"].as_str().is_some_and(|t| t.ends_with('Z') && t.len() == 24), "{line}");
        assert!(line["duration_ms"].as_f64().is_some_and(|ms| ms >= 0.0), "{line}");
        assert!(line["bytes_in"].as_u64().is_some_and(|n| n > 0), "{line}");
        assert!(line.get("arguments").is_none(), "arguments only when asked for: {line}");
    }
    let audit = std::fs::metadata(&log).expect("the log");
    assert_eq!(std::os::unix::fs::PermissionsExt::mode(&audit.permissions()) & 0o777, 0o600);
}

#[test]
fn calls_beyond_a_callers_rate_limit_are_answered_with_the_limit_and_when_to_retry() {
    let server = Server::start(&common::plugins_dir(), &["--calls-per-minute", "2"]);
    server.wait_until_ready();
    runtime().block_on(async {
        let client = client(&server.url(), None, None).await;
        // A drifted name counts as its tool's.
        for name in ["Evaluate", "evaluate"] {
            let allowed = client.call_tool(call(name, json!({"expression": "1+1"}))).await.expect("tools/call");
            assert_eq!(allowed.is_error, Some(false));
        }
        let refused = client.call_tool(call("evaluate", json!({"expression": "1+1"}))).await.expect("tools/call");
        assert_eq!(refused.is_error, Some(true));
        let text = serde_json::to_value(&refused.content).expect("JSON")[0]["text"].as_str().unwrap_or("").to_string();
        assert!(text.starts_with("Tool 'evaluate' is rate-limited for you: 2 calls a minute; retry in "), "{text}");
        let seconds: f64 =
            text.trim_end_matches(" s.").rsplit(' ').next().and_then(|s| s.parse().ok()).expect("seconds");
        assert!((1.0..=30.0).contains(&seconds), "{text}");
        let other = client.call_tool(call("gcd", json!({"a": 12, "b": 18}))).await.expect("tools/call");
        assert_eq!(other.is_error, Some(false), "each tool has its own limit");
        client.cancel().await.expect("the client closes");
    });
}

#[test]
fn requests_beyond_a_callers_rate_limit_get_429_with_retry_after() {
    let server = Server::start(&common::plugins_dir(), &["--requests-per-minute", "3"]);
    server.wait_until_ready();
    let (headers, body) = stateless_list();
    for _ in 0..3 {
        assert_eq!(post(server.port, headers, &body).status, 200);
    }
    let refused = post(server.port, headers, &body);
    assert_eq!(refused.status, 429, "{}", refused.head);
    let retry_after = refused.head.lines().find_map(|line| line.strip_prefix("retry-after: ")).expect("Retry-After");
    assert!(retry_after.trim().parse::<u32>().is_ok_and(|s| (1..=21).contains(&s)), "{retry_after}");
    // Health is not an MCP request: never limited.
    assert_eq!(raw(server.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status, 200);
}

#[test]
fn without_the_token_or_with_a_wrong_one_a_request_gets_401_and_nothing_else() {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::write(folder.path().join("token"), "right").expect("write the token");
    let token = folder.path().join("token");
    let server = Server::start(&common::plugins_dir(), &["--token-file", token.to_str().expect("UTF-8")]);
    server.wait_until_ready();
    let (headers, body) = stateless_list();
    for authorization in
        ["", "Authorization: Bearer wrong\r\n", "Authorization: right\r\n", "Authorization: Bearer \r\n"]
    {
        let response = post(server.port, &format!("{headers}{authorization}"), &body);
        assert_eq!(response.status, 401, "{authorization:?}: {}", response.head);
        assert!(response.head.contains("www-authenticate: bearer"), "{}", response.head);
        assert!(!response.body.contains("evaluate") && !response.body.contains("tools"), "{}", response.body);
    }
    let response = post(server.port, &format!("{headers}Authorization: Bearer right\r\n"), &body);
    assert_eq!(response.status, 200, "{}", response.body);
    assert!(response.body.contains("\"name\":\"evaluate\""));
    // Health is for load balancers: no token needed, nothing told.
    assert_eq!(raw(server.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").body, r#"{"status":"ready"}"#);
}

#[test]
fn a_config_file_sets_what_the_flags_leave_unset_and_the_flags_win() {
    let folder = tempfile::tempdir().expect("temporary folder");
    let config = folder.path().join("toolhost.toml");
    // The flags give the address and the plugin folder; the file the rest.
    let text = "plugins = \"nowhere\"\n[http]\naddress = \"127.0.0.1:1\"\ntoken = \"${CONFIG_TEST_TOKEN}\"\n\
                max_body_bytes = 2000\n";
    std::fs::write(&config, text).expect("write the config");
    let options = ["--config", config.to_str().expect("UTF-8")];
    let server = Server::start_with_env(&common::plugins_dir(), &options, &[("CONFIG_TEST_TOKEN", "from-config")]);
    server.wait_until_ready();
    let (headers, body) = stateless_list();
    assert_eq!(post(server.port, headers, &body).status, 401);
    let response = post(server.port, &format!("{headers}Authorization: Bearer from-config\r\n"), &body);
    assert_eq!(response.status, 200, "{}", response.body);
    assert!(response.body.contains("\"name\":\"evaluate\""), "the plugins are the flag's");
    let padded = body.replacen('{', &format!("{{\"pad\": \"{}\", ", "x".repeat(2_000)), 1);
    let too_large = post(server.port, &format!("{headers}Authorization: Bearer from-config\r\n"), &padded);
    assert_eq!(too_large.status, 413, "{}", too_large.head);
}

#[test]
fn serving_beyond_loopback_without_a_token_is_refused_at_start() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["serve", "--http", "0.0.0.0:0", "--plugins"])
        .arg(common::plugins_dir())
        .env_remove("TOOLHOST_TOKEN")
        .output()
        .expect("toolhost runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: MCP server: refusing to serve 0.0.0.0:0 without a token: anyone who can reach it could run the tools. Set one with --token-file FILE or TOOLHOST_TOKEN"),
        "{stderr}"
    );
    let empty = tempfile::NamedTempFile::new().expect("a file");
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["serve", "--http", "127.0.0.1:0", "--token-file"])
        .arg(empty.path())
        .output()
        .expect("toolhost runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("the token is empty"));
}

#[test]
fn foreign_origins_and_host_names_are_refused_unless_allowed() {
    let server = Server::start(
        &common::plugins_dir(),
        &["--allow-origin", "https://app.example", "--allow-host", "tools.example"],
    );
    server.wait_until_ready();
    let (headers, body) = stateless_list();
    let refused = post(server.port, &format!("{headers}Origin: https://evil.example\r\n"), &body);
    assert_eq!(refused.status, 403, "{}", refused.head);
    for origin in ["http://localhost:3000", "https://app.example"] {
        let allowed = post(server.port, &format!("{headers}Origin: {origin}\r\n"), &body);
        assert_eq!(allowed.status, 200, "{origin}: {}", allowed.body);
    }
    let request = |host: &str| {
        raw(
            server.port,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n{headers}\r\n{body}",
                body.len()
            ),
        )
    };
    assert_eq!(request("rebound.example").status, 403, "a DNS-rebinding Host was let in");
    assert_eq!(request("tools.example").status, 200);
}

#[test]
fn oversized_malformed_batched_and_metadata_less_requests_get_clear_errors_and_the_server_serves_on() {
    let server = Server::start(&common::plugins_dir(), &["--max-body-bytes", "2048"]);
    server.wait_until_ready();
    let (headers, body) = stateless_list();
    let big = post(server.port, headers, &format!("{{\"padding\": \"{}\"}}", "x".repeat(4096)));
    assert_eq!(big.status, 413, "{}", big.head);
    // A body announced too large is refused before it is read (none is sent here).
    let mut announced = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    announced.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                Accept: application/json, text/event-stream\r\nContent-Length: 100000000\r\n\r\n";
    announced.write_all(head.as_bytes()).expect("send");
    let mut status_line = String::new();
    BufReader::new(announced).read_line(&mut status_line).expect("an answer before the body");
    assert!(status_line.starts_with("HTTP/1.1 413"), "{status_line}");
    // JSON-RPC's own errors, with HTTP 400: not JSON, a batch, a call's wrong-typed params.
    let error = |answer: Response| -> Value {
        assert_eq!(answer.status, 400, "{} {}", answer.head, answer.body);
        serde_json::from_str::<Value>(&answer.body).unwrap_or_else(|_| panic!("{}", answer.body))["error"].clone()
    };
    let malformed = error(post(server.port, headers, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\":"));
    assert_eq!(malformed["code"], -32700, "{malformed}");
    let batch = error(post(server.port, headers, &format!("[{body}, {body}]")));
    assert_eq!(batch["code"], -32600, "{batch}");
    assert!(batch["message"].as_str().unwrap_or("").contains("batch"), "{batch}");
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    for (params, wrong) in
        [(json!({"name": 5, "arguments": {}}), "`name`"), (json!({"name": "echo", "arguments": "x"}), "`arguments`")]
    {
        let mut params = params;
        params["_meta"] = meta.clone();
        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}).to_string();
        let answer = post(
            server.port,
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n",
            &call,
        );
        let reply: Value =
            serde_json::from_str(&answer.body).unwrap_or_else(|_| panic!("{} {}", answer.head, answer.body));
        assert_eq!(reply["id"], 3, "{reply}");
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert!(reply["error"]["message"].as_str().unwrap_or("").contains(wrong), "{reply}");
    }
    let bare = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}).to_string();
    let no_meta = post(server.port, headers, &bare);
    let answer: Value = serde_json::from_str(&no_meta.body).unwrap_or_else(|_| panic!("{}", no_meta.body));
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap_or("").contains("_meta"), "{answer}");
    assert_eq!(post(server.port, headers, &body).status, 200);
}

#[test]
fn a_client_that_leaves_mid_call_or_idles_does_not_stop_the_server_serving_others() {
    let (_folder, server) = hostile_server(&[]);
    // A call to a tool that sleeps 2 s, abandoned after 100 ms.
    abandon_sleep(server.port, 2000, Duration::from_millis(100));
    // Two thousand connections that send nothing at all (this process may hold them).
    let mut limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    limit.current = limit.maximum;
    let _ = rustix::process::setrlimit(rustix::process::Resource::Nofile, limit);
    let idle: Vec<TcpStream> =
        (0..2000).map(|_| TcpStream::connect(("127.0.0.1", server.port)).expect("connect")).collect();
    runtime().block_on(async {
        let client = client(&server.url(), None, None).await;
        let echo = client.call_tool(call("echo", json!({"text": "still here"}))).await.expect("tools/call");
        assert_eq!(echo.structured_content, Some(json!({"result": "still here"})));
        client.cancel().await.expect("the client closes");
    });
    drop(idle);
}

/// Sends a plain stateless call of the hostile guest's `sleep` for `ms` to the
/// server on `port`, and leaves (closes the connection) after `after`.
fn abandon_sleep(port: u16, ms: u64, after: Duration) {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let sleep = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "sleep", "arguments": {"ms": ms}, "_meta": meta}})
    .to_string();
    let mut left = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, \
         text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: sleep\r\n\
         Content-Length: {}\r\n\r\n{sleep}",
        sleep.len()
    );
    left.write_all(request.as_bytes()).expect("send");
    std::thread::sleep(after);
}

/// The line the server logs (at debug) for a call it answers without rmcp's service.
const ANSWERED_DIRECTLY: &str = "answered without rmcp's per-request service";

#[test]
fn a_plain_stateless_call_is_answered_without_rmcps_service_as_rmcp_answers_it() {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let audit = folder.path().join("audit.log");
    let options = ["--audit-log", audit.to_str().expect("UTF-8")];
    let server =
        Server::start_with_env(folder.path(), &options, &[("TOOLHOST_LOG", "toolhost::mcp::http::direct=debug")]);
    server.wait_until_ready();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    // The same call, plain, and with a `_meta` key (a log level) that leaves it to rmcp.
    let answers = |name: &str, arguments: Value| -> [(u16, Value); 2] {
        let headers = format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {name}\r\n");
        let mut to_rmcp = meta.clone();
        to_rmcp["io.modelcontextprotocol/logLevel"] = json!("info");
        [meta.clone(), to_rmcp].map(|meta| {
            let params = json!({"name": name, "arguments": arguments, "_meta": meta});
            let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}).to_string();
            let answer = post(server.port, &headers, &body);
            assert!(answer.head.contains("content-type: application/json"), "{}", answer.head);
            (answer.status, serde_json::from_str(&answer.body).unwrap_or_else(|_| panic!("{}", answer.body)))
        })
    };
    let calls = [
        ("echo", json!({"text": "plain"})),
        ("Echo", json!({"text": "a drifted name"})),
        ("echo", json!({"text": 5})),
        ("no_such_tool", json!({})),
    ];
    for (name, arguments) in &calls {
        let [direct, through_rmcp] = answers(name, arguments.clone());
        assert_eq!(direct, through_rmcp, "{name} {arguments}");
        assert_eq!(direct.0, 200);
    }
    assert_eq!(server.said(ANSWERED_DIRECTLY), calls.len(), "each plain call, and only those, answered directly");
    let [(_, echoed), _] = answers("echo", json!({"text": "plain"}));
    assert_eq!(echoed["result"]["structuredContent"], json!({"result": "plain"}), "{echoed}");
    // A plain call whose client leaves stops (the tool would sleep 3 s).
    abandon_sleep(server.port, 3000, Duration::from_millis(200));
    let slept = (0..100).find_map(|_| {
        std::thread::sleep(Duration::from_millis(50));
        let text = std::fs::read_to_string(&audit).unwrap_or_default();
        text.lines().map(|line| serde_json::from_str::<Value>(line).expect("JSON")).find(|line| line["name"] == "sleep")
    });
    let slept = slept.expect("the abandoned call's audit line, within 5 s");
    assert_eq!(slept["outcome"], "cancelled", "{slept}");
    assert!(slept["duration_ms"].as_f64().unwrap_or(f64::MAX) < 2500.0, "{slept}");
}

/// A connection to the server on `port` from `source`, an address of loopback.
async fn connect_from(source: [u8; 4], port: u16) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.bind((std::net::Ipv4Addr::from(source), 0).into()).expect("bind");
    socket.connect(([127, 0, 0, 1], port).into()).await.expect("connect")
}

/// Whether the server closed `stream` (it reads the end within 10 s; an open one
/// that is sent nothing reads nothing for 300 ms).
async fn closed(stream: &mut tokio::net::TcpStream, wait: Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let mut byte = [0; 1];
    matches!(tokio::time::timeout(wait, stream.read(&mut byte)).await, Ok(Ok(0) | Err(_)))
}

#[test]
fn idle_connections_make_way_for_new_ones_so_a_flood_locks_no_client_out() {
    let mut limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    limit.current = limit.maximum;
    let _ = rustix::process::setrlimit(rustix::process::Resource::Nofile, limit);
    // Idle connections are not cut off by time during the test.
    let options = ["--max-connections", "2000", "--max-connections-per-address", "500", "--io-timeout-ms", "120000"];
    let server = Server::start(&common::plugins_dir(), &options);
    server.wait_until_ready();
    let (headers, body) = stateless_list();
    runtime().block_on(async {
        // The cap: 2,000 connections, 500 (the most) from each of four addresses of
        // loopback; those of two send nothing, those of the others the start of a
        // request's headers, never ended.
        let mut idle = Vec::new();
        for source in 2..=5 {
            for _ in 0..500 {
                let mut stream = connect_from([127, 0, 0, source], server.port).await;
                if source >= 4 {
                    use tokio::io::AsyncWriteExt;
                    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-").await.expect("send");
                }
                idle.push(stream);
            }
        }
        // New connections from another address are served, each call on one of its
        // own: the first takes the place of the connection idle longest.
        for _ in 0..20 {
            let answer = tokio::task::spawn_blocking({
                let (port, body) = (server.port, body.clone());
                move || post(port, headers, &body)
            });
            assert_eq!(answer.await.unwrap().status, 200);
        }
        assert!(closed(&mut idle[0], Duration::from_secs(10)).await, "the idlest connection is still open");
        // At its own limit, an address's new connection takes the place of its own
        // idlest, not another address's.
        let _newer = connect_from([127, 0, 0, 3], server.port).await;
        assert!(closed(&mut idle[500], Duration::from_secs(10)).await, "127.0.0.3's idlest is still open");
        // 127.0.0.2's newest: never the idlest, so still open.
        assert!(!closed(&mut idle[499], Duration::from_millis(300)).await);
    });
}

#[test]
fn a_callers_flood_waits_behind_its_own_requests_and_a_quiet_caller_is_served_next() {
    let (config_dir, plugins) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::copy(common::test_guest("hostile"), plugins.path().join("hostile.wasm")).expect("copy");
    let config = config_dir.path().join("toolhost.toml");
    std::fs::write(&config, "[auth.tokens]\nflood = \"${FAIR_TEST_FLOOD}\"\nquiet = \"${FAIR_TEST_QUIET}\"\n").unwrap();
    let options = ["--config", config.to_str().unwrap(), "--max-concurrent-requests", "1"];
    let tokens = [("FAIR_TEST_FLOOD", "flood-s3cret"), ("FAIR_TEST_QUIET", "quiet-s3cret")];
    let server = Server::start_with_env(plugins.path(), &options, &tokens);
    server.wait_until_ready();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let sleep = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "sleep", "arguments": {"ms": 100}, "_meta": meta}})
    .to_string();
    let headers = |token: &str, method: &str| {
        format!(
            "Authorization: Bearer {token}\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: sleep\r\n"
        )
    };
    // Twelve calls of 100 ms at once from one caller, handled one at a time.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let flood: Vec<_> = (0..12)
        .map(|_| {
            let (port, done, sleep, headers) =
                (server.port, done.clone(), sleep.clone(), headers("flood-s3cret", "tools/call"));
            std::thread::spawn(move || {
                assert_eq!(post(port, &headers, &sleep).status, 200);
                done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(250));
    // The other caller's request is handled after the one running, not after the flood.
    let (list_headers, list) = stateless_list();
    let before = done.load(std::sync::atomic::Ordering::SeqCst);
    let quiet = post(server.port, &format!("Authorization: Bearer quiet-s3cret\r\n{list_headers}"), &list);
    let after = done.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(quiet.status, 200, "{}", quiet.body);
    assert!(after < 12, "the flood was over before the quiet caller's turn: the test shows nothing");
    assert!(after - before <= 2, "{} of the flood's calls were handled before the quiet caller's", after - before);
    for call in flood {
        call.join().expect("every call of the flood is answered");
    }
}

#[test]
fn beyond_its_queue_a_request_gets_503_with_retry_after() {
    let (_folder, server) = hostile_server(&["--max-concurrent-requests", "1", "--max-queued-requests", "0"]);
    let slow = std::thread::spawn({
        let url = server.url();
        move || {
            runtime().block_on(async {
                let client = client(&url, None, None).await;
                let slept = client.call_tool(call("sleep", json!({"ms": 1500}))).await.expect("tools/call");
                assert_eq!(slept.structured_content, Some(json!({"result": 1500})));
            })
        }
    });
    std::thread::sleep(Duration::from_millis(600));
    let (headers, body) = stateless_list();
    let busy = post(server.port, headers, &body);
    assert_eq!(busy.status, 503, "{}", busy.body);
    assert!(busy.head.contains("retry-after: 1"), "{}", busy.head);
    slow.join().expect("the slow call");
    assert_eq!(post(server.port, headers, &body).status, 200);
}

#[test]
fn health_says_503_until_the_plugins_have_loaded() {
    let folder = tempfile::tempdir().expect("temporary folder");
    for name in ["calculator", "dates", "json-query", "text", "units"] {
        let file = format!("{name}.wasm");
        std::fs::copy(common::plugins_dir().join(&file), folder.path().join(&file)).expect("copy");
    }
    // An empty cache: loading compiles every component, which takes a while.
    let cache = tempfile::tempdir().expect("temporary folder");
    let server = Server::start_with_cache(folder.path(), &[], cache.path());
    let first = raw(server.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert_eq!((first.status, first.body.as_str()), (503, r#"{"status":"loading"}"#));
    let (headers, body) = stateless_list();
    let early = post(server.port, headers, &body);
    assert!(early.status == 503 && early.head.contains("retry-after: 5"), "{} {}", early.status, early.head);
    server.wait_until_ready();
    assert_eq!(post(server.port, headers, &body).status, 200);
}

#[test]
fn sigterm_finishes_the_calls_in_flight_then_stops() {
    let (_folder, mut server) = hostile_server(&[]);
    let url = server.url();
    let in_flight = std::thread::spawn(move || {
        runtime().block_on(async {
            let client = client(&url, None, None).await;
            client.call_tool(call("sleep", json!({"ms": 1000}))).await.expect("the call in flight is answered")
        })
    });
    std::thread::sleep(Duration::from_millis(400));
    server.terminate();
    let answered = in_flight.join().expect("the calling thread");
    assert_eq!(answered.structured_content, Some(json!({"result": 1000})));
    assert_eq!(server.exit_code(), Some(0));
    assert!(TcpStream::connect(("127.0.0.1", server.port)).is_err(), "the stopped server still accepts");
}

#[test]
fn a_client_that_sends_slowly_is_cut_off() {
    let server = Server::start(&common::plugins_dir(), &["--io-timeout-ms", "500"]);
    server.wait_until_ready();
    let cut_off = |request: &str| {
        let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        stream.write_all(request.as_bytes()).expect("send");
        let started = std::time::Instant::now();
        let mut answer = Vec::new();
        let read = stream.read_to_end(&mut answer);
        assert!(read.is_ok(), "the server held the connection open for 10 s: {read:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
        String::from_utf8_lossy(&answer).into_owned()
    };
    // Headers that never end, then a body that never comes.
    assert_eq!(cut_off("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-"), "");
    let answer = cut_off(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
    );
    assert!(answer.starts_with("HTTP/1.1 408 Request Timeout"), "{answer}");
    let (headers, body) = stateless_list();
    assert_eq!(post(server.port, headers, &body).status, 200);
}

/// A session client that says when it is told the tool list changed.
#[derive(Clone)]
struct Watching(tokio::sync::mpsc::UnboundedSender<()>);

impl ClientHandler for Watching {
    fn get_info(&self) -> ClientConfig {
        Revision(ProtocolVersion::V_2025_11_25).get_info()
    }

    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

#[test]
fn a_watching_server_tells_session_clients_when_the_tool_list_changes() {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(common::plugins_dir().join("calculator.wasm"), folder.path().join("calculator.wasm")).expect("copy");
    let server = Server::start(folder.path(), &["--watch"]);
    server.wait_until_ready();
    runtime().block_on(async {
        let (told, mut changes) = tokio::sync::mpsc::unbounded_channel();
        let transport = StreamableHttpClientTransport::from_uri(server.url());
        let client =
            Watching(told).serve_with_lifecycle(transport, ClientLifecycleMode::Initialize).await.expect("a session");
        let names = |tools: Vec<rmcp::model::Tool>| tools.into_iter().map(|t| t.name.to_string()).collect::<Vec<_>>();
        assert!(!names(client.list_all_tools().await.expect("tools/list")).contains(&"convert".to_string()));
        std::fs::copy(common::plugins_dir().join("units.wasm"), folder.path().join(".units.part")).expect("copy");
        std::fs::rename(folder.path().join(".units.part"), folder.path().join("units.wasm")).expect("rename");
        tokio::time::timeout(Duration::from_secs(20), changes.recv()).await.expect("told within 20 s");
        assert!(names(client.list_all_tools().await.expect("tools/list")).contains(&"convert".to_string()));
        client.cancel().await.expect("the client closes");
    });
}

/// Opens a session of revision 2025-11-25 by raw HTTP; returns its id.
fn open_session(port: u16) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let opened = post(port, "", &initialize.to_string());
    assert_eq!(opened.status, 200, "{}", opened.body);
    let session = opened
        .head
        .lines()
        .find_map(|line| line.strip_prefix("mcp-session-id:"))
        .map(|id| id.trim().to_string())
        .expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let headers = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    assert_eq!(post(port, &headers, &initialized.to_string()).status, 202);
    session
}

/// The `id:` and `data:` fields of each event of an SSE body.
fn events(body: &str) -> Vec<(Option<String>, String)> {
    body.split("\n\n")
        .filter(|event| !event.trim().is_empty())
        .map(|event| {
            let field =
                |name: &str| event.lines().find_map(|line| line.strip_prefix(name)).map(|v| v.trim().to_string());
            (field("id:"), field("data:").unwrap_or_default())
        })
        .collect()
}

#[test]
fn a_long_calls_stream_is_closed_and_its_answer_waits_for_the_client_to_come_back() {
    let (_folder, server) = hostile_server(&["--poll-after-ms", "150", "--sse-retry-ms", "50"]);
    let session = open_session(server.port);
    let headers = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let sleep = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": 600}}});
    // The call's stream closes after 150 ms, with an event to resume after and no answer.
    let first = post(server.port, &headers, &sleep.to_string());
    assert!(first.head.contains("text/event-stream"), "{}", first.head);
    let sent = events(&first.body);
    assert!(first.body.contains("retry: 50"), "{}", first.body);
    assert!(!first.body.contains("\"result\""), "the answer came before the stream closed: {}", first.body);
    let last = sent.iter().rev().find_map(|(id, _)| id.clone()).expect("an event id to resume after");
    // The client comes back after the call has ended: the answer waited for it.
    std::thread::sleep(Duration::from_millis(700));
    let resumed = raw(
        server.port,
        &format!(
            "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{headers}Last-Event-ID: {last}\r\n\r\n"
        ),
    );
    assert_eq!(resumed.status, 200, "{}", resumed.body);
    let answers: Vec<Value> =
        events(&resumed.body).into_iter().filter_map(|(_, data)| serde_json::from_str(&data).ok()).collect();
    let answer = answers.iter().find(|message| message["id"] == 7).unwrap_or_else(|| panic!("{}", resumed.body));
    assert_eq!(answer["result"]["structuredContent"], json!({"result": 600}), "{answer}");
    // A client that resumes after the last event is sent nothing more: no answer twice.
    let answered_at = events(&resumed.body).into_iter().rev().find_map(|(id, _)| id).expect("the answer's id");
    let again = raw(
        server.port,
        &format!(
            "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{headers}Last-Event-ID: {answered_at}\r\n\r\n"
        ),
    );
    assert!(!again.body.contains("\"result\""), "{}", again.body);
}

#[test]
fn an_rmcp_client_whose_streams_are_closed_mid_call_gets_every_answer() {
    let (_folder, server) = hostile_server(&["--poll-after-ms", "100", "--sse-retry-ms", "50"]);
    runtime().block_on(async {
        let client = client(&server.url(), None, Some(ProtocolVersion::V_2025_11_25)).await;
        // Two calls at once, each stream closed and resumed more than once.
        let (long, short) = tokio::join!(
            client.call_tool(call("sleep", json!({"ms": 450}))),
            client.call_tool(call("sleep", json!({"ms": 250}))),
        );
        assert_eq!(long.expect("tools/call").structured_content, Some(json!({"result": 450})));
        assert_eq!(short.expect("tools/call").structured_content, Some(json!({"result": 250})));
        let echo = client.call_tool(call("echo", json!({"text": "quick"}))).await.expect("tools/call");
        assert_eq!(echo.structured_content, Some(json!({"result": "quick"})));
        client.cancel().await.expect("the client closes");
    });
}
