//! MCP over streamable HTTP under load: `cargo bench -p toolhost-cli --bench http`.
//!
//! A `toolhost serve --http` process serves the `echo` tool of the `hostile` test
//! guest (build the guests first: `scripts/build-guests.sh`); stateless rmcp clients
//! call it. Criterion measures calls per second with 1, 16 and 64 clients at once;
//! then the latency of each call is recorded for the same client counts (p50, p99),
//! and the server's resident memory is read before and after 100,000 calls.

#![allow(missing_docs, reason = "criterion_group! writes a public function without a doc comment")]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;

/// The server process, on a port of its own.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start() -> Server {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let guest = root.join("target/test-guests/hostile.wasm");
        assert!(guest.is_file(), "{} is missing: run scripts/build-guests.sh first", guest.display());
        let plugins = tempfile::tempdir().expect("a folder").keep();
        std::fs::copy(&guest, plugins.join("hostile.wasm")).expect("copy");
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a port").port();
        let child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["serve", "--http", &format!("127.0.0.1:{port}"), "--plugins"])
            .arg(&plugins)
            .args(["--max-concurrent-requests", "128", "--max-concurrent-calls", "128"])
            .env("TOOLHOST_CACHE_DIR", root.join("target/bench-cache"))
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
    let mut clients = Vec::with_capacity(count);
    for _ in 0..count {
        let transport = StreamableHttpClientTransport::from_uri(url.to_string());
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

criterion_group!(benches, throughput);
criterion_main!(benches);
