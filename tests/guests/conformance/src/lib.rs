//! Test guest: the tools the MCP conformance suite's server scenarios call, built
//! from the scenario descriptions in `@modelcontextprotocol/conformance`.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

use std::time::Duration;

use exports::toolhost::tool::prompts::{Argument, Message, Prompt, Role};
use exports::toolhost::tool::resources::{Entry, Template};
use toolhost::tool::content::{Block, Contents, EmbeddedResource, Media};
use toolhost_guest::elicit::Answer;
use toolhost_guest::{content, elicit, log, progress, sample};

toolhost_guest::generate!({ world: "conformance", generate_all });

/// The pause between two reports of the logging and progress tools.
const PAUSE: Duration = Duration::from_millis(50);
/// How long the tasks scenarios' tools work around their questions: longer than the
/// patience scripts/conformance.sh gives a call before it becomes a task.
const WORK: Duration = Duration::from_millis(500);

/// How long scripts/conformance.sh lets a call's event stream stay open (and a
/// resumed one): `test_reconnection` works for one and a half times this, so that its
/// answer comes on the stream its client resumes.
const STREAMED_FOR: Duration = Duration::from_millis(300);

/// A 1x1 red PNG image.
const RED_PIXEL: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file of `samples` silent 8-bit mono samples at 8 kHz.
fn silent_wav(samples: u32) -> Vec<u8> {
    let mut wav = Vec::with_capacity(44 + samples as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    // A PCM format chunk: 16 bytes, format 1, 1 channel, 8,000 Hz, 8,000 bytes/s, 1-byte frames of 8 bits.
    for field in [&16u32.to_le_bytes()[..], &1u16.to_le_bytes(), &1u16.to_le_bytes(), &8000u32.to_le_bytes()] {
        wav.extend_from_slice(field);
    }
    for field in [&8000u32.to_le_bytes()[..], &1u16.to_le_bytes(), &8u16.to_le_bytes()] {
        wav.extend_from_slice(field);
    }
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&samples.to_le_bytes());
    wav.resize(44 + samples as usize, 0x80);
    wav
}

struct Conformance;

impl Guest for Conformance {
    fn test_simple_text() -> String {
        "This is a simple text response for testing.".to_string()
    }

    fn test_tool_with_logging() -> String {
        log::info("Tool execution started");
        std::thread::sleep(PAUSE);
        log::info("Tool processing data");
        std::thread::sleep(PAUSE);
        log::info("Tool execution completed");
        "Tool with logging executed successfully".to_string()
    }

    fn test_tool_with_progress() -> String {
        for (step, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if step > 0 {
                std::thread::sleep(PAUSE);
            }
            progress::report(done, Some(100.0), None);
        }
        "Tool with progress executed successfully".to_string()
    }

    fn test_error_handling() -> Result<String, String> {
        Err("This tool intentionally returns an error for testing".to_string())
    }

    fn test_image_content() {
        content::image(&RED_PIXEL, "image/png");
    }

    fn test_audio_content() {
        content::audio(&silent_wav(800), "audio/wav");
    }

    fn test_embedded_resource() {
        content::embedded_text("test://embedded-resource", Some("text/plain"), "This is an embedded resource content.");
    }

    fn test_sampling(prompt: String) -> Result<String, String> {
        sample::ask(&prompt, 100).map(|reply| format!("LLM response: {reply}"))
    }

    fn test_elicitation(message: String) -> String {
        let schema = r#"{"type": "object", "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        }, "required": ["username", "email"]}"#;
        format!("User response: {}", described(elicit::ask(&message, schema)))
    }

    fn test_elicitation_sep1034_defaults() -> String {
        let schema = r#"{"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }}"#;
        format!(
            "Elicitation completed: {}",
            described(elicit::ask("Please review and update the form fields with defaults", schema))
        )
    }

    fn test_elicitation_sep1330_enums() -> String {
        let schema = r#"{"type": "object", "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}]}}
        }}"#;
        format!(
            "Elicitation completed: {}",
            described(elicit::ask("Please select options from the enum fields", schema))
        )
    }

    fn greet(name: String) -> String {
        format!("Hello, {name}!")
    }

    fn slow_compute(seconds: u32, label: String) -> String {
        std::thread::sleep(Duration::from_secs(u64::from(seconds)));
        format!("Computed '{label}' in {seconds} s")
    }

    fn failing_job() -> Result<String, String> {
        std::thread::sleep(Duration::from_secs(1));
        Err("The job failed: its input is missing".to_string())
    }

    fn protocol_error_job() -> String {
        std::thread::sleep(Duration::from_secs(1));
        panic!("the job broke down")
    }

    fn confirm_delete(filename: String) -> String {
        std::thread::sleep(WORK);
        let schema = r#"{"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}"#;
        match elicit::ask(&format!("Delete {filename}?"), schema) {
            Answer::Accept(values) if values.contains("true") => format!("Deleted {filename}"),
            _ => format!("Kept {filename}"),
        }
    }

    fn test_tool_with_task() -> String {
        let schema = r#"{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}"#;
        let answer = elicit::ask("What is your name?", schema);
        std::thread::sleep(WORK);
        match answer {
            Answer::Accept(values) => format!("Hello! You answered {values}"),
            _ => "Hello, stranger!".to_string(),
        }
    }

    fn test_reconnection() -> String {
        std::thread::sleep(STREAMED_FOR + STREAMED_FOR / 2);
        "Reconnection test completed successfully".to_string()
    }

    fn test_multiple_content_types() {
        content::text("Multiple content types test:");
        content::image(&RED_PIXEL, "image/png");
        let json = r#"{"test":"data","value":123}"#;
        content::embedded_text("test://mixed-content-resource", Some("application/json"), json);
    }
}

/// What the user did, as the conformance scenarios word it.
fn described(answer: Answer) -> String {
    match answer {
        Answer::Accept(values) => format!("action=accept, content={values}"),
        Answer::Decline => "action=decline, content={}".to_string(),
        Answer::Cancel => "action=cancel, content={}".to_string(),
    }
}

impl exports::toolhost::tool::resources::Guest for Conformance {
    fn list() -> Vec<Entry> {
        let resource = |uri: &str, name: &str, description: &str, mime_type: &str| Entry {
            uri: uri.to_string(),
            name: name.to_string(),
            title: None,
            description: Some(description.to_string()),
            mime_type: Some(mime_type.to_string()),
        };
        vec![
            resource("test://static-text", "static-text", "A fixed text", "text/plain"),
            resource("test://static-binary", "static-binary", "A one-pixel PNG image", "image/png"),
            resource("test://watched-resource", "watched-resource", "A resource to subscribe to", "text/plain"),
        ]
    }

    fn templates() -> Vec<Template> {
        vec![Template {
            uri_template: "test://template/{id}/data".to_string(),
            name: "template-data".to_string(),
            title: None,
            description: Some("The data of one item, by its id".to_string()),
            mime_type: Some("application/json".to_string()),
        }]
    }

    fn read(uri: String) -> Result<Vec<EmbeddedResource>, String> {
        let contents = match uri.as_str() {
            "test://static-text" => Contents::Text("This is the content of the static text resource.".to_string()),
            "test://static-binary" => Contents::Blob(RED_PIXEL.to_vec()),
            // What a manifest's `[env]` gives it, so that a reload can change it.
            "test://watched-resource" => Contents::Text(
                std::env::var("WATCHED_RESOURCE").unwrap_or_else(|_| "Watched resource content".to_string()),
            ),
            other => match other.strip_prefix("test://template/").and_then(|rest| rest.strip_suffix("/data")) {
                Some(id) if !id.is_empty() && !id.contains('/') => {
                    Contents::Text(format!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#))
                }
                _ => return Err(format!("no resource at '{uri}'")),
            },
        };
        let mime_type = match (&contents, uri.starts_with("test://template/")) {
            (Contents::Blob(_), _) => "image/png",
            (_, true) => "application/json",
            _ => "text/plain",
        };
        Ok(vec![EmbeddedResource { uri, mime_type: Some(mime_type.to_string()), contents }])
    }
}

impl exports::toolhost::tool::prompts::Guest for Conformance {
    fn list() -> Vec<Prompt> {
        let argument = |name: &str, description: &str| Argument {
            name: name.to_string(),
            description: Some(description.to_string()),
            required: true,
        };
        let prompt = |name: &str, description: &str, arguments: Vec<Argument>| Prompt {
            name: name.to_string(),
            title: None,
            description: Some(description.to_string()),
            arguments,
        };
        vec![
            prompt("test_simple_prompt", "A prompt without arguments", vec![]),
            prompt(
                "test_prompt_with_arguments",
                "A prompt with two arguments",
                vec![argument("arg1", "First test argument"), argument("arg2", "Second test argument")],
            ),
            prompt(
                "test_prompt_with_embedded_resource",
                "A prompt with a resource in it",
                vec![argument("resourceUri", "URI of the resource to embed")],
            ),
            prompt("test_prompt_with_image", "A prompt with an image in it", vec![]),
        ]
    }

    fn get(name: String, arguments: Vec<(String, String)>) -> Result<Vec<Message>, String> {
        let argument = |wanted: &str| {
            arguments
                .iter()
                .find(|(name, _)| name == wanted)
                .map(|(_, value)| value.clone())
                .ok_or_else(|| format!("the argument '{wanted}' is missing"))
        };
        let user = |content: Block| Message { role: Role::User, content };
        let text = |text: &str| user(Block::Text(text.to_string()));
        Ok(match name.as_str() {
            "test_simple_prompt" => vec![text("This is a simple prompt for testing.")],
            "test_prompt_with_arguments" => {
                let (arg1, arg2) = (argument("arg1")?, argument("arg2")?);
                vec![text(&format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"))]
            }
            "test_prompt_with_embedded_resource" => vec![
                user(Block::Embedded(EmbeddedResource {
                    uri: argument("resourceUri")?,
                    mime_type: Some("text/plain".to_string()),
                    contents: Contents::Text("Embedded resource content for testing.".to_string()),
                })),
                text("Please process the embedded resource above."),
            ],
            "test_prompt_with_image" => vec![
                user(Block::Image(Media { data: RED_PIXEL.to_vec(), mime_type: "image/png".to_string() })),
                text("Please analyze the image above."),
            ],
            other => return Err(format!("no prompt named '{other}'")),
        })
    }

    fn complete(name: String, argument: String, value: String) -> Vec<String> {
        let candidates: &[&str] = match (name.as_str(), argument.as_str()) {
            ("test_prompt_with_arguments", "arg1") => &["paris", "park", "party"],
            ("test://template/{id}/data", "id") => &["1", "2", "3", "123"],
            _ => &[],
        };
        candidates.iter().filter(|candidate| candidate.starts_with(&value)).map(|c| c.to_string()).collect()
    }
}

export!(Conformance);
