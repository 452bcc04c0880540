//! The rig adapter (`rig/`) inside a rig agent's own loop: a
//! `rig_agent::Agent` whose model is OpenAI's chat completions API, served by a
//! scripted server in the test that answers each request with the next scripted
//! reply (tool calls with the slips models make, then text) and keeps every request,
//! so the tests read what rig sent back to the model. The tools are the example
//! components and, for dotted names, an MCP server plugin (BFCL's `uber.ride`).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use serde_json::{Value, json};
use toolhost::Host;

use crate::common;

/// The scripted model: its replies still to give, and the requests it was sent.
#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Value>>,
    requests: Mutex<Vec<Value>>,
}

async fn complete(State(script): State<Arc<Script>>, Json(request): Json<Value>) -> Json<Value> {
    script.requests.lock().expect("the script").push(request);
    // Past the script, the model says so: a test reading it fails on its words.
    let reply = script.replies.lock().expect("the script").pop_front().unwrap_or_else(|| said("(the script ended)"));
    Json(json!({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "message": reply, "finish_reason": finish_reason(&reply)}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }))
}

fn finish_reason(message: &Value) -> &'static str {
    if message.get("tool_calls").is_some() { "tool_calls" } else { "stop" }
}

/// An assistant message of text.
fn said(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

/// An assistant message of tool calls: (id, name, argument text) each.
fn called(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

/// Serves `replies` on loopback until the runtime ends.
async fn serve(replies: Vec<Value>) -> (Arc<Script>, SocketAddr) {
    let script = Arc::new(Script { replies: Mutex::new(replies.into()), ..Script::default() });
    let app = Router::new().route("/v1/chat/completions", post(complete)).with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let address = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the scripted model serves") });
    (script, address)
}

/// Runs a rig agent with `host`'s tools and the repair hook on `prompt`, its model
/// the scripted `replies`: the agent's answer (or its error) and the requests it sent.
fn run_agent(host: &Host, prompt: &str, replies: Vec<Value>) -> (Result<String, String>, Vec<Value>) {
    run_agent_offering(host, None, prompt, replies)
}

/// [`run_agent`], its tools offered all at once or, with `retrieved`, that many of
/// them for each prompt, as the host's tool search picks them (rig's retrieved tools).
fn run_agent_offering(
    host: &Host,
    retrieved: Option<usize>,
    prompt: &str,
    replies: Vec<Value>,
) -> (Result<String, String>, Vec<Value>) {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let (script, address) = serve(replies).await;
        let openai = OpenAIConfig::new("test-key").with_base_url(format!("http://{address}/v1")).client();
        let builder = AgentBuilder::new(openai.chat("scripted"));
        let builder = match retrieved {
            None => builder.dynamic_tools(toolhost_rig::tools(host)),
            Some(most) => {
                builder.retrieved_tools(most, toolhost_rig::ToolIndex::new(host.clone()), toolhost_rig::toolset(host))
            }
        };
        let agent = builder.add_hook(toolhost_rig::RepairHook::new(host.clone())).build();
        // A retry (the hook's answer to a name no tool has) takes from this budget.
        let run = agent.prompt(prompt).max_turns(4).max_invalid_tool_call_retries(2);
        let answer = run.await.map(|r| r.to_string()).map_err(|e| e.to_string());
        let requests = script.requests.lock().expect("the script").clone();
        (answer, requests)
    })
}

/// The `tool` message answering call `id` in `request`, as rig wrote it.
fn tool_message<'a>(request: &'a Value, id: &str) -> &'a Value {
    let messages = request["messages"].as_array().expect("messages");
    let found = messages.iter().find(|m| m["role"] == "tool" && m["tool_call_id"] == id);
    found.unwrap_or_else(|| panic!("no tool message for {id} in {messages:#?}"))
}

/// Whether some text in `value` (a request) contains `text`.
fn mentions(value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s.contains(text),
        Value::Array(items) => items.iter().any(|item| mentions(item, text)),
        Value::Object(fields) => fields.values().any(|field| mentions(field, text)),
        _ => false,
    }
}

fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[test]
fn rig_offers_every_tool_by_the_name_providers_take_with_its_schema() {
    let host = common::example_host_shared();
    let tools = toolhost_rig::tools(host);
    assert_eq!(tools.len(), host.tools().len());
    for (tool, spec) in tools.iter().zip(host.tools()) {
        let definition = tool.definition();
        assert_eq!(Some(definition.name.to_string()), host.provider_name(&spec.name));
        assert_eq!(definition.description, spec.description);
        assert_eq!(definition.parameters, spec.parameters_schema());
    }
    let one = toolhost_rig::tool(host, "Evaluate").expect("a name that resolves");
    assert_eq!(one.name().as_str(), "evaluate");
    assert!(toolhost_rig::tool(host, "web_search").is_none());
}

#[test]
fn drifted_names_and_arguments_run_and_their_results_reach_the_model() {
    let host = common::example_host_shared();
    let replies = vec![
        called(&[
            // A name in another case, a number as text, null for an optional parameter.
            ("call_1", "Evaluate", r#"{"expression": "6*7"}"#),
            ("call_2", "factorial", r#"{"n": "5"}"#),
            ("call_3", "convert", r#"{"value": 5, "from": "kilometer", "to": "mile", "precision": null}"#),
        ]),
        said("42, 120 and about 3.1 miles."),
    ];
    let (answer, requests) = run_agent(host, "Work these out.", replies);
    assert_eq!(answer.as_deref(), Ok("42, 120 and about 3.1 miles."));
    assert_eq!(requests.len(), 2, "one request per model turn");
    let names: Vec<&str> = requests[0]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["function"]["name"].as_str().expect("a name"))
        .collect();
    assert!(names.contains(&"evaluate") && names.contains(&"convert"), "{names:?}");
    assert_eq!(text_of(tool_message(&requests[1], "call_1")), "42.0");
    assert_eq!(text_of(tool_message(&requests[1], "call_2")), "120");
    let miles: f64 = text_of(tool_message(&requests[1], "call_3")).parse().expect("a number");
    assert!((miles - 3.106_855_961).abs() < 1e-6, "{miles}");
}

#[test]
fn retrieved_tools_offer_the_model_only_the_tools_that_fit_the_prompt() {
    let host = common::example_host_shared();
    let replies = vec![
        called(&[("call_1", "convert", r#"{"value": 26.2, "from": "mile", "to": "kilometer", "precision": 1}"#)]),
        said("About 42.2 km."),
    ];
    let prompt = "Convert 26.2 miles to kilometres.";
    let (answer, requests) = run_agent_offering(host, Some(3), prompt, replies);
    assert_eq!(answer.as_deref(), Ok("About 42.2 km."));
    let offered: Vec<&str> = requests[0]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["function"]["name"].as_str().expect("a name"))
        .collect();
    let searched: Vec<String> = host.search_tools(prompt, 3).into_iter().map(|found| found.name).collect();
    assert_eq!(offered, searched, "the tools the search found for the prompt, in its order");
    assert_eq!(offered[0], "convert", "{offered:?}");
    assert!(offered.len() <= 3 && host.tools().len() > 30, "3 of {} tools: {offered:?}", host.tools().len());
    assert_eq!(text_of(tool_message(&requests[1], "call_1")), "42.2");
}

#[test]
fn a_failed_call_answers_the_model_with_the_corrective_message() {
    let host = common::example_host_shared();
    let expected = host.call("factorial", &json!({"n": 30})).expect_err("30! does not fit in 64 bits").to_string();
    let replies = vec![called(&[("call_1", "factorial", r#"{"n": 30}"#)]), said("It is too large.")];
    let (answer, requests) = run_agent(host, "What is 30!?", replies);
    assert_eq!(answer.as_deref(), Ok("It is too large."));
    assert!(text_of(tool_message(&requests[1], "call_1")).contains(&expected), "{:#}", requests[1]);
}

#[test]
fn a_name_no_tool_has_asks_the_model_again_with_the_tools_it_may_call() {
    let host = common::example_host_shared();
    let expected = host.resolve_name("web_search").expect_err("no such tool").to_string();
    let replies = vec![
        called(&[("call_1", "web_search", r#"{"query": "6*7"}"#)]),
        called(&[("call_2", "evaluate", r#"{"expression": "6*7"}"#)]),
        said("42."),
    ];
    let (answer, requests) = run_agent(host, "What is 6*7?", replies);
    assert_eq!(answer.as_deref(), Ok("42."));
    assert_eq!(requests.len(), 3);
    // The retry carries the host's message: the tools there are, the nearest name.
    assert!(mentions(&requests[1], &expected), "{:#}", requests[1]);
    assert_eq!(text_of(tool_message(&requests[2], "call_2")), "42.0");
}

#[test]
fn arguments_that_are_not_json_come_back_with_what_the_host_reads_them_as() {
    let host = common::example_host_shared();
    let replies = vec![
        called(&[("call_1", "evaluate", "{expression: '2+2'}")]),
        called(&[("call_2", "evaluate", r#"{"expression": "2+2"}"#)]),
        said("4."),
    ];
    let (answer, requests) = run_agent(host, "What is 2+2?", replies);
    assert_eq!(answer.as_deref(), Ok("4."));
    assert!(mentions(&requests[1], r#"again with these arguments: {"expression":"2+2"}"#), "{:#}", requests[1]);
    assert_eq!(text_of(tool_message(&requests[2], "call_2")), "4.0");
}

#[test]
fn an_image_a_tool_returns_reaches_the_model_as_an_image() {
    let host = common::example_host_shared();
    let urls = r#"{"urls": ["https://a.example/1", "https://b.example/2", "https://a.example/3"]}"#;
    let replies = vec![called(&[("call_1", "count_hosts", urls)]), said("a.example twice.")];
    let (answer, requests) = run_agent(host, "Which host comes most?", replies);
    assert_eq!(answer.as_deref(), Ok("a.example twice."));
    let text = text_of(tool_message(&requests[1], "call_1"));
    assert!(text.starts_with(r#"[["a.example",2],["b.example",1]]"#), "{text}");
    // OpenAI's chat API takes no image in a tool message: rig sends it beside.
    let images: Vec<&str> = requests[1]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter_map(|part| part["image_url"]["url"].as_str())
        .collect();
    assert!(matches!(images[..], [url] if url.starts_with("data:image/svg+xml;base64,")), "{:#}", requests[1]);
}

#[test]
fn a_dotted_mcp_name_the_model_writes_reaches_its_server_through_rig() {
    let folder = tempfile::tempdir().expect("a folder");
    let tools = json!([{"name": "uber.ride", "description": "Finds a ride.", "inputSchema": {
        "type": "object", "required": ["loc", "type", "time"],
        "properties": {"loc": {"type": "string"}, "type": {"type": "string"}, "time": {"type": "integer"}},
    }}]);
    let plugins = common::functions_server_plugins(folder.path(), "bfcl", &tools);
    let host = Host::builder().plugin_dir(&plugins).build().expect("the host loads");
    // As BFCL's accepted answer names it; rig was given `uber_ride`.
    let arguments = r#"{"loc": "Berkeley, CA", "type": "plus", "time": "10"}"#;
    let replies = vec![called(&[("call_1", "uber.ride", arguments)]), said("Booked.")];
    let (answer, requests) = run_agent(&host, "Get me a ride.", replies);
    assert_eq!(answer.as_deref(), Ok("Booked."));
    assert_eq!(requests[0]["tools"][0]["function"]["name"], "uber_ride");
    let received: Value =
        serde_json::from_str(&text_of(tool_message(&requests[1], "call_1"))).expect("the server's echo");
    assert_eq!(received["tool"], "uber.ride");
    assert_eq!(received["arguments"], json!({"loc": "Berkeley, CA", "type": "plus", "time": 10}));
}
