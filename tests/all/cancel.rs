//! Cancelled calls stop: an endless tool's instance is dropped and its turn handed to
//! the next call, whether the caller is Rust async code, an MCP client over stdio or
//! HTTP (`notifications/cancelled`, or a stateless request's connection closed), or a
//! host whose MCP server plugin is itself a toolhost.
//!
//! Every host here runs one call at a time and lets the next wait 100 ms for its turn
//! (`ONE_TURN`): while `spin` runs, a second call is refused as busy; once `spin` is
//! cancelled, the next call has that turn within those 100 ms, or it is refused too.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};
use toolhost::{Capacity, Host};

use crate::common;
use crate::http::{Server, call, client};

/// One call at a time, one waiting at most 100 ms for its turn.
const ONE_TURN: [&str; 6] = ["--max-concurrent-calls", "1", "--max-queued-calls", "1", "--queue-timeout-ms", "100"];

/// How long a test lets `spin` run before cancelling it.
const SPINNING: Duration = Duration::from_millis(300);

fn one_turn() -> Capacity {
    common::with(Capacity::default(), |capacity| {
        capacity.max_concurrent_calls = 1;
        capacity.max_queued_calls = 1;
        capacity.queue_timeout = Duration::from_millis(100);
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

/// A folder holding the `hostile` guest alone (its `spin` never returns).
fn hostile_folder() -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    folder
}

/// Asserts `host` refuses an `echo` as busy (a call holds the one turn) or answers it.
async fn assert_echo(host: &Host, answered: bool) {
    let echo = host.request("echo").arguments(&json!({"text": "next"})).run_async().await.result;
    match answered {
        true => assert_eq!(echo, Ok(json!("next"))),
        false => assert_eq!(echo.map_err(|e| e.kind()), Err("busy")),
    }
}

#[test]
fn a_cancelled_or_dropped_async_call_stops_and_frees_its_turn() {
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .capacity(one_turn())
        .build()
        .expect("hostile loads");
    runtime().block_on(async {
        let (give_up, given_up) = tokio::sync::oneshot::channel::<()>();
        let spinning = tokio::spawn({
            let host = host.clone();
            async move {
                host.request("Spin")
                    .arguments(&json!({}))
                    .cancel_on(async move {
                        let _ = given_up.await;
                    })
                    .run_async()
                    .await
            }
        });
        tokio::time::sleep(SPINNING).await;
        assert_echo(&host, false).await;
        drop(give_up);
        let outcome = spinning.await.expect("the call's task");
        assert_eq!(outcome.tool.as_deref(), Some("spin"));
        assert_eq!(outcome.repaired_from.as_deref(), Some("Spin"));
        let error = outcome.result.expect_err("cancelled");
        assert_eq!((error.kind(), error.to_string()), ("cancelled", cancelled_message("spin")));
        assert_echo(&host, true).await;

        // The future dropped instead (a timeout around it, a task aborted).
        let dropped = tokio::time::timeout(SPINNING, host.request("spin").arguments(&json!({})).run_async()).await;
        assert!(dropped.is_err(), "spin returned: {dropped:?}");
        assert_echo(&host, true).await;
    });
}

fn cancelled_message(tool: &str) -> String {
    format!("Tool '{tool}' was cancelled before it finished; it returned nothing.")
}

#[test]
fn an_mcp_client_cancels_a_call_over_stdio() {
    let folder = hostile_folder();
    let mut client = crate::mcp::Client::start_with(folder.path(), &ONE_TURN);
    client.initialize();
    client
        .send(json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "spin", "arguments": {}}}));
    std::thread::sleep(SPINNING);
    let busy = client.request(11, "tools/call", json!({"name": "echo", "arguments": {"text": "next"}}));
    assert_eq!(busy["result"]["isError"], true, "{busy}");
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 10, "reason": "the user gave up"}}));
    let next = client.request(12, "tools/call", json!({"name": "echo", "arguments": {"text": "next"}}));
    assert_eq!(next["result"]["content"][0]["text"], "\"next\"", "{next}");
    // A cancelled request gets no answer (MCP: the receiver should not send one).
    assert!(client.answered().iter().all(|message| message["id"] != 10), "spin was answered");
}

#[test]
fn an_mcp_client_over_http_cancels_a_call_in_a_session_or_by_closing_its_request() {
    let folder = hostile_folder();
    let server = Server::start(folder.path(), &ONE_TURN);
    server.wait_until_ready();
    runtime().block_on(async {
        let client = client(&server.url(), None, Some(rmcp::model::ProtocolVersion::V_2025_06_18)).await;
        // rmcp's client sends `notifications/cancelled` for a call dropped unanswered.
        let dropped = tokio::time::timeout(SPINNING, client.call_tool(call("spin", json!({})))).await;
        assert!(dropped.is_err(), "spin returned: {dropped:?}");
        let next = client.call_tool(call("echo", json!({"text": "next"}))).await.expect("tools/call");
        assert_eq!(next.structured_content, Some(json!({"result": "next"})), "{next:?}");
        client.cancel().await.expect("the client closes");
    });
    // The stateless revision has no session to send a cancellation in: a client gives
    // up on a call by closing its request's connection.
    let spin = stateless_call(server.port, "spin", json!({}));
    std::thread::sleep(SPINNING);
    runtime().block_on(async {
        let client = client(&server.url(), None, None).await;
        let busy = client.call_tool(call("echo", json!({"text": "next"}))).await.expect("tools/call");
        assert_eq!(busy.is_error, Some(true), "{busy:?}");
        drop(spin);
        let next = client.call_tool(call("echo", json!({"text": "next"}))).await.expect("tools/call");
        assert_eq!(next.structured_content, Some(json!({"result": "next"})), "{next:?}");
        client.cancel().await.expect("the client closes");
    });
}

/// A stateless `tools/call` sent on a connection of its own, left open unread.
fn stateless_call(port: u16, name: &str, arguments: Value) -> TcpStream {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": name, "arguments": arguments, "_meta": meta}})
    .to_string();
    let mut connection = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, \
         text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {name}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    connection.write_all(request.as_bytes()).expect("send");
    connection
}

#[test]
fn a_cancelled_call_to_an_mcp_server_plugin_is_cancelled_at_the_server() {
    // The plugin server is `toolhost serve` itself, one call at a time: unless the
    // cancellation reaches it, its `spin` keeps the turn and the next call is busy.
    let inner = hostile_folder();
    let mut command = vec![env!("CARGO_BIN_EXE_toolhost"), "serve", "--plugins"];
    command.push(inner.path().to_str().expect("UTF-8"));
    command.extend(ONE_TURN);
    let outer = tempfile::tempdir().expect("temporary folder");
    let config = format!(
        "command = {}\nenv = {{ TOOLHOST_CACHE_DIR = {:?} }}\n",
        serde_json::to_string(&command).expect("JSON"),
        common::test_cache_dir()
    );
    std::fs::write(outer.path().join("inner.mcp.toml"), config).expect("write");
    let host = Host::builder().plugin_dir(outer.path()).cache_dir(common::test_cache_dir()).build().expect("loads");
    runtime().block_on(async {
        let dropped = tokio::time::timeout(SPINNING, host.request("spin").arguments(&json!({})).run_async()).await;
        assert!(dropped.is_err(), "spin returned: {dropped:?}");
        assert_eq!(
            host.request("echo").arguments(&json!({"text": "next"})).run_async().await.result,
            Ok(through_mcp("next"))
        );

        let (give_up, given_up) = tokio::sync::oneshot::channel::<()>();
        let spinning = tokio::spawn({
            let host = host.clone();
            async move {
                host.request("spin")
                    .arguments(&json!({}))
                    .cancel_on(async move { drop(given_up.await) })
                    .run_async()
                    .await
            }
        });
        tokio::time::sleep(SPINNING).await;
        let busy = host
            .request("echo")
            .arguments(&json!({"text": "next"}))
            .run_async()
            .await
            .result
            .expect_err("busy at the server");
        assert!(busy.to_string().contains("the host is busy"), "{busy}");
        drop(give_up);
        let outcome = spinning.await.expect("the call's task");
        assert_eq!(outcome.result.map_err(|e| e.kind()), Err("cancelled"));
        assert_eq!(
            host.request("echo").arguments(&json!({"text": "next"})).run_async().await.result,
            Ok(through_mcp("next"))
        );

        // A deadline stops the server's call too, and frees the inner host's turn.
        let deadline = std::time::Instant::now() + SPINNING;
        let outcome = host.request("spin").arguments(&json!({})).deadline(deadline).run_async().await;
        assert_eq!(outcome.result.map_err(|e| e.kind()), Err("timed_out"));
        assert_eq!(
            host.request("echo").arguments(&json!({"text": "next"})).run_async().await.result,
            Ok(through_mcp("next"))
        );
    });
}

/// A component's result as a toolhost MCP server returns it: its structured content.
fn through_mcp(value: &str) -> Value {
    json!({"result": value})
}

/// A request's deadline bounds its call as a time limit would: a component's endless
/// call, blocking or async, and an MCP server's, stop at the deadline and say so,
/// and the turn is free again; a deadline later than the tool's own limit changes
/// nothing.
#[test]
fn a_deadline_stops_a_call_at_the_time_left() {
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .capacity(one_turn())
        .limits(common::time_limit(Duration::from_secs(30)))
        .build()
        .expect("hostile loads");
    let arguments = json!({});
    let started = std::time::Instant::now();
    let outcome = host.request("spin").arguments(&arguments).deadline(started + SPINNING).run();
    let Err(toolhost::ToolError::TimedOut { limit, .. }) = outcome.result else { panic!("{:?}", outcome.result) };
    assert!(limit <= SPINNING, "the limit said is the time that was left: {limit:?}");
    runtime().block_on(async {
        assert_echo(&host, true).await;
        let deadline = std::time::Instant::now() + SPINNING;
        let outcome = host.request("spin").arguments(&arguments).deadline(deadline).run_async().await;
        assert_eq!(outcome.result.map_err(|e| e.kind()), Err("timed_out"));
        assert_echo(&host, true).await;
    });
    let later = std::time::Instant::now() + Duration::from_secs(3600);
    let echo = host.request("echo").text(r#"{"text": "hi"}"#).deadline(later).run();
    assert_eq!(echo.result, Ok(json!("hi")));
}
