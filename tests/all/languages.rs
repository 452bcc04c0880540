//! Tools written in Rust, Python (componentize-py) and JavaScript (componentize-js)
//! behave the same through the host: listing with descriptions, calls, repairs and
//! every corrective message. Each test runs one table row per language.

use crate::common;

use std::sync::OnceLock;

use serde_json::{Value, json};
use toolhost::{Host, ToolError};

/// One language's example tool, and what each behaviour looks like for it.
struct Language {
    name: &'static str,
    component: &'static str,
    /// A tool, arguments that fit and the result they give.
    call: (&'static str, Value, Value),
    /// Names a model might send for `call.0`, each repaired to it.
    misspelt: [&'static str; 3],
    /// The arguments of `call` as text a model might write, repairable.
    sloppy_arguments: &'static str,
    /// The tool's description (from WIT docs for Rust, from the manifest otherwise).
    description: &'static str,
    /// A call the tool refuses with its own message, and that message.
    refused: (&'static str, Value, &'static str),
    /// A call with an enum parameter out of range: tool, arguments, the whole message.
    bad_enum: (&'static str, Value, &'static str),
    /// A call that makes the tool crash, and the reason the model is given.
    crash: (&'static str, Value, &'static str),
}

fn languages() -> [Language; 3] {
    [rust(), python(), javascript()]
}

/// The Rust example tool (`units`), with the `hostile` test guest for a panic.
fn rust() -> Language {
    Language {
        name: "Rust",
        component: "units",
        call: ("convert", json!({"value": 5, "from": "kilometer", "to": "meter"}), json!(5000.0)),
        misspelt: ["Convert", "functions.convert", "units/convert"],
        sloppy_arguments: "{'value': 5, 'from': 'kilometer', 'to': 'meter',}",
        description: "Converts a value from one unit to another of the same dimension, e.g. 5 kilometer to mile. \
                      Fails when the units measure different things or the temperature is below absolute zero.",
        refused: (
            "convert",
            json!({"value": 1, "from": "meter", "to": "gram"}),
            "cannot convert meter (length) to gram (mass): they measure different things",
        ),
        bad_enum: (
            "list_units",
            json!({"dimension": "volume"}),
            "Invalid arguments for 'list_units': 'dimension' must be one of ['length', 'mass', 'temperature', \
             'time'], got \"volume\".",
        ),
        crash: ("panic_with", json!({"message": "boom"}), "it panicked: boom"),
    }
}

/// The Python example tool (`stats-py`).
fn python() -> Language {
    Language {
        name: "Python",
        component: "stats-py",
        call: ("average", json!({"values": [1, 2, 3, 4], "kind": "median"}), json!(2.5)),
        misspelt: ["Average", "functions.average", "stats-py/average"],
        sloppy_arguments: "```json\n{'values': [1, 2, 3, 4], 'kind': 'median',}\n```",
        description: "The average of a list of numbers: mean, median or mode. Fails for an empty list.",
        refused: ("summarize", json!({"values": []}), "the list of values is empty: give at least one number"),
        bad_enum: (
            "average",
            json!({"values": [1], "kind": "harmonic"}),
            "Invalid arguments for 'average': 'kind' must be one of ['mean', 'median', 'mode'], got \"harmonic\".",
        ),
        crash: (
            "ratio",
            json!({"numerator": 1, "denominator": 0}),
            "it raised an uncaught exception: ZeroDivisionError: division by zero",
        ),
    }
}

/// The JavaScript example tool (`urls-js`).
fn javascript() -> Language {
    Language {
        name: "JavaScript",
        component: "urls-js",
        call: ("get_part", json!({"url": "https://example.com:8080/a?b=c", "part": "port"}), json!("8080")),
        misspelt: ["GetPart", "get-part", "default_api.get_part"],
        sloppy_arguments: "{url: 'https://example.com:8080/a?b=c', part: 'port'",
        description: "One part of an absolute URL as text: its scheme, host, port, path, query or fragment. \
                      Fails when the text is not an absolute URL.",
        refused: ("parse_url", json!({"url": "nope"}), "'nope' is not an absolute URL (like https://example.com/path)"),
        bad_enum: (
            "get_part",
            json!({"url": "https://example.com", "part": "username"}),
            "Invalid arguments for 'get_part': 'part' must be one of ['scheme', 'host', 'port', 'path', 'query', \
             'fragment'], got \"username\".",
        ),
        crash: ("decode", json!({"text": "%E0%A4%A"}), "it threw an uncaught error: malformed URI sequence"),
    }
}

/// The example tools plus the `hostile` test guest (for a Rust tool that panics).
fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        Host::builder()
            .plugin_dir(common::plugins_dir())
            .component_file(common::test_guest("hostile"))
            .cache_dir(common::test_cache_dir())
            .build()
            .expect("example tools load")
    })
}

#[test]
fn every_tool_is_listed_with_a_description_from_its_docs_or_manifest() {
    let tools = host().tools();
    for language in languages() {
        let own: Vec<_> = tools.iter().filter(|t| t.component == language.component).collect();
        assert!(own.len() >= 3, "{}: {} tools", language.name, own.len());
        for tool in &own {
            assert!(!tool.description.is_empty(), "{}: {} has no description", language.name, tool.name);
            for param in &tool.wit_function().expect("a component's tool").params {
                assert!(
                    param.description.is_some(),
                    "{}: {}.{} has no description",
                    language.name,
                    tool.name,
                    param.name
                );
            }
        }
        let tool = host().tool(language.call.0).expect("the tool is listed");
        assert_eq!(tool.description.replace('\n', " "), language.description, "{}", language.name);
    }
}

#[test]
fn toolchain_plumbing_is_not_a_tool() {
    // componentize-py exports an `exports` interface with `init`: not listed, not callable.
    let names: Vec<String> = host().tools().into_iter().map(|t| t.name).collect();
    assert!(!names.iter().any(|n| n == "init"), "{names:?}");
    match host().call("init", &json!({})) {
        Err(ToolError::UnknownTool { available_tools, .. }) => {
            assert!(!available_tools.iter().any(|n| n == "init"));
        }
        other => panic!("init should be unknown, got {other:?}"),
    }
}

#[test]
fn exact_calls_return_the_tools_result() {
    for Language { name, call: (tool, arguments, result), .. } in languages() {
        assert_eq!(host().call(tool, &arguments), Ok(result), "{name}");
    }
}

#[test]
fn misspelt_names_are_repaired() {
    for Language { name, call: (tool, arguments, result), misspelt, .. } in languages() {
        for wrong in misspelt {
            assert_eq!(host().call(wrong, &arguments), Ok(result.clone()), "{name}: {wrong} for {tool}");
        }
    }
}

#[test]
fn a_near_miss_name_gets_the_nearest_tool_and_the_inventory() {
    for Language { name, call: (tool, arguments, _), .. } in languages() {
        let typo = format!("{}x", &tool[..tool.len() - 1]);
        match host().call(&typo, &arguments) {
            Err(ToolError::UnknownTool { suggestion, available_tools, .. }) => {
                assert_eq!(suggestion.as_deref(), Some(tool), "{name}: {typo}");
                assert!(available_tools.iter().any(|t| t == tool), "{name}");
            }
            other => panic!("{name}: {typo} should be unknown, got {other:?}"),
        }
    }
}

#[test]
fn sloppy_argument_text_is_repaired() {
    for Language { name, call: (tool, _, result), sloppy_arguments, .. } in languages() {
        assert_eq!(host().request(tool).text(sloppy_arguments).run().result, Ok(result), "{name}: {sloppy_arguments}");
    }
}

#[test]
fn missing_arguments_get_the_expected_parameters() {
    for Language { name, call: (tool, _, _), .. } in languages() {
        let spec = host().tool(tool).expect("listed");
        let error = host().call(tool, &json!({})).expect_err("nothing given");
        let required: Vec<String> = spec.required_params().into_iter().map(String::from).collect();
        let quoted: Vec<String> = required.iter().map(|p| format!("'{p}'")).collect();
        let plural = if required.len() == 1 { "parameter" } else { "parameters" };
        assert_eq!(
            error.to_string(),
            format!(
                "Tool '{tool}' was called with missing required {plural} {}. {}",
                quoted.join(", "),
                spec.expected_parameters().hint(tool)
            ),
            "{name}"
        );
    }
}

#[test]
fn enum_values_out_of_range_list_the_allowed_values() {
    for Language { name, bad_enum: (tool, arguments, message), .. } in languages() {
        let error = host().call(tool, &arguments).expect_err("out of range");
        assert_eq!(error.kind(), "invalid_value", "{name}");
        assert_eq!(error.to_string(), message, "{name}");
    }
}

#[test]
fn the_tools_own_error_reaches_the_model_unchanged() {
    for Language { name, refused: (tool, arguments, message), .. } in languages() {
        assert_eq!(
            host().call(tool, &arguments),
            Err(ToolError::ToolFailed { tool: tool.to_string(), message: message.to_string() }),
            "{name}"
        );
    }
}

#[test]
fn a_crash_is_explained_in_the_languages_own_words_and_the_host_serves_on() {
    for Language { name, crash: (tool, arguments, reason), call: (good, good_arguments, result), .. } in languages() {
        assert_eq!(
            host().call(tool, &arguments),
            Err(ToolError::Crashed { tool: tool.to_string(), reason: reason.to_string() }),
            "{name}"
        );
        assert_eq!(host().call(good, &good_arguments), Ok(result), "{name}: after the crash");
    }
}
