//! Approval: a tool that needs a person's yes asks through the call's observer before
//! it runs, and runs only when the person accepts; declining, dismissing, not
//! answering, or a call with no one to ask leaves it unrun with a message the model
//! reads. (Over MCP, the Python SDK's client answers: python/tests/test_mcp_client.py.)

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt as _};
use serde_json::{Value, json};
use toolhost::{Approval, CallObserver, Elicitation, ElicitationAnswer, Host, ToolError, Unapproved};

use crate::common::{self, test_guest};

/// Answers every question with `answer` (none: never), and keeps the questions.
struct Person {
    answer: Option<ElicitationAnswer>,
    asked: Mutex<Vec<Elicitation>>,
}

impl Person {
    fn answering(answer: Option<ElicitationAnswer>) -> Arc<Person> {
        Arc::new(Person { answer, asked: Mutex::new(Vec::new()) })
    }
}

impl CallObserver for Person {
    fn elicit(&self, question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        self.asked.lock().expect("the questions").push(question);
        match self.answer.clone() {
            Some(answer) => futures::future::ready(answer).boxed(),
            None => futures::future::pending().boxed(),
        }
    }
}

/// The hostile guest, its `/out` writable (so its tools may destroy something),
/// asking approval as `approval` says.
fn host_writing_to(folder: &Path, approval: Approval) -> Host {
    Host::builder()
        .component_file(test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .grant_dir("hostile", folder, "/out", false)
        .approval(approval)
        .build()
        .expect("the host builds")
}

/// Writes `name` through the hostile guest's `write_path`, with `person` asked.
fn write(host: &Host, name: &str, person: Option<Arc<Person>>) -> toolhost::CallOutcome {
    let arguments = json!({"path": format!("/out/{name}"), "contents": "written"});
    let request = host.request("write_path").arguments(&arguments);
    match person {
        Some(person) => request.observer(person).run(),
        None => request.run(),
    }
}

fn reason(outcome: &toolhost::CallOutcome) -> Unapproved {
    match &outcome.result {
        Err(ToolError::NotApproved { reason, .. }) => *reason,
        other => panic!("not refused for want of approval: {other:?}"),
    }
}

#[test]
fn a_tool_that_may_destroy_something_runs_only_when_the_person_says_yes() {
    let folder = tempfile::tempdir().expect("a folder");
    let wait = Duration::from_millis(300);
    let host = host_writing_to(folder.path(), Approval::destructive_tools().wait(wait));
    let yes = Person::answering(Some(ElicitationAnswer::Accept(json!({"approve": true}))));
    let approved = write(&host, "yes.txt", Some(yes.clone()));
    assert_eq!((approved.result.clone(), approved.approved), (Ok(Value::Null), true));
    assert_eq!(std::fs::read_to_string(folder.path().join("yes.txt")).ok().as_deref(), Some("written"));
    let question = &yes.asked.lock().expect("the questions")[0];
    assert!(question.message.starts_with("The agent wants to run 'write_path' with these arguments:\n"));
    assert!(question.message.contains("\"path\": \"/out/yes.txt\"") && question.message.ends_with("Allow it?"));
    assert_eq!(question.schema["properties"]["approve"]["type"], "boolean");

    let answers = [
        (Some(ElicitationAnswer::Decline), Unapproved::Declined),
        (Some(ElicitationAnswer::Accept(json!({"approve": false}))), Unapproved::Declined),
        (Some(ElicitationAnswer::Accept(json!({}))), Unapproved::Declined),
        (Some(ElicitationAnswer::Cancel), Unapproved::Dismissed),
        (None, Unapproved::Unanswered(wait)),
    ];
    for (i, (answer, expected)) in answers.into_iter().enumerate() {
        let name = format!("no-{i}.txt");
        let outcome = write(&host, &name, Some(Person::answering(answer)));
        assert_eq!((reason(&outcome), outcome.approved), (expected, false));
        assert!(!folder.path().join(&name).exists(), "{name} was written without a yes");
    }
    let alone = write(&host, "alone.txt", None);
    assert_eq!(reason(&alone), Unapproved::NoOneToAsk);
    let declined = write(&host, "no.txt", Some(Person::answering(Some(ElicitationAnswer::Decline))));
    assert_eq!(declined.result.as_ref().map_err(ToolError::kind), Err("not_approved"));
    assert_eq!(
        declined.result.unwrap_err().to_string(),
        "The person using the agent did not approve running 'write_path' (they declined, or their client cannot ask \
         them), so it was not run. Do not call it again unless they ask you to."
    );
}

#[test]
fn tools_that_change_nothing_and_tools_not_named_run_without_asking() {
    let folder = tempfile::tempdir().expect("a folder");
    // Read-only: the hints say the hostile guest's tools destroy nothing.
    let read_only = Host::builder()
        .component_file(test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .approval(Approval::destructive_tools())
        .build()
        .expect("the host builds");
    assert_eq!(read_only.call("echo", &json!({"text": "hi"})), Ok(json!("hi")));
    // Named tools ask, others do not.
    let named = host_writing_to(folder.path(), Approval::default().tools(["write_*"]));
    assert_eq!(named.call("echo", &json!({"text": "hi"})), Ok(json!("hi")));
    assert_eq!(reason(&write(&named, "x.txt", None)), Unapproved::NoOneToAsk);
    let error =
        Host::builder().component_file(test_guest("hostile")).approval(Approval::default().tools(["["])).build();
    assert!(
        matches!(error, Err(toolhost::LoadError::Policy { ref name, .. }) if name == "approval"),
        "{:?}",
        error.err()
    );
}

#[test]
fn a_tool_its_manifest_marks_asks_whatever_the_host_says() {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    // Read-only and marked: no approval is set on the host, and its hints destroy nothing.
    std::fs::write(folder.path().join("hostile.toml"), "[tools.env_var]\napproval = true\n").expect("the manifest");
    let host =
        Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("the host builds");
    assert_eq!(host.call("echo", &json!({"text": "hi"})), Ok(json!("hi")), "a tool not marked runs");
    let arguments = json!({"name": "HOME"});
    let env_var = |person: Option<Arc<Person>>| {
        let request = host.request("env_var").arguments(&arguments);
        match person {
            Some(person) => request.observer(person).run(),
            None => request.run(),
        }
    };
    assert_eq!(reason(&env_var(None)), Unapproved::NoOneToAsk);
    assert_eq!(reason(&env_var(Some(Person::answering(Some(ElicitationAnswer::Decline))))), Unapproved::Declined);
    let yes = env_var(Some(Person::answering(Some(ElicitationAnswer::Accept(json!({"approve": true}))))));
    assert_eq!((yes.result, yes.approved), (Ok(Value::Null), true));
}

/// An rmcp client whose person approves a call whose arguments say `yes`, and
/// declines every other.
#[derive(Clone, Default)]
struct Approving;

impl rmcp::ClientHandler for Approving {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.capabilities = serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("capabilities");
        info
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let question = serde_json::to_value(&request).expect("JSON");
        let answer = match question["message"].as_str().unwrap_or_default().contains("\"yes\"") {
            true => json!({"action": "accept", "content": {"approve": true}}),
            false => json!({"action": "decline"}),
        };
        Ok(serde_json::from_value(answer).expect("an answer"))
    }
}

#[test]
fn rmcp_clients_approve_and_decline_in_a_session_and_in_stateless_rounds() {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};

    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let config = folder.path().join("toolhost.toml");
    std::fs::write(&config, "[approval]\ntools = [\"echo\"]\nwait_s = 20\n").expect("write the config");
    let server = crate::http::Server::start(folder.path(), &["--config", config.to_str().expect("UTF-8")]);
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
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url());
            let client = Approving.serve_with_lifecycle(transport, lifecycle).await.expect("connects");
            let mut texts = Vec::new();
            for text in ["yes", "no"] {
                let call = crate::http::call("echo", json!({ "text": text }));
                let result = client.call_tool(call).await.expect("tools/call");
                let shown = serde_json::to_value(&result.content).expect("JSON")[0]["text"].clone();
                texts.push((result.is_error, shown));
            }
            let declined = "The person using the agent did not approve running 'echo' (they declined, or their \
                            client cannot ask them), so it was not run. Do not call it again unless they ask you to.";
            assert_eq!(texts, [(Some(false), json!("\"yes\"")), (Some(true), json!(declined))], "{revision}");
            let _ = client.cancel().await;
        });
    }
}
