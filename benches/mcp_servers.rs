//! What the host adds to a call of an MCP server's tool:
//! `cargo bench -p toolhost-cli --bench mcp_servers`.
//!
//! The MCP project's `everything` server (installed by scripts/install-mcp-servers.sh)
//! runs twice over stdio: as a plugin of a host, called with `Host::call`, and under
//! rmcp's client alone, called directly. The difference is the host's share (name
//! resolution, binding to the schema, the hop to its connection's runtime, turning
//! the answer into a value); `mcp_server/bind/*` times the binding alone.

#![allow(missing_docs, reason = "criterion_group! writes a public function without a doc comment")]

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::json;
use toolhost::Host;
use toolhost::bind::SchemaBinder;

fn everything() -> PathBuf {
    let entry = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("target/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(entry.is_file(), "{} is missing: run scripts/install-mcp-servers.sh first", entry.display());
    entry
}

fn calls(c: &mut Criterion) {
    let plugins = tempfile::tempdir().expect("a folder");
    let file = format!("command = [\"node\", {:?}]\n", everything());
    std::fs::write(plugins.path().join("everything.mcp.toml"), file).expect("write");
    let host = Host::builder().plugin_dir(plugins.path()).no_cache().build().expect("the host loads");
    let arguments = json!({"a": 2, "b": 3});
    assert!(host.call("get-sum", &arguments).is_ok(), "{:?}", host.load_report());

    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let client = runtime.block_on(async {
        let mut command = tokio::process::Command::new("node");
        command.arg(everything());
        ().serve(TokioChildProcess::new(command).expect("node starts")).await.expect("a client connects")
    });
    let params =
        CallToolRequestParams::new("get-sum").with_arguments(arguments.as_object().expect("an object").clone());

    let mut group = c.benchmark_group("mcp_server");
    group.bench_function("client", |b| {
        b.iter(|| runtime.block_on(client.call_tool(params.clone())).expect("get-sum"));
    });
    group.bench_function("host", |b| b.iter(|| host.call("get-sum", &arguments).expect("get-sum")));
    group.bench_function("host/repaired", |b| {
        b.iter(|| host.call("GetSum", &json!({"A": "2", "b": 3})).expect("get-sum"));
    });
    let binder = SchemaBinder::new(host.tool("get-sum").expect("listed").parameters_schema());
    group.bench_function("bind/exact", |b| b.iter(|| binder.bind("get-sum", &arguments).expect("binds")));
    group.bench_function("bind/repaired", |b| {
        b.iter(|| binder.bind("get-sum", &json!({"A": "2", "b": 3})).expect("binds"));
    });
    group.finish();
    drop(runtime.block_on(client.cancel()));
}

criterion_group!(benches, calls);
criterion_main!(benches);
