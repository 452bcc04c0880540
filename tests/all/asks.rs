//! A tool's questions reach its caller: a question for the person as MCP's
//! `elicitation/create`, a request to the caller's model as `sampling/createMessage`,
//! each answer back to the tool, in a session and, in the stateless revision
//! (2026-07-28), as rounds of `tools/call` (`InputRequiredResult`, then a retry with
//! the answers); a client without the capability is never asked and the tool hears
//! so; a tool is asked at most ten questions per call, and a question nobody answers
//! ends at the call's time limit, the host serving on.

#![allow(deprecated, reason = "rmcp marks MCP sampling deprecated (SEP-2577); the revisions tested still have it")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt as _};
use serde_json::{Value, json};
use toolhost::{CallObserver, Elicitation, ElicitationAnswer, Host, ToolError};

use crate::common;
use crate::mcp::Client;

/// A stdio session over the conformance and hostile guests.
fn session(capabilities: Value) -> (tempfile::TempDir, Client) {
    let folder = tempfile::tempdir().expect("a folder");
    for guest in ["conformance", "hostile"] {
        std::fs::copy(common::test_guest(guest), folder.path().join(format!("{guest}.wasm"))).expect("copy");
    }
    let mut client = Client::start_with(folder.path(), &[]);
    client.initialize_with(capabilities);
    (folder, client)
}

/// The text of a call's one text block.
fn text_of(answer: &Value) -> String {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {answer}")).to_string()
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

#[test]
fn a_question_and_a_request_to_the_model_reach_a_client_that_can_answer_and_back() {
    let (_folder, mut client) = session(json!({"elicitation": {}, "sampling": {}}));
    let mut asked = Vec::new();
    let user = json!({"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}});
    let answer = client.request_answering(2, "tools/call", call("test_elicitation", json!({"message": "Who?"})), |r| {
        asked.push(r.clone());
        user.clone()
    });
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["method"], "elicitation/create");
    assert_eq!(asked[0]["params"]["message"], "Who?");
    assert_eq!(asked[0]["params"]["requestedSchema"]["required"], json!(["username", "email"]));
    let said = text_of(&answer);
    assert!(said.contains("User response: action=accept") && said.contains("ada@example.com"), "{said}");

    let declined = client.request_answering(
        3,
        "tools/call",
        call("test_elicitation", json!({"message": "?"})),
        |_| json!({"action": "decline"}),
    );
    assert!(text_of(&declined).contains("action=decline"), "{declined}");

    let mut sampled = Vec::new();
    let model = json!({"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "test-model"});
    let answer = client.request_answering(4, "tools/call", call("test_sampling", json!({"prompt": "2+2?"})), |r| {
        sampled.push(r.clone());
        model.clone()
    });
    assert_eq!(sampled[0]["method"], "sampling/createMessage");
    assert_eq!(
        sampled[0]["params"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "2+2?"}}])
    );
    assert_eq!(sampled[0]["params"]["maxTokens"], 100);
    assert_eq!(text_of(&answer), "\"LLM response: 4\"");
}

#[test]
fn a_client_without_the_capabilities_is_never_asked_and_the_tool_hears_why() {
    let (_folder, mut client) = session(json!({}));
    let never = |request: &Value| -> Value { panic!("the client was asked: {request}") };
    let answer = client.request_answering(2, "tools/call", call("test_elicitation", json!({"message": "?"})), never);
    assert!(text_of(&answer).contains("action=decline"), "{answer}");
    let answer = client.request_answering(3, "tools/call", call("test_sampling", json!({"prompt": "?"})), never);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(text_of(&answer), "the MCP client has no model to ask (it did not declare sampling)");
}

#[test]
fn a_tool_is_asked_at_most_ten_questions_per_call() {
    let (_folder, mut client) = session(json!({"elicitation": {}}));
    let mut asked = 0;
    let answer = client.request_answering(2, "tools/call", call("ask_many", json!({"count": 50})), |_| {
        asked += 1;
        json!({"action": "accept", "content": {"ok": true}})
    });
    assert_eq!((asked, text_of(&answer)), (10, "10".to_string()));
}

/// Hears questions and never answers them.
#[derive(Default)]
struct Silent(AtomicUsize);

impl CallObserver for Silent {
    fn elicit(&self, _question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        self.0.fetch_add(1, Ordering::SeqCst);
        futures::future::pending().boxed()
    }
}

#[test]
fn a_question_nobody_answers_ends_at_the_calls_time_limit() {
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .limits(common::time_limit(Duration::from_millis(300)))
        .build()
        .expect("hostile loads");
    let silent = Arc::new(Silent::default());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let arguments = json!({"count": 1});
    let outcome = runtime.block_on(host.request("ask_many").arguments(&arguments).observer(silent.clone()).run_async());
    assert!(matches!(outcome.result, Err(ToolError::TimedOut { .. })), "{:?}", outcome.result);
    assert_eq!(silent.0.load(Ordering::SeqCst), 1);
    // Without an observer nobody can answer: declined at once.
    assert_eq!(host.call("ask_many", &json!({"count": 3})), Ok(json!(0)));
}

/// The MCP face sends a call's answer once the call's observer is gone, so the host
/// must let go of it when the call ends, not when the call's store is dropped later on
/// the preparing thread (which made every MCP answer wait for that thread's next look,
/// up to 1 ms).
#[test]
fn the_host_lets_go_of_a_calls_observer_when_the_call_ends() {
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .build()
        .expect("hostile loads");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    for _ in 0..20 {
        let silent = Arc::new(Silent::default());
        let observer: Arc<dyn CallObserver> = silent.clone();
        let arguments = json!({"text": "hi"});
        let outcome = runtime.block_on(host.request("echo").arguments(&arguments).observer(observer).run_async());
        assert_eq!(outcome.result, Ok(json!("hi")));
        assert_eq!(Arc::strong_count(&silent), 1, "the host still holds the observer after the call");
    }
}

/// An rmcp client that answers every question with `ada` and every request to its
/// model with `4`, counting each.
#[derive(Clone, Default)]
struct Answering {
    questions: Arc<AtomicUsize>,
    samplings: Arc<AtomicUsize>,
}

impl rmcp::ClientHandler for Answering {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.capabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}}, "sampling": {}})).expect("capabilities");
        info
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.questions.fetch_add(1, Ordering::SeqCst);
        let answer = json!({"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}});
        Ok(serde_json::from_value(answer).expect("an answer"))
    }

    async fn create_message(
        &self,
        _request: rmcp::model::CreateMessageRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        self.samplings.fetch_add(1, Ordering::SeqCst);
        let reply = json!({"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m"});
        Ok(serde_json::from_value(reply).expect("a reply"))
    }
}

/// The text of a result's first block.
fn first_text(result: &rmcp::model::CallToolResult) -> String {
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    block["text"].as_str().unwrap_or_default().to_string()
}

#[test]
fn rmcp_clients_on_the_session_and_the_stateless_revisions_answer_questions() {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};

    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(common::test_guest("conformance"), folder.path().join("conformance.wasm")).expect("copy");
    let server = crate::http::Server::start(folder.path(), &[]);
    server.wait_until_ready();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let lifecycles = [
        ("2025-11-25, a session", ClientLifecycleMode::Initialize),
        (
            "2026-07-28, stateless",
            ClientLifecycleMode::Discover { preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28] },
        ),
    ];
    for (revision, lifecycle) in lifecycles {
        runtime.block_on(async {
            let answering = Answering::default();
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url());
            let client = answering.clone().serve_with_lifecycle(transport, lifecycle).await.expect("connects");
            let mut asked = rmcp::model::CallToolRequestParams::new("test_elicitation");
            asked = asked.with_arguments(serde_json::from_value(json!({"message": "Who?"})).expect("arguments"));
            let answer = client.call_tool(asked).await.expect("tools/call");
            assert!(first_text(&answer).contains("action=accept"), "{revision}: {answer:?}");
            let mut sampled = rmcp::model::CallToolRequestParams::new("test_sampling");
            sampled = sampled.with_arguments(serde_json::from_value(json!({"prompt": "2+2?"})).expect("arguments"));
            let answer = client.call_tool(sampled).await.expect("tools/call");
            assert_eq!(first_text(&answer), "\"LLM response: 4\"", "{revision}: {answer:?}");
            assert_eq!(answering.questions.load(Ordering::SeqCst), 1, "{revision}");
            assert_eq!(answering.samplings.load(Ordering::SeqCst), 1, "{revision}");
            if revision.starts_with("2026") {
                // A round that names no waiting call is refused, saying what to do.
                let stale = rmcp::model::CallToolRequestParams::new("test_elicitation").with_request_state("gone");
                let refused = client.call_tool_once(stale).await.expect_err("refused");
                assert!(refused.to_string().contains("no call waits under this requestState"), "{refused}");
            }
            let _ = client.cancel().await;
        });
    }
}
