//! What a component offers besides tools (`toolhost:tool/resources` and `/prompts`,
//! exported by the conformance guest) reaches an MCP client: resources listed and
//! read (by URI and through a template), prompts listed and got with their
//! arguments, argument completion; an unknown URI or prompt is an error naming it;
//! a prompt name two components share is qualified; the capabilities are declared
//! only when a component has them; after a reload, a client hears which resources it
//! subscribed to read differently.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common;
use crate::mcp::Client;

/// A stdio session over copies of the conformance guest named `names`.
fn session(names: &[&str]) -> (tempfile::TempDir, Client, Value) {
    let folder = tempfile::tempdir().expect("a folder");
    for name in names {
        std::fs::copy(common::test_guest("conformance"), folder.path().join(format!("{name}.wasm"))).expect("copy");
    }
    let mut client = Client::start_with(folder.path(), &[]);
    let init = client.initialize();
    (folder, client, init)
}

#[test]
fn resources_are_listed_and_read_by_uri_and_through_a_template() {
    let (_folder, mut client, init) = session(&["conformance"]);
    assert_eq!(init["result"]["capabilities"]["resources"], json!({"subscribe": true, "listChanged": true}));
    let listed = client.request(2, "resources/list", json!({}));
    let uris: Vec<&Value> =
        listed["result"]["resources"].as_array().expect("resources").iter().map(|r| &r["uri"]).collect();
    assert_eq!(uris, [&json!("test://static-text"), &json!("test://static-binary"), &json!("test://watched-resource")]);
    assert_eq!(listed["result"]["resources"][1]["mimeType"], "image/png");
    let templates = client.request(3, "resources/templates/list", json!({}));
    assert_eq!(templates["result"]["resourceTemplates"][0]["uriTemplate"], "test://template/{id}/data");

    let text = client.request(4, "resources/read", json!({"uri": "test://static-text"}));
    let expected = json!({"uri": "test://static-text", "mimeType": "text/plain",
                          "text": "This is the content of the static text resource."});
    assert_eq!(text["result"]["contents"], json!([expected]));
    let binary = client.request(5, "resources/read", json!({"uri": "test://static-binary"}));
    let blob = binary["result"]["contents"][0]["blob"].as_str().expect("a blob");
    assert!(STANDARD.decode(blob).expect("base64").starts_with(b"\x89PNG"));
    let templated = client.request(6, "resources/read", json!({"uri": "test://template/42/data"}));
    let data = templated["result"]["contents"][0]["text"].as_str().expect("text");
    assert_eq!(serde_json::from_str::<Value>(data).expect("JSON")["data"], "Data for ID: 42");

    let unknown = client.request(7, "resources/read", json!({"uri": "test://nothing"}));
    assert_eq!(unknown["error"]["code"], -32002, "{unknown}");
    assert!(unknown["error"]["message"].as_str().is_some_and(|m| m.contains("test://nothing")), "{unknown}");
    let subscribed = client.request(8, "resources/subscribe", json!({"uri": "test://watched-resource"}));
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
}

#[test]
fn prompts_are_listed_got_with_arguments_and_completed() {
    let (_folder, mut client, init) = session(&["conformance"]);
    assert_eq!(init["result"]["capabilities"]["prompts"], json!({"listChanged": true}));
    let listed = client.request(2, "prompts/list", json!({}));
    let prompts = listed["result"]["prompts"].as_array().expect("prompts").clone();
    assert_eq!(prompts.len(), 4);
    let with_arguments = prompts.iter().find(|p| p["name"] == "test_prompt_with_arguments").expect("listed");
    assert_eq!(
        with_arguments["arguments"][0],
        json!({"name": "arg1", "description": "First test argument", "required": true})
    );

    let got = client.request(
        3,
        "prompts/get",
        json!({"name": "test_prompt_with_arguments",
                                                      "arguments": {"arg1": "hello", "arg2": "world"}}),
    );
    let message = json!({"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='hello', arg2='world'"}});
    assert_eq!(got["result"]["messages"], json!([message]), "{got}");
    let image = client.request(4, "prompts/get", json!({"name": "test_prompt_with_image"}));
    assert_eq!(image["result"]["messages"][0]["content"]["type"], "image", "{image}");
    assert_eq!(image["result"]["messages"][0]["content"]["mimeType"], "image/png");

    let missing =
        client.request(5, "prompts/get", json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "x"}}));
    assert!(
        missing["error"]["message"].as_str().is_some_and(|m| m.contains("the argument 'arg2' is missing")),
        "{missing}"
    );
    let unknown = client.request(6, "prompts/get", json!({"name": "no_such_prompt"}));
    assert!(unknown["error"]["message"].as_str().is_some_and(|m| m.contains("no_such_prompt")), "{unknown}");

    let completed = client.request(
        7,
        "completion/complete",
        json!({
        "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1", "value": "par"}}),
    );
    assert_eq!(completed["result"]["completion"]["values"], json!(["paris", "park", "party"]), "{completed}");
    let template = client.request(
        8,
        "completion/complete",
        json!({
        "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
        "argument": {"name": "id", "value": "12"}}),
    );
    assert_eq!(template["result"]["completion"]["values"], json!(["123"]), "{template}");
}

#[test]
fn a_prompt_name_two_components_share_is_qualified_and_each_is_got_from_its_own() {
    let (_folder, mut client, _) = session(&["first", "second"]);
    let listed = client.request(2, "prompts/list", json!({}));
    let names: Vec<&str> =
        listed["result"]["prompts"].as_array().expect("prompts").iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.contains(&"first.test_simple_prompt") && names.contains(&"second.test_simple_prompt"), "{names:?}");
    let got = client.request(3, "prompts/get", json!({"name": "second.test_simple_prompt"}));
    assert_eq!(got["result"]["messages"][0]["content"]["text"], "This is a simple prompt for testing.", "{got}");
}

#[test]
fn a_host_without_resources_or_prompts_declares_neither() {
    let mut client = Client::start_with(&common::plugins_dir(), &[]);
    let init = client.initialize();
    let capabilities = &init["result"]["capabilities"];
    assert!(capabilities.get("resources").is_none() && capabilities.get("prompts").is_none(), "{capabilities}");
    assert!(capabilities.get("completions").is_none(), "{capabilities}");
}

#[test]
fn an_mcp_server_plugins_resources_and_prompts_are_passed_through_beside_a_components() {
    let (folder, _, _) = session(&["conformance"]);
    let server =
        format!("command = [\"node\", {:?}, \"stdio\"]\n", crate::mcp_servers::server_entry("server-everything"));
    std::fs::write(folder.path().join("everything.mcp.toml"), server).expect("write");
    let mut client = Client::start_with(folder.path(), &[]);
    client.initialize();

    let listed = client.request(2, "resources/list", json!({}));
    let uris: Vec<&str> =
        listed["result"]["resources"].as_array().expect("resources").iter().filter_map(|r| r["uri"].as_str()).collect();
    assert!(uris.contains(&"test://static-text"), "{uris:?}");
    assert!(uris.iter().any(|uri| uri.starts_with("demo://resource/static/document/")), "{uris:?}");
    let read = client.request(3, "resources/read", json!({"uri": "demo://resource/dynamic/text/7"}));
    assert_eq!(read["result"]["contents"][0]["uri"], "demo://resource/dynamic/text/7", "{read}");
    assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");

    let prompts = client.request(4, "prompts/list", json!({}));
    let names: Vec<&str> =
        prompts["result"]["prompts"].as_array().expect("prompts").iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.contains(&"simple-prompt") && names.contains(&"test_simple_prompt"), "{names:?}");
    let got = client.request(5, "prompts/get", json!({"name": "simple-prompt"}));
    assert_eq!(got["result"]["messages"][0]["content"]["text"], "This is a simple prompt without arguments.", "{got}");
    let completed = client.request(
        6,
        "completion/complete",
        json!({
        "ref": {"type": "ref/prompt", "name": "completable-prompt"},
        "argument": {"name": "department", "value": "Eng"}}),
    );
    assert_eq!(completed["result"]["completion"]["values"], json!(["Engineering"]), "{completed}");
}

/// Gives the conformance guest in `folder` the variable its `test://watched-resource`
/// reads (a manifest change, which a watching server reloads).
fn watch_value(folder: &Path, value: &str) {
    let part = folder.join(".conformance.toml.part");
    std::fs::write(&part, format!("[env]\nWATCHED_RESOURCE = {value:?}\n")).expect("write");
    std::fs::rename(part, folder.join("conformance.toml")).expect("rename");
}

fn updates(messages: &[Value]) -> Vec<&Value> {
    let updated = messages.iter().filter(|m| m["method"] == "notifications/resources/updated");
    updated.map(|m| &m["params"]["uri"]).collect()
}

#[test]
fn after_a_reload_a_client_hears_which_subscribed_resources_read_differently() {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(common::test_guest("conformance"), folder.path().join("conformance.wasm")).expect("copy");
    watch_value(folder.path(), "first");
    let mut client = Client::start_with(folder.path(), &["--watch"]);
    client.initialize();
    let watched = json!({"uri": "test://watched-resource"});
    // Subscribed to both; only the watched one will read differently.
    assert_eq!(client.request(2, "resources/subscribe", json!({"uri": "test://static-text"}))["result"], json!({}));
    assert_eq!(client.request(3, "resources/subscribe", watched.clone())["result"], json!({}));
    assert_eq!(client.request(4, "resources/read", watched.clone())["result"]["contents"][0]["text"], "first");

    watch_value(folder.path(), "second");
    let updated = client.notification("notifications/resources/updated", Duration::from_secs(20));
    assert_eq!(updated["params"]["uri"], "test://watched-resource");
    let before = client.answered();
    let methods: Vec<&Value> = before.iter().map(|m| &m["method"]).collect();
    for list in ["tools", "resources", "prompts"] {
        assert!(methods.contains(&&json!(format!("notifications/{list}/list_changed"))), "{methods:?}");
    }
    // Subscriptions are told of in URI order: static-text's would have come first.
    assert!(updates(&before).is_empty(), "{before:?}");
    assert_eq!(client.request(5, "resources/read", watched.clone())["result"]["contents"][0]["text"], "second");

    // Once unsubscribed, no more news of it: the reload after next shows what the
    // next one sent (a session is told of one reload after the other).
    assert_eq!(client.request(6, "resources/unsubscribe", watched.clone())["result"], json!({}));
    client.answered();
    watch_value(folder.path(), "third");
    client.notification("notifications/tools/list_changed", Duration::from_secs(20));
    assert_eq!(client.request(7, "resources/read", watched.clone())["result"]["contents"][0]["text"], "third");
    watch_value(folder.path(), "fourth");
    client.notification("notifications/tools/list_changed", Duration::from_secs(20));
    let after = client.answered();
    assert!(updates(&after).is_empty(), "{after:?}");
}

#[test]
fn a_session_subscribes_to_at_most_a_thousand_resources() {
    let (_folder, mut client, _) = session(&["conformance"]);
    for id in 0..1_000u64 {
        let uri = format!("test://template/{id}/data");
        let subscribed = client.request(id + 2, "resources/subscribe", json!({"uri": uri}));
        assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    }
    let refused = client.request(1_002, "resources/subscribe", json!({"uri": "test://static-text"}));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(refused["error"]["message"].as_str().is_some_and(|m| m.contains("at most 1000")), "{refused}");
    // One already subscribed to is no new one; after an unsubscribe there is room.
    let again = client.request(1_003, "resources/subscribe", json!({"uri": "test://template/7/data"}));
    assert_eq!(again["result"], json!({}), "{again}");
    client.request(1_004, "resources/unsubscribe", json!({"uri": "test://template/7/data"}));
    let room = client.request(1_005, "resources/subscribe", json!({"uri": "test://static-text"}));
    assert_eq!(room["result"], json!({}), "{room}");
}
