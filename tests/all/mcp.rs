//! `toolhost serve` as a child process, spoken to over stdio as an MCP client would:
//! newline-delimited JSON-RPC.

use crate::common;
use crate::process::Process;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// `toolhost serve` over stdio, and the lines it writes.
pub(crate) struct Client {
    /// Kept for its drop, which ends the server.
    _child: Process,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    skipped: Vec<Value>,
}

impl Client {
    fn start(plugins: &std::path::Path, watch: bool) -> Client {
        Client::start_with(plugins, watch.then_some("--watch").as_slice())
    }

    pub(crate) fn start_with(plugins: &std::path::Path, options: &[&str]) -> Client {
        let mut child = Process::spawn(
            Command::new(env!("CARGO_BIN_EXE_toolhost"))
                .args(["serve", "--plugins"])
                .arg(plugins)
                .args(options)
                .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit()),
        )
        .expect("toolhost serve starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout: ChildStdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Client { _child: child, stdin, lines, skipped: Vec::new() }
    }

    /// Writes one message to the server.
    pub(crate) fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// Waits for a notification of `method`, up to `timeout`; the messages skipped
    /// on the way are kept (see [`Client::answered`]).
    pub(crate) fn notification(&mut self, method: &str, timeout: Duration) -> Value {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| panic!("no {method} within {timeout:?}"));
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if message["method"] == method {
                return message;
            }
            self.skipped.push(message);
        }
    }

    /// Initializes the session (revision 2025-06-18) and returns the answer.
    pub(crate) fn initialize(&mut self) -> Value {
        let init = self.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test-client", "version": "1.0"}}),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// Initializes the session (revision 2025-06-18) declaring `capabilities`.
    pub(crate) fn initialize_with(&mut self, capabilities: Value) -> Value {
        let params = json!({"protocolVersion": "2025-06-18", "capabilities": capabilities,
                            "clientInfo": {"name": "test-client", "version": "1.0"}});
        let init = self.request(1, "initialize", params);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// Sends a request and returns its response, answering each request the server
    /// sends meanwhile with what `answer` makes of it; notifications are kept (see
    /// [`Client::answered`]).
    pub(crate) fn request_answering(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        mut answer: impl FnMut(&Value) -> Value,
    ) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("a message within a minute");
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC: {line}: {e}"));
            match (&message["id"], message.get("method")) {
                (Value::Null, _) => self.skipped.push(message),
                (asked, Some(_)) => {
                    let reply = json!({"jsonrpc": "2.0", "id": asked, "result": answer(&message)});
                    self.send(reply);
                }
                (answered, None) if *answered == json!(id) => return message,
                (_, None) => panic!("a response to a request never sent: {message}"),
            }
        }
    }

    /// The responses to requests `ids`, by id, skipping notifications; fails when one
    /// does not come within a minute or comes twice.
    fn responses(&mut self, ids: std::ops::Range<u64>) -> std::collections::BTreeMap<u64, Value> {
        let mut responses = std::collections::BTreeMap::new();
        while responses.len() < ids.clone().count() {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("a reply within a minute");
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC: {line}: {e}"));
            let Some(id) = message["id"].as_u64() else { continue };
            assert!(ids.contains(&id), "a response to a request never sent: {message}");
            assert!(responses.insert(id, message).is_none(), "two responses to request {id}");
        }
        responses
    }

    /// Sends a request and returns the response with the same id; the messages
    /// skipped on the way are kept (see [`Client::answered`]).
    pub(crate) fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("a reply within a minute");
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC: {line}: {e}"));
            if message["id"] == json!(id) {
                assert_eq!(message["jsonrpc"], "2.0");
                return message;
            }
            self.skipped.push(message);
        }
    }

    /// The messages [`Client::request`] and [`Client::notification`] skipped since
    /// the last call.
    pub(crate) fn answered(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.skipped)
    }
}

#[test]
fn an_mcp_client_lists_and_calls_tools_over_stdio() {
    let mut client = Client::start(&common::plugins_dir(), false);
    let init = client.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "toolhost", "{init}");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);

    let list = client.request(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("a tool list");
    assert_eq!(tools.len(), 37);
    let evaluate = tools.iter().find(|t| t["name"] == "evaluate").expect("evaluate is listed");
    assert!(evaluate["description"].as_str().unwrap_or("").starts_with("Evaluates an arithmetic expression"));
    assert_eq!(evaluate["inputSchema"]["required"], json!(["expression"]));

    assert_eq!(evaluate["title"], "Evaluate");
    let pure = json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false});
    assert_eq!(evaluate["annotations"], pure);

    let repaired = client.request(3, "tools/call", json!({"name": "Evaluate", "arguments": {"expression": "6 * 7"}}));
    assert_eq!(repaired["result"]["isError"], false, "{repaired}");
    assert_eq!(repaired["result"]["content"], json!([{"type": "text", "text": "42.0"}]));
    assert_eq!(repaired["result"]["structuredContent"], json!({"result": 42.0}));
    assert!(jsonschema::draft202012::is_valid(&evaluate["outputSchema"], &repaired["result"]["structuredContent"]));
    let parse_url = tools.iter().find(|t| t["name"] == "parse_url").expect("parse_url is listed");
    let parsed =
        client.request(6, "tools/call", json!({"name": "parse_url", "arguments": {"url": "https://a.example/b?c=d"}}));
    assert_eq!(parsed["result"]["structuredContent"]["host"], "a.example", "{parsed}");
    assert!(jsonschema::draft202012::is_valid(&parse_url["outputSchema"], &parsed["result"]["structuredContent"]));

    let failed = client.request(4, "tools/call", json!({"name": "factorial", "arguments": {"n": "five"}}));
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    assert_eq!(
        failed["result"]["content"][0]["text"],
        "Invalid arguments for 'factorial': 'n' must be an integer between 0 and 255, got \"five\"."
    );

    let unknown = client.request(5, "tools/call", json!({"name": "evalute", "arguments": {}}));
    assert_eq!(unknown["result"]["isError"], true);
    assert!(
        unknown["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .starts_with("Tool 'evalute' not found. Did you mean 'evaluate'?")
    );
}

#[test]
fn an_mcp_servers_tools_are_served_on_with_their_schemas_and_hints() {
    let folder = tempfile::tempdir().expect("temporary folder");
    let entry = super::mcp_servers::server_entry("server-everything");
    std::fs::write(folder.path().join("everything.mcp.toml"), format!("command = [\"node\", {entry:?}]\n"))
        .expect("write");
    let mut client = Client::start(folder.path(), false);
    client.initialize();
    let list = client.request(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("a tool list");
    let sum = tools.iter().find(|t| t["name"] == "get-sum").expect("get-sum is listed");
    assert_eq!(sum["inputSchema"]["required"], json!(["a", "b"]), "the server's own schema: {sum}");
    assert_eq!(sum["annotations"]["readOnlyHint"], true, "the server's own hints: {sum}");
    let called = client.request(3, "tools/call", json!({"name": "GetSum", "arguments": {"A": "2", "b": 3}}));
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(called["result"]["content"], json!([{"type": "text", "text": "\"The sum of 2 and 3 is 5.\""}]));
    let weather = tools.iter().find(|t| t["name"] == "get-structured-content").expect("listed");
    let structured = client.request(
        4,
        "tools/call",
        json!({"name": "get-structured-content", "arguments": {"location": "Chicago"}}),
    );
    let content = &structured["result"]["structuredContent"];
    assert!(content.is_object(), "{structured}");
    assert!(jsonschema::is_valid(&weather["outputSchema"], content), "{content} against {}", weather["outputSchema"]);
}

#[test]
fn a_watching_server_tells_the_client_when_the_tool_list_changes() {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(common::plugins_dir().join("calculator.wasm"), folder.path().join("calculator.wasm")).expect("copy");
    let mut client = Client::start(folder.path(), true);
    client.initialize();
    let names = |list: &Value| -> Vec<String> {
        list["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert!(!names(&client.request(2, "tools/list", json!({}))).contains(&"convert".to_string()));

    std::fs::copy(common::plugins_dir().join("units.wasm"), folder.path().join(".units.part")).expect("copy");
    std::fs::rename(folder.path().join(".units.part"), folder.path().join("units.wasm")).expect("rename");
    client.notification("notifications/tools/list_changed", Duration::from_secs(20));
    assert!(names(&client.request(3, "tools/list", json!({}))).contains(&"convert".to_string()));
    let call = client.request(
        4,
        "tools/call",
        json!({"name": "convert", "arguments": {"value": 1, "from": "day", "to": "hour"}}),
    );
    assert_eq!(call["result"]["content"][0]["text"], "24.0");
}

#[test]
fn calls_beyond_the_servers_capacity_wait_or_are_told_it_is_busy_each_once() {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let capacity = ["--max-concurrent-calls", "2", "--max-queued-calls", "6", "--queue-timeout-ms", "1000"];
    let mut client = Client::start_with(folder.path(), &capacity);
    client.initialize();
    // Twelve at once, six times the slots: two run at once, six wait (two of them get a
    // turn in time, four do not), four are refused at once; each gets one answer.
    for id in 10..22 {
        let call = json!({"name": "sleep", "arguments": {"ms": 600}});
        client.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call}));
    }
    let responses = client.responses(10..22);
    let (mut ran, mut busy) = (0, 0);
    for response in responses.values() {
        let text = response["result"]["content"][0]["text"].as_str().unwrap_or_default();
        if response["result"]["isError"] == false {
            assert_eq!(text, "600");
            ran += 1;
        } else {
            assert!(text.starts_with("Tool 'sleep' was not run: the host is busy ("), "{response}");
            busy += 1;
        }
    }
    assert!(ran >= 2 && busy >= 4 && ran + busy == 12, "{ran} ran, {busy} were busy: {responses:#?}");
    let after = client.request(30, "tools/call", json!({"name": "echo", "arguments": {"text": "after"}}));
    assert_eq!(after["result"]["content"][0]["text"], "\"after\"");
}

#[test]
fn huge_truncated_and_unreadable_frames_leave_the_session_serving() {
    let mut client = Client::start(&common::plugins_dir(), false);
    client.initialize();
    let huge =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"ping\",\"padding\":\"{}\"}}", "x".repeat(20 << 20));
    writeln!(client.stdin, "{huge}").expect("write a 20 MiB frame");
    writeln!(client.stdin, "{{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/li").expect("write a truncated frame");
    writeln!(client.stdin, "not JSON at all").expect("write");
    client.send(json!({"jsonrpc": "2.0", "id": 43, "method": "tools/list", "params": [1, 2]}));
    let unreadable = client.request(44, "tools/list", json!({}));
    assert_eq!(unreadable["result"]["tools"].as_array().map(Vec::len), Some(37), "the session no longer serves");
    // The request MCP cannot read is answered with its id, before the next one.
    let answers = client.answered();
    let refused = answers.iter().find(|m| m["id"] == json!(43)).expect("request 43 was answered");
    assert_eq!(refused["error"]["code"], json!(-32600), "{refused}");
    assert!(answers.iter().all(|m| m["id"] != json!(40) && m["id"] != json!(41)), "{answers:#?}");
}

#[test]
fn the_audit_log_records_arguments_when_asked_with_secrets_redacted() {
    let folder = tempfile::tempdir().expect("temporary folder");
    let tools = json!([{"name": "lookup", "description": "Looks a thing up.", "inputSchema": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "api_key": {"type": "string"},
                       "auth": {"type": "object", "properties": {"password": {"type": "string"}}}},
    }}]);
    let plugins = common::functions_server_plugins(folder.path(), "service", &tools);
    let log = folder.path().join("audit.log");
    let mut client = Client::start_with(&plugins, &["--audit-log", log.to_str().expect("UTF-8"), "--audit-arguments"]);
    client.initialize();
    let arguments = json!({"query": "weather", "api_key": "sk-live-123", "auth": {"password": "hunter2"}});
    let answer = client.request(2, "tools/call", json!({"name": "lookup", "arguments": arguments}));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let text = std::fs::read_to_string(&log).expect("the audit log");
    assert!(!text.contains("sk-live-123") && !text.contains("hunter2"), "{text}");
    let line: Value = serde_json::from_str(text.trim()).expect("one JSON line");
    assert_eq!(line["caller"], "stdio");
    assert_eq!(line["tool"], "lookup");
    let redacted = json!({"query": "weather", "api_key": "[redacted]", "auth": {"password": "[redacted]"}});
    assert_eq!(line["arguments"], redacted);
}
