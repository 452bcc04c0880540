//! The MCP stdio face fed arbitrary frames after a proper handshake: JSON-RPC lines,
//! truncated, malformed, huge or not JSON at all. The server must not panic or hang,
//! must answer every well-formed request exactly once, and must still answer a ping
//! sent after them all.

#![no_main]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolhost::{Host, Limits};

/// The id of the last request, one the frames are most unlikely to use.
const FINAL: &str = "toolhost-fuzz-final-ping";

fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        let guest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/test-guests/hostile.wasm");
        assert!(guest.is_file(), "{} is missing: run scripts/build-guests.sh first", guest.display());
        Host::builder()
            .component_file(guest)
            .cache_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/test-cache"))
            .limits(limits())
            .build()
            .expect("the hostile test guest loads")
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
    })
}

/// The ids of the well-formed requests among `frames` (objects with `"jsonrpc": "2.0"`,
/// a string `method` and an `id` MCP allows: a string or an integer), less those a
/// frame cancels.
fn expected_answers(frames: &[&[u8]]) -> BTreeMap<String, usize> {
    let mut expected = BTreeMap::new();
    let mut cancelled = Vec::new();
    for frame in frames {
        let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(as_read(frame)) else { continue };
        if message.get("jsonrpc") != Some(&json!("2.0")) || !message.get("method").is_some_and(Value::is_string) {
            continue;
        }
        match message.get("id") {
            Some(id @ Value::String(_)) => *expected.entry(key(id)).or_default() += 1,
            Some(id @ Value::Number(n)) if n.is_i64() => *expected.entry(key(id)).or_default() += 1,
            _ if message["method"] == "notifications/cancelled" => {
                cancelled.extend(message.get("params").and_then(|p| p.get("requestId")).map(key));
            }
            _ => {}
        }
    }
    for id in cancelled {
        expected.remove(&id);
    }
    expected
}

/// A frame as the server reads it: without a `\r` before its newline or a
/// byte-order mark before its text.
fn as_read(frame: &[u8]) -> &[u8] {
    let frame = frame.strip_suffix(b"\r").unwrap_or(frame);
    frame.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(frame)
}

/// An id as a key: numbers by value, so `-0`, `0` and `0.0` are one id (as the server
/// reads them).
fn key(id: &Value) -> String {
    match id.as_f64() {
        Some(n) if n.fract() == 0.0 && n.abs() < 9e15 => format!("{}", n as i64),
        _ => id.to_string(),
    }
}

/// How many frames carry each `id` (well-formed or not): no id is answered more often.
fn frames_by_id(frames: &[&[u8]]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for frame in frames {
        if let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(as_read(frame))
            && let Some(id) = message.get("id")
        {
            *counts.entry(key(id)).or_default() += 1;
        }
    }
    counts
}

fuzz_target!(|data: &[u8]| {
    let frames: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    let expected = expected_answers(&frames);
    let at_most = frames_by_id(&frames);
    let frames: Vec<Vec<u8>> = frames.into_iter().map(<[u8]>::to_vec).collect();
    runtime().block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let serving = tokio::spawn(toolhost::mcp::serve_io(host().clone(), server_read, server_write));
        let (client_read, mut client_write) = tokio::io::split(client);
        let handshake = [
            json!({"jsonrpc": "2.0", "id": "toolhost-fuzz-initialize", "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ];
        let writing = tokio::spawn(async move {
            for message in handshake {
                client_write.write_all(format!("{message}\n").as_bytes()).await?;
            }
            for frame in frames {
                client_write.write_all(&frame).await?;
                client_write.write_all(b"\n").await?;
            }
            let ping = json!({"jsonrpc": "2.0", "id": FINAL, "method": "ping"});
            client_write.write_all(format!("{ping}\n").as_bytes()).await?;
            std::io::Result::Ok(client_write)
        });
        let answers = tokio::time::timeout(Duration::from_secs(30), read_answers(client_read, &expected))
            .await
            .expect("the server stopped answering (a hang, or a request left unanswered)");
        for id in expected.keys() {
            assert!(answers.contains_key(id), "well-formed request {id} was not answered");
        }
        for (id, got) in &answers {
            let sent = at_most.get(id).copied().unwrap_or(0) + usize::from(id.contains("toolhost-fuzz-"));
            assert!(*got <= sent, "{id}, in {sent} frames, was answered {got} times");
        }
        drop(writing);
        serving.abort();
    });
});

/// Reads answers until the final ping's and every expected one have come.
async fn read_answers(
    reader: tokio::io::ReadHalf<tokio::io::DuplexStream>,
    expected: &BTreeMap<String, usize>,
) -> BTreeMap<String, usize> {
    let mut lines = BufReader::new(reader).lines();
    let mut answers: BTreeMap<String, usize> = BTreeMap::new();
    loop {
        let Some(line) = lines.next_line().await.expect("the server's output is readable") else {
            panic!("the server closed the connection")
        };
        let message: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON from the server: {e}: {line}"));
        let Some(id) = message.get("id").filter(|_| message.get("method").is_none()) else { continue };
        *answers.entry(key(id)).or_default() += 1;
        let pinged = answers.contains_key(&key(&json!(FINAL)));
        if pinged && expected.keys().all(|id| answers.contains_key(id)) {
            return answers;
        }
    }
}

/// Tight limits, so that the tools the frames call (a 60 s sleep, an endless loop) end quickly.
fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.time = Duration::from_millis(100);
    limits.memory_bytes = 16 << 20;
    limits
}
