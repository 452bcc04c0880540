//! What a tool reports while it runs reaches the MCP client that called it: progress
//! (`toolhost:tool/progress`) as `notifications/progress` when the request carried a
//! `progressToken`, log lines (`toolhost:tool/log`) as `notifications/message` at the
//! level `logging/setLevel` asked for, each before the call's result; a flood is cut
//! at the per-call bound. The tools are the conformance guest's and the hostile one's.

#![allow(deprecated, reason = "rmcp marks MCP logging deprecated (SEP-2577); the revisions tested still have it")]

use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientConfig, LoggingMessageNotificationParam, NumberOrString, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, RequestParamsMeta,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

use crate::common;
use crate::http::{Server, call};
use crate::mcp::Client;

/// A folder holding the conformance, hostile and legacy-log guests.
fn guests() -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("temporary folder");
    for guest in ["conformance", "hostile", "legacy-log"] {
        std::fs::copy(common::test_guest(guest), folder.path().join(format!("{guest}.wasm"))).expect("copy");
    }
    folder
}

#[test]
fn progress_and_log_lines_come_before_the_result_in_order_over_stdio() {
    let folder = guests();
    let mut client = Client::start_with(folder.path(), &[]);
    client.initialize();
    let progress = json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p-1"}});
    let answer = client.request(2, "tools/call", progress);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let notices: Vec<Value> = client.answered().into_iter().map(|m| m["params"].clone()).collect();
    let expected: Vec<Value> = [0.0, 50.0, 100.0]
        .iter()
        .map(|done| json!({"progressToken": "p-1", "progress": done, "total": 100.0}))
        .collect();
    assert_eq!(notices, expected);

    // Without a token, no progress; without `logging/setLevel`, info and above.
    let answer = client.request(3, "tools/call", json!({"name": "test_tool_with_progress", "arguments": {}}));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(client.answered(), Vec::<Value>::new());
    client.request(4, "tools/call", json!({"name": "test_tool_with_logging", "arguments": {}}));
    let lines: Vec<Value> = client.answered().into_iter().map(|m| m["params"].clone()).collect();
    let expected: Vec<Value> = ["Tool execution started", "Tool processing data", "Tool execution completed"]
        .iter()
        .map(|line| json!({"level": "info", "logger": "conformance", "data": line}))
        .collect();
    assert_eq!(lines, expected);

    // At warning and above, an info line is not sent; an error line is.
    let set = client.request(5, "logging/setLevel", json!({"level": "warning"}));
    assert_eq!(set["result"], json!({}), "{set}");
    client.request(6, "tools/call", json!({"name": "test_tool_with_logging", "arguments": {}}));
    assert_eq!(client.answered(), Vec::<Value>::new());
    client.request(7, "tools/call", json!({"name": "log_lines", "arguments": {"count": 1, "error": true}}));
    let lines: Vec<Value> = client.answered().into_iter().map(|m| m["params"].clone()).collect();
    assert_eq!(lines, [json!({"level": "error", "logger": "hostile", "data": "line 0"})]);
}

#[test]
fn a_tool_built_against_the_first_version_of_the_package_loads_and_its_log_lines_reach_the_client() {
    let folder = guests();
    let mut client = Client::start_with(folder.path(), &[]);
    client.initialize();
    let answer = client.request(2, "tools/call", json!({"name": "warn", "arguments": {"message": "old"}}));
    assert_eq!(answer["result"]["content"][0]["text"], "\"old\"", "{answer}");
    let lines: Vec<Value> = client.answered().into_iter().map(|m| m["params"].clone()).collect();
    assert_eq!(lines, [json!({"level": "warning", "logger": "legacy-log", "data": "old"})]);
}

#[test]
fn a_flood_of_log_lines_reaches_the_client_cut_at_the_bound_with_a_note() {
    let folder = guests();
    let mut client = Client::start_with(folder.path(), &[]);
    client.initialize();
    client.request(2, "logging/setLevel", json!({"level": "debug"}));
    let flood =
        client.request(3, "tools/call", json!({"name": "log_lines", "arguments": {"count": 5000, "error": false}}));
    assert_eq!(flood["result"]["isError"], false, "{flood}");
    let lines = client.answered();
    assert_eq!(lines.len(), 101, "100 lines, then the note");
    let note = &lines[100]["params"];
    assert_eq!(lines[99]["params"], json!({"level": "debug", "logger": "hostile", "data": "line 99"}));
    assert_eq!(note["level"], "warning");
    assert!(note["data"].as_str().is_some_and(|text| text.contains("at most 100 lines")), "{note}");
}

/// An rmcp client that keeps the progress and log notifications it is sent.
#[derive(Clone, Default)]
struct Listener {
    progress: Arc<Mutex<Vec<f64>>>,
    lines: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = ProtocolVersion::V_2025_06_18;
        info
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.lock().expect("lock").push(params.progress);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.lines.lock().expect("lock").push(params.data);
    }
}

#[test]
fn an_rmcp_client_over_http_hears_progress_and_log_lines() {
    let folder = guests();
    let server = Server::start(folder.path(), &[]);
    server.wait_until_ready();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    // In a session of an older revision, and stateless (where the server answers
    // the plain call itself, streaming what it tells before the result).
    let stateless = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    for lifecycle in [ClientLifecycleMode::Initialize, stateless] {
        runtime.block_on(async {
            let listener = Listener::default();
            let transport = StreamableHttpClientTransport::from_uri(server.url());
            let client = listener.clone().serve_with_lifecycle(transport, lifecycle).await.expect("connects");
            let mut params = call("test_tool_with_progress", json!({}));
            params.set_progress_token(ProgressToken(NumberOrString::String("p-1".into())));
            let answer = client.call_tool(params).await.expect("tools/call");
            assert_eq!(answer.is_error, Some(false), "{answer:?}");
            let answer = client.call_tool(call("test_tool_with_logging", json!({}))).await.expect("tools/call");
            assert_eq!(answer.is_error, Some(false), "{answer:?}");
            // rmcp hands each notification to its own task: wait (a bounded while) for all.
            for _ in 0..100 {
                if listener.progress.lock().expect("lock").len() == 3 && listener.lines.lock().expect("lock").len() == 3
                {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            let mut progress = listener.progress.lock().expect("lock").clone();
            progress.sort_by(f64::total_cmp);
            assert_eq!(progress, [0.0, 50.0, 100.0]);
            let mut lines = listener.lines.lock().expect("lock").clone();
            lines.sort_by_key(Value::to_string);
            assert_eq!(
                lines,
                [json!("Tool execution completed"), json!("Tool execution started"), json!("Tool processing data")]
            );
            client.cancel().await.expect("the client closes");
        });
    }
}
