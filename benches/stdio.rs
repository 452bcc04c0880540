//! MCP over stdio against its floor: `cargo bench -p toolhost-cli --bench stdio`.
//!
//! `stdio/toolhost` calls a trivial tool (the `hostile` test guest's `echo`) of
//! `toolhost serve` back to back; `stdio/floor` sends the same JSON-RPC lines over the
//! same pipes to a minimal Rust server (this bench run again as `TOOLHOST_FLOOR=1`):
//! it parses each line and writes the answer toolhost would, with no host behind it.
//! Each prints the server's CPU time per call over 5,000 calls, the figure issue 32
//! compares (its target: the floor plus the library's call).

#![allow(missing_docs, reason = "criterion_group! writes a public function without a doc comment")]

mod common;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::Command;

use common::Served;
use criterion::{Criterion, criterion_group};
use serde_json::{Value, json};

/// Calls of each server over which its CPU time per call is printed.
const CALLS: u32 = 5_000;

fn stdio(c: &mut Criterion) {
    let guests = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("target/test-guests");
    assert!(guests.join("hostile.wasm").is_file(), "run scripts/build-guests.sh first");
    let plugins = tempfile::tempdir().expect("a folder");
    std::fs::copy(guests.join("hostile.wasm"), plugins.path().join("hostile.wasm")).expect("copy");
    let cache = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("target/bench-cache");
    let toolhost =
        Served::toolhost(&[("TOOLHOST_PLUGINS", &plugins.path().to_path_buf()), ("TOOLHOST_CACHE_DIR", &cache)]);
    let mut floor = Command::new(std::env::current_exe().expect("this bench"));
    floor.env("TOOLHOST_FLOOR", "1");
    let floor = Served::start(floor);

    // The library's share: the same call in this process, CPU of all its threads
    // (the preparing thread's instances included), as the servers' are counted.
    let host = toolhost::Host::builder()
        .component_file(guests.join("hostile.wasm"))
        .cache_dir(&cache)
        .build()
        .expect("the guest loads");
    let before = common::cpu_time(std::process::id());
    for _ in 0..CALLS {
        host.call("echo", &json!({"text": "hi"})).expect("echo");
    }
    let per_call = (common::cpu_time(std::process::id()) - before) / CALLS;
    println!("stdio/library: {} µs of CPU a call of Host::call over {CALLS} calls", per_call.as_micros());
    drop(host);

    let call = json!({"name": "echo", "arguments": {"text": "hi"}});
    let mut group = c.benchmark_group("stdio");
    for (label, mut server) in [("floor", floor), ("toolhost", toolhost)] {
        let answer = server.ask("tools/call", call.clone());
        assert_eq!(answer["result"]["structuredContent"]["result"], "hi", "{answer}");
        let before = server.cpu_time();
        for _ in 0..CALLS {
            server.ask("tools/call", call.clone());
        }
        let per_call = (server.cpu_time() - before) / CALLS;
        println!("stdio/{label}: {} µs of server CPU a call over {CALLS} calls", per_call.as_micros());
        group.bench_function(label, |b| b.iter(|| server.ask("tools/call", call.clone())));
    }
    group.finish();
}

/// The floor: reads JSON-RPC lines on stdin and answers each request as toolhost
/// answers `echo` (the text back, as content and as structured content).
fn floor_server() {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let Ok(line) = line else { return };
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = message.get("id") else { continue };
        let result = match message["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "floor", "version": "1"},
            }),
            _ => {
                let text = &message["params"]["arguments"]["text"];
                json!({
                    "content": [{"type": "text", "text": text}],
                    "structuredContent": {"result": text},
                    "isError": false,
                })
            }
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if writeln!(stdout, "{answer}").and_then(|()| stdout.flush()).is_err() {
            return;
        }
    }
}

criterion_group!(benches, stdio);

fn main() {
    if std::env::var_os("TOOLHOST_FLOOR").is_some() {
        return floor_server();
    }
    benches();
    criterion::Criterion::default().configure_from_args().final_summary();
}
