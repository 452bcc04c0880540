//! Long calls as tasks (MCP's tasks extension, revision 2026-07-28), through rmcp's
//! client against `toolhost serve --http`: a call still running after the server's
//! patience is answered with a task whose status message follows the tool's
//! progress and whose result is the call's; a question the tool asks meanwhile is
//! the task's input request, answered by `tasks/update`; `tasks/cancel` stops an
//! endless call and frees its slot; a quick call, or a client that does not take
//! tasks, gets the result in the request as before; a tool whose manifest requires
//! tasks runs as one at once, and is refused to a client that does not take them.

use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, GetTaskParams, GetTaskResult,
    ProtocolVersion, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _, RunningService};
use serde_json::{Value, json};

use crate::common;
use crate::http::{Server, call};

/// A server over the hostile guest whose calls become tasks after 300 ms, where
/// `sleep` requires a task.
fn server() -> (tempfile::TempDir, Server) {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    std::fs::write(folder.path().join("hostile.toml"), "[tools.sleep]\ntask = \"required\"\n").expect("manifest");
    let server = Server::start(folder.path(), &["--tasks-after-ms", "300"]);
    server.wait_until_ready();
    (folder, server)
}

/// A stateless (2026-07-28) rmcp client with `capabilities`, which accepts what it
/// is asked (in a round: a task's questions are answered by `tasks/update`).
#[derive(Clone)]
pub(crate) struct Stateless(ClientCapabilities);

impl rmcp::ClientHandler for Stateless {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.capabilities = self.0.clone();
        info
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        Ok(serde_json::from_value(json!({"action": "accept", "content": {"ok": true}})).expect("an answer"))
    }
}

pub(crate) async fn connect(url: &str, capabilities: Value) -> RunningService<RoleClient, Stateless> {
    let capabilities = serde_json::from_value(capabilities).expect("capabilities");
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    Stateless(capabilities).serve_with_lifecycle(transport, lifecycle).await.expect("connects")
}

/// Capabilities that take tasks and can answer questions.
pub(crate) fn takes_tasks() -> Value {
    json!({"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// The task id of a call answered with a task.
pub(crate) async fn task_of(client: &RunningService<RoleClient, Stateless>, request: CallToolRequestParams) -> String {
    match client.call_tool_once(request).await.expect("tools/call") {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, TaskStatus::Working);
            assert!(created.task.poll_interval_ms.is_some() && created.task.ttl_ms.is_some(), "{created:?}");
            created.task.task_id
        }
        other => panic!("a task was expected: {other:?}"),
    }
}

/// Polls the task every 50 ms (at most 200 times) until `done` says so, keeping
/// every status message seen.
pub(crate) async fn poll_until(
    client: &RunningService<RoleClient, Stateless>,
    task_id: &str,
    messages: &mut Vec<String>,
    done: impl Fn(&GetTaskResult) -> bool,
) -> GetTaskResult {
    for _ in 0..200 {
        let state = client.get_task(GetTaskParams::new(task_id)).await.expect("tasks/get");
        messages.extend(state.task.task.status_message.clone());
        if done(&state) {
            return state;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {task_id} never reached the state: {messages:?}");
}

pub(crate) fn is_terminal(state: &GetTaskResult) -> bool {
    state.task.status().is_terminal()
}

/// The text of a completed task's first content block.
pub(crate) fn result_text(state: &GetTaskResult) -> String {
    match &state.task.payload {
        TaskPayload::Completed { result } => result["content"][0]["text"].as_str().unwrap_or_default().to_string(),
        other => panic!("not completed: {other:?}"),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

#[test]
fn a_long_call_becomes_a_task_that_reports_progress_and_ends_with_its_result() {
    let (_folder, server) = server();
    runtime().block_on(async {
        let client = connect(&server.url(), takes_tasks()).await;
        let task_id = task_of(&client, call("work", json!({"steps": 6, "pause_ms": 150, "ask": false}))).await;
        let mut messages = Vec::new();
        let done = poll_until(&client, &task_id, &mut messages, is_terminal).await;
        assert_eq!(done.task.status(), TaskStatus::Completed, "{done:?}");
        assert_eq!(result_text(&done), "6");
        assert!(messages.iter().any(|m| m.contains("of 6 done: step")), "no progress in {messages:?}");
        // Polled again, the ended task still says how it ended.
        let again = client.get_task(GetTaskParams::new(&task_id)).await.expect("tasks/get");
        assert_eq!(result_text(&again), "6");

        // A quick call is answered in its request, unless its tool requires a task.
        let quick = client.call_tool_once(call("echo", json!({"text": "hi"}))).await.expect("tools/call");
        assert!(matches!(quick, CallToolResponse::Complete(_)), "{quick:?}");
        let task_id = task_of(&client, call("sleep", json!({"ms": 10}))).await;
        let done = poll_until(&client, &task_id, &mut Vec::new(), is_terminal).await;
        assert_eq!(result_text(&done), "10");
        // An id no task has is refused as invalid params.
        let unknown = client.get_task(GetTaskParams::new("no-such-task")).await.expect_err("refused");
        assert!(unknown.to_string().contains("-32602: unknown task"), "{unknown}");
        let _ = client.cancel().await;
    });
}

#[test]
fn a_question_during_a_task_is_its_input_request_and_the_update_answers_it() {
    let (_folder, server) = server();
    runtime().block_on(async {
        let client = connect(&server.url(), takes_tasks()).await;
        let task_id = task_of(&client, call("work", json!({"steps": 3, "pause_ms": 200, "ask": true}))).await;
        let mut messages = Vec::new();
        let waiting = poll_until(&client, &task_id, &mut messages, |s| s.task.status() != TaskStatus::Working).await;
        let TaskPayload::InputRequired { input_requests } = &waiting.task.payload else {
            panic!("input was expected: {waiting:?}");
        };
        assert_eq!(input_requests.len(), 1, "{input_requests:?}");
        let (key, request) = input_requests.iter().next().expect("a request");
        let request = serde_json::to_value(request).expect("JSON");
        assert_eq!(request["method"], "elicitation/create", "{request}");
        assert_eq!(request["params"]["message"], "One more?", "{request}");

        let answer = json!({"action": "accept", "content": {"ok": true}});
        let responses = [(key.clone(), answer)].into_iter().collect();
        client.update_task(UpdateTaskParams::new(&task_id, responses)).await.expect("tasks/update");
        let done = poll_until(&client, &task_id, &mut messages, is_terminal).await;
        assert_eq!(result_text(&done), "4", "accepted, the tool counts one more");
        let _ = client.cancel().await;
    });
}

#[test]
fn a_cancelled_task_stops_its_call_and_frees_its_slot() {
    let (_folder, server) = server();
    runtime().block_on(async {
        let client = connect(&server.url(), takes_tasks()).await;
        let task_id = task_of(&client, call("spin", json!({}))).await;
        client.cancel_task(CancelTaskParams::new(&task_id)).await.expect("tasks/cancel");
        let cancelled_at = Instant::now();
        let done = poll_until(&client, &task_id, &mut Vec::new(), is_terminal).await;
        assert_eq!(done.task.status(), TaskStatus::Cancelled, "{done:?}");
        // Stopped at an epoch tick, well before the call's 10 s time limit.
        assert!(cancelled_at.elapsed() < Duration::from_secs(3), "{:?}", cancelled_at.elapsed());
        let next = client.call_tool_once(call("echo", json!({"text": "next"}))).await.expect("tools/call");
        assert!(matches!(next, CallToolResponse::Complete(_)), "{next:?}");
        let _ = client.cancel().await;
    });
}

#[test]
fn a_client_that_does_not_take_tasks_gets_the_result_in_its_request() {
    let (_folder, server) = server();
    runtime().block_on(async {
        let client = connect(&server.url(), json!({})).await;
        let answer = client.call_tool(call("work", json!({"steps": 2, "pause_ms": 350, "ask": false}))).await;
        let answer = answer.expect("tools/call");
        let text = serde_json::to_value(&answer.content[0]).expect("JSON")["text"].clone();
        assert_eq!(text, "2", "{answer:?}");
        // A tool that requires a task is refused to it.
        let refused = client.call_tool(call("sleep", json!({"ms": 10}))).await.expect_err("refused");
        assert!(refused.to_string().contains("-32021: Missing required client capability"), "{refused}");
        // Task methods are refused to it, naming the capability it lacks.
        let refused = client.get_task(GetTaskParams::new("any")).await.expect_err("refused");
        assert!(refused.to_string().contains("-32021: Missing required client capability"), "{refused}");
        let _ = client.cancel().await;
    });
}
