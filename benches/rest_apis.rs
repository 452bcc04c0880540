//! A call through a REST API plugin against the same call through an MCP server
//! plugin: `cargo bench -p toolhost-cli --bench rest_apis`.
//!
//! One Node process (benches/peers/sum-server.mjs, on the MCP project's TypeScript SDK
//! installed by scripts/install-mcp-servers.sh) serves `add(a, b)` both as a REST
//! operation described by OpenAPI and as an MCP tool over streamable HTTP, on one
//! loopback port. The host serves it twice, from `sum.openapi.toml` and from
//! `sum_mcp.mcp.toml` (its tool `sum`), and each is called with `Host::call`: the difference is what
//! the two ways cost, on the host's side (building a request from the bound
//! arguments against an MCP client's JSON-RPC) and on the server's (a plain handler
//! against the SDK's transport). `rest_api/openapi/repaired` adds the repairs of a
//! drifted name and a string for an integer; `rest_api/direct` is the floor, the same
//! `GET /add` written by hand on one kept-alive connection.

#![allow(missing_docs, reason = "criterion_group! writes a public function without a doc comment")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolhost::Host;

/// The Node server, killed when dropped.
struct SumServer(Child);

impl Drop for SumServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server() -> (SumServer, u16) {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let modules = root.join("target/mcp-servers/node_modules");
    assert!(modules.join("@modelcontextprotocol/sdk").is_dir(), "run scripts/install-mcp-servers.sh first");
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    let child = Command::new("node")
        .arg(root.join("benches/peers/sum-server.mjs"))
        .arg(&modules)
        .arg(port.to_string())
        .spawn()
        .expect("node starts");
    let server = SumServer(child);
    for _ in 0..200 {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (server, port);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the sum server did not listen on port {port}");
}

fn calls(c: &mut Criterion) {
    let (_server, port) = start_server();
    let plugins = tempfile::tempdir().expect("a folder");
    let rest = format!("document = \"http://127.0.0.1:{port}/openapi.json\"\n");
    let mcp = format!("url = \"http://127.0.0.1:{port}/mcp\"\n");
    std::fs::write(plugins.path().join("sum.openapi.toml"), rest).expect("write");
    std::fs::write(plugins.path().join("sum_mcp.mcp.toml"), mcp).expect("write");
    let host = Host::builder().plugin_dir(plugins.path()).no_cache().build().expect("the host loads");
    let arguments = json!({"a": 2, "b": 3});
    assert_eq!(host.call("add", &arguments).ok(), Some(json!({"sum": 5})), "{:?}", host.load_report());
    assert_eq!(host.call("sum", &arguments).ok(), Some(json!({"sum": 5})), "{:?}", host.load_report());

    let mut group = c.benchmark_group("rest_api");
    group.bench_function("openapi", |b| b.iter(|| host.call("add", &arguments).expect("add")));
    group.bench_function("mcp_server", |b| b.iter(|| host.call("sum", &arguments).expect("add")));
    group.bench_function("openapi/repaired", |b| {
        b.iter(|| host.call("Add", &json!({"A": "2", "b": 3})).expect("add"));
    });
    let mut connection = BufReader::new(TcpStream::connect(("127.0.0.1", port)).expect("a connection"));
    group.bench_function("direct", |b| b.iter(|| direct_get(&mut connection, port)));
    group.finish();
}

/// `GET /add?a=2&b=3` on a kept-alive connection, its answer read to the end.
fn direct_get(connection: &mut BufReader<TcpStream>, port: u16) -> Vec<u8> {
    let request = format!("GET /add?a=2&b=3 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n\r\n");
    connection.get_mut().write_all(request.as_bytes()).expect("sent");
    let mut length = 0;
    loop {
        let mut line = String::new();
        connection.read_line(&mut line).expect("a header line");
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().expect("a length");
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    connection.read_exact(&mut body).expect("the body");
    assert_eq!(body, br#"{"sum":5}"#);
    body
}

criterion_group!(benches, calls);
criterion_main!(benches);
