//! What a tool returns besides its value reaches its caller: images, audio and
//! resources (`toolhost:tool/content`) as MCP content blocks, a tool that returns
//! nothing sending its blocks alone; in each provider's tool-result format as far as
//! that carries them; passed on from an MCP server plugin (the MCP project's
//! `everything` server). More than the result limit fails the call, saying so, and
//! the host serves on.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use toolhost::{Content, Host, ToolError, ToolFormat};

use crate::common;
use crate::mcp::Client;
use crate::mcp_servers::server_entry;

/// The bytes a base64 `data` or `blob` field holds.
fn decoded(field: &Value) -> Vec<u8> {
    STANDARD.decode(field.as_str().expect("base64 text")).expect("valid base64")
}

fn content_of(answer: &Value) -> Vec<Value> {
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    answer["result"]["content"].as_array().cloned().expect("content blocks")
}

#[test]
fn images_audio_and_resources_reach_an_mcp_client_as_content_blocks() {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(common::test_guest("conformance"), folder.path().join("conformance.wasm")).expect("copy");
    let mut client = Client::start_with(folder.path(), &[]);
    client.initialize();

    let image = content_of(&client.request(2, "tools/call", json!({"name": "test_image_content", "arguments": {}})));
    assert_eq!(image.len(), 1, "a tool that returns nothing sends its blocks alone: {image:?}");
    assert_eq!((&image[0]["type"], &image[0]["mimeType"]), (&json!("image"), &json!("image/png")));
    assert!(decoded(&image[0]["data"]).starts_with(b"\x89PNG\r\n\x1a\n"));

    let audio = content_of(&client.request(3, "tools/call", json!({"name": "test_audio_content", "arguments": {}})));
    let wav = decoded(&audio[0]["data"]);
    assert_eq!((&audio[0]["type"], &audio[0]["mimeType"]), (&json!("audio"), &json!("audio/wav")));
    assert_eq!((&wav[..4], &wav[8..12], wav.len()), (&b"RIFF"[..], &b"WAVE"[..], 844));

    let mixed =
        content_of(&client.request(4, "tools/call", json!({"name": "test_multiple_content_types", "arguments": {}})));
    let kinds: Vec<&Value> = mixed.iter().map(|block| &block["type"]).collect();
    assert_eq!(kinds, [&json!("text"), &json!("image"), &json!("resource")]);
    assert_eq!(mixed[0]["text"], "Multiple content types test:");
    let resource = json!({
        "uri": "test://mixed-content-resource",
        "mimeType": "application/json",
        "text": "{\"test\":\"data\",\"value\":123}"
    });
    assert_eq!(mixed[2]["resource"], resource);

    // A value comes first, as its JSON text, as before.
    let text = content_of(&client.request(5, "tools/call", json!({"name": "test_simple_text", "arguments": {}})));
    assert_eq!(text, [json!({"type": "text", "text": "\"This is a simple text response for testing.\""})]);
}

#[test]
fn each_provider_format_carries_what_it_can_of_a_result() {
    let host = Host::builder()
        .component_file(common::test_guest("conformance"))
        .cache_dir(common::test_cache_dir())
        .build()
        .expect("the conformance guest loads");
    let outcome = host.request("test_multiple_content_types").arguments(&json!({})).run();
    assert_eq!(outcome.result, Ok(Value::Null));
    assert_eq!(outcome.content.len(), 3);
    assert_eq!(outcome.content[0], Content::text("Multiple content types test:"));

    let anthropic = outcome.tool_result(ToolFormat::Anthropic);
    assert_eq!(anthropic[0], json!({"type": "text", "text": "Multiple content types test:"}));
    assert_eq!(anthropic[1]["type"], "image");
    assert_eq!(anthropic[1]["source"]["media_type"], "image/png");
    assert!(decoded(&anthropic[1]["source"]["data"]).starts_with(b"\x89PNG"));
    let resource = anthropic[2]["text"].as_str().expect("the resource as text");
    assert_eq!(resource, "[resource test://mixed-content-resource]\n{\"test\":\"data\",\"value\":123}");

    let responses = outcome.tool_result(ToolFormat::OpenAiResponses);
    assert_eq!(responses[1]["type"], "input_image");
    assert!(responses[1]["image_url"].as_str().is_some_and(|url| url.starts_with("data:image/png;base64,iVBOR")));

    let chat = outcome.tool_result(ToolFormat::OpenAiChat);
    let chat = chat.as_str().expect("OpenAI chat takes text");
    assert!(chat.starts_with("Multiple content types test:\n[image: image/png, 69 bytes]\n"), "{chat}");

    let failed = host.request("test_error_handling").arguments(&json!({})).run();
    let message = "This tool intentionally returns an error for testing";
    assert_eq!(failed.tool_result(ToolFormat::OpenAiChat), json!(message));
    assert_eq!(failed.tool_result(ToolFormat::Mcp), json!([{"type": "text", "text": message}]));
}

#[test]
fn content_beyond_the_result_limit_fails_the_call_saying_so_and_the_host_serves_on() {
    let limits = common::with(toolhost::Limits::default(), |limits| limits.result_bytes = 64 << 10);
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .limits(limits)
        .build()
        .expect("hostile loads");
    let within = host.request("add_images").arguments(&json!({"count": 2, "size": 1000})).run();
    assert_eq!((within.result, within.content.len()), (Ok(json!(2)), 2));

    // One image too large, and a flood of empty ones, each past 64 KiB in all.
    for arguments in [json!({"count": 1, "size": 100_000}), json!({"count": 100_000, "size": 0})] {
        let outcome = host.request("add_images").arguments(&arguments).run();
        let error = outcome.result.expect_err("past the limit");
        assert!(matches!(error, ToolError::ResultTooLarge { limit_bytes: 65536, .. }), "{error:?}");
        assert!(error.to_string().starts_with("Tool 'add_images' returned a result larger than its limit"), "{error}");
        assert!(outcome.content.is_empty());
    }
    assert_eq!(host.call("echo", &json!({"text": "after"})), Ok(json!("after")));
}

#[test]
fn an_mcp_server_plugins_image_reaches_the_mcp_client_in_its_place() {
    let folder = tempfile::tempdir().expect("a folder");
    let server = format!("command = [\"node\", {:?}, \"stdio\"]\n", server_entry("server-everything"));
    std::fs::write(folder.path().join("everything.mcp.toml"), server).expect("write");
    let mut client = Client::start_with(folder.path(), &[]);
    client.initialize();
    let answer = client.request(2, "tools/call", json!({"name": "get-tiny-image", "arguments": {}}));
    let blocks = content_of(&answer);
    let kinds: Vec<&Value> = blocks.iter().map(|block| &block["type"]).collect();
    assert_eq!(kinds, [&json!("text"), &json!("image"), &json!("text")], "{answer}");
    assert_eq!(blocks[0]["text"], "Here's the image you requested:");
    assert_eq!(blocks[1]["mimeType"], "image/png");
    assert!(decoded(&blocks[1]["data"]).starts_with(b"\x89PNG"));
}
