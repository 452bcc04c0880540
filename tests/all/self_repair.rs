//! Self-repair: every case of the reference implementation's tests and every row of
//! `shared/reference/peer-observed.md`, against real components, full messages asserted.
//!
//! The reference registered `web_search(query, limit=5)` and `calculator(expression)`,
//! and in a second run also `websearch(q)` and `get_weather(city, unit="celsius")`: the
//! test guests `peer-search` and `peer-weather` export the same signatures.

use crate::common;

use std::sync::OnceLock;

use serde_json::{Value, json};
use toolhost::{ExpectedParameters, Host, ToolError, ToolsetError};

/// The first run's registry: web_search and calculator.
fn first_run() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        Host::builder()
            .component_file(common::test_guest("peer-search"))
            .cache_dir(common::test_cache_dir())
            .build()
            .expect("peer-search loads")
    })
}

/// The second run's registry: also websearch and get_weather.
fn second_run() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        Host::builder()
            .component_file(common::test_guest("peer-search"))
            .component_file(common::test_guest("peer-weather"))
            .cache_dir(common::test_cache_dir())
            .build()
            .expect("peer tools load")
    })
}

fn examples() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(common::example_host)
}

fn message(host: &Host, name: &str, arguments: Value) -> String {
    match host.request(name).arguments(&arguments).run().result {
        Ok(value) => panic!("{name}({arguments}) should fail, returned {value}"),
        Err(error) => error.to_string(),
    }
}

/// Asserts the call ran `tool` (after repair from `name` when they differ).
fn runs(host: &Host, name: &str, arguments: Value, tool: &str) -> Value {
    let outcome = host.request(name).arguments(&arguments).run();
    assert_eq!(outcome.tool.as_deref(), Some(tool), "{name} should run {tool}: {:?}", outcome.result);
    assert_eq!(outcome.repaired_from.as_deref(), (name != tool).then_some(name));
    outcome.result.unwrap_or_else(|e| panic!("{name}({arguments}) failed: {e}"))
}

const INVENTORY: &str = "Available tools: ['calculator', 'web_search']";

// --- names -----------------------------------------------------------------------

#[test]
fn a_mis_cased_name_runs() {
    let hello = json!(["Hello from the observatory: the night is clear."]);
    assert_eq!(runs(first_run(), "WebSearch", json!({"query": "hello"}), "web_search"), hello);
}

#[test]
fn separator_drift_runs() {
    for name in ["web-search", "WEB_SEARCH", "web search", "Web_Search"] {
        runs(first_run(), name, json!({"query": "orbits"}), "web_search");
    }
    runs(second_run(), "getWeather", json!({"city": "Oslo"}), "get_weather");
}

#[test]
fn surrounding_whitespace_of_any_kind_is_repaired() {
    for name in ["web_search\n", "\tweb_search", " web_search ", "web_search\r\n", "\u{a0}WebSearch\u{2003}"] {
        runs(first_run(), name, json!({"query": "orbits"}), "web_search");
    }
    runs(second_run(), " functions.get_weather\n", json!({"city": "Oslo"}), "get_weather");
    runs(first_run(), "\tpeer-search/web_search\n", json!({"query": "orbits"}), "web_search");
    assert_eq!(message(first_run(), " \t\n", json!({})), format!("Tool ' \t\n' not found. {INVENTORY}"));
}

#[test]
fn an_unknown_name_gets_the_sorted_inventory() {
    let error = first_run().call("totally_made_up_tool", &json!({})).expect_err("unknown");
    assert_eq!(error.to_string(), format!("Tool 'totally_made_up_tool' not found. {INVENTORY}"));
    assert_eq!(
        error.to_json(),
        json!({
            "error": format!("Tool 'totally_made_up_tool' not found. {INVENTORY}"),
            "kind": "unknown_tool",
            "name": "totally_made_up_tool",
            "suggestion": null,
            "available_tools": ["calculator", "web_search"],
            // Neither is like it by its words or its spelling.
            "nearest_tools": [],
        })
    );
}

#[test]
fn the_nearest_name_is_suggested_but_never_run() {
    assert_eq!(
        message(first_run(), "web_serch", json!({"query": "q"})),
        format!("Tool 'web_serch' not found. Did you mean 'web_search'? {INVENTORY}")
    );
    assert_eq!(
        message(first_run(), "calc", json!({"expression": "1+1"})),
        format!("Tool 'calc' not found. Did you mean 'calculator'? {INVENTORY}")
    );
    assert!(
        message(second_run(), "weather", json!({"city": "Oslo"}))
            .starts_with("Tool 'weather' not found. Did you mean 'get_weather'? ")
    );
}

#[test]
fn an_empty_name_gets_the_inventory() {
    assert_eq!(message(first_run(), "", json!({})), format!("Tool '' not found. {INVENTORY}"));
}

#[test]
fn a_name_several_tools_share_runs_nothing_and_names_them_all() {
    let error = second_run().call("WebSearch", &json!({"query": "q"})).expect_err("ambiguous");
    assert_eq!(
        error.to_string(),
        "Tool 'WebSearch' is ambiguous: it matches ['web_search', 'websearch']. Nothing was run; call one of them by its exact name."
    );
    assert_eq!(error.to_json()["candidates"], json!(["web_search", "websearch"]));
    // The exact names still run.
    runs(second_run(), "websearch", json!({"q": "x"}), "websearch");
    runs(second_run(), "web_search", json!({"query": "orbits"}), "web_search");
}

#[test]
fn wrapper_prefixes_are_stripped_when_the_rest_is_unique() {
    for name in [
        "functions.get_weather",
        "default_api.get_weather",
        "tools.get_weather",
        "tool.get_weather",
        "mcp__weather__get_weather",
        "functions.getWeather",
        "peer-weather/get_weather",
        "peer_weather.get-weather",
    ] {
        runs(second_run(), name, json!({"city": "Oslo"}), "get_weather");
    }
    runs(examples(), "units.convert", json!({"value": 1, "from": "meter", "to": "foot"}), "convert");
    // A prefix does not make an ambiguous name unique, nor a fuzzy one exact.
    assert!(
        message(second_run(), "functions.WebSearch", json!({})).starts_with("Tool 'functions.WebSearch' is ambiguous")
    );
    assert!(
        message(second_run(), "functions.weather", json!({}))
            .starts_with("Tool 'functions.weather' not found. Did you mean 'get_weather'? ")
    );
}

#[test]
fn container_tools_are_listed_and_repaired_one_by_one() {
    let names: Vec<String> = examples().tools().into_iter().map(|t| t.name).collect();
    assert!(names.iter().any(|n| n == "word_count") && names.iter().any(|n| n == "read_file"));
    assert!(!names.iter().any(|n| n.contains("text") && !n.contains('_')), "the container is no tool: {names:?}");
    runs(examples(), "Word-Count", json!({"text": "a b"}), "word_count");
    runs(examples(), "text.wordCount", json!({"text": "a b"}), "word_count");
}

// --- toolsets ----------------------------------------------------------------------

#[test]
fn a_toolset_restricts_resolution_hints_and_inventory() {
    let toolset = second_run().toolset(&["web_search", "calculator"]).expect("toolset");
    let names: Vec<String> = toolset.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["calculator", "web_search"]);
    // websearch is inactive, so WebSearch is no longer ambiguous.
    runs(&toolset, "WebSearch", json!({"query": "orbits"}), "web_search");
    assert_eq!(
        message(&toolset, "get_weather", json!({"city": "Oslo"})),
        format!("Tool 'get_weather' not found. {INVENTORY}")
    );
}

#[test]
fn a_toolset_with_a_typo_fails_at_construction() {
    let error = second_run().toolset(&["web_serch", "calculator"]).err().expect("typo");
    assert_eq!(error, ToolsetError::UnknownTool { name: "web_serch".into(), suggestion: Some("web_search".into()) });
    assert_eq!(error.to_string(), "Unknown tool 'web_serch'. Did you mean 'web_search'?");
    assert_eq!(
        second_run().toolset(&["WebSearch"]).err().map(|e| e.to_string()).as_deref(),
        Some(
            "Tool 'WebSearch' is ambiguous: it matches ['web_search', 'websearch']; list one of them by its exact name."
        )
    );
}

#[test]
fn a_toolset_by_pattern_holds_the_tools_it_matches() {
    let toolset = second_run().toolset_matching(&["web*"]).expect("toolset");
    let names: Vec<String> = toolset.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["web_search", "websearch"]);
    assert_eq!(
        message(&toolset, "calculator", json!({})),
        "Tool 'calculator' not found. Available tools: ['web_search', 'websearch']"
    );
    // Patterns choose among a toolset's tools, and may match none.
    let narrower = second_run().toolset(&["calculator", "web_search"]).expect("toolset");
    let names: Vec<String> =
        narrower.toolset_matching(&["*"]).expect("toolset").tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["calculator", "web_search"]);
    assert!(second_run().toolset_matching(&["nothing*"]).expect("toolset").tools().is_empty());
    let error = second_run().toolset_matching(&["web[s"]).err().expect("a bad pattern");
    assert!(matches!(error, ToolsetError::BadPattern { ref pattern, .. } if pattern == "web[s"), "{error}");
}

// --- arguments ---------------------------------------------------------------------

const EXPECTED: &str = "Expected parameters for 'web_search' — required: ['query'], optional: ['limit'].";

#[test]
fn a_missing_argument_names_it_and_lists_the_parameters() {
    let error = first_run().call("web_search", &json!({})).expect_err("missing");
    assert_eq!(
        error.to_string(),
        format!("Tool 'web_search' was called with missing required parameter 'query'. {EXPECTED}")
    );
    assert_eq!(error.to_json()["expected_parameters"], json!({"required": ["query"], "optional": ["limit"]}));
    assert!(matches!(error, ToolError::InvalidArguments { expected_parameters: Some(ExpectedParameters { .. }), .. }));
}

#[test]
fn an_unexpected_argument_names_it_and_lists_the_parameters() {
    assert_eq!(
        message(first_run(), "web_search", json!({"query": "a", "bogus": 1})),
        format!("Tool 'web_search' was called with unexpected parameter 'bogus'. {EXPECTED}")
    );
    assert_eq!(
        message(first_run(), "web_search", json!({"bogus": 1})),
        format!(
            "Tool 'web_search' was called with missing required parameter 'query' and unexpected parameter 'bogus'. {EXPECTED}"
        )
    );
}

#[test]
fn the_tools_own_error_comes_back_unchanged_without_a_hint() {
    let error = first_run().call("web_search", &json!({"query": ""})).expect_err("tool error");
    assert_eq!(error.to_string(), "query must not be empty");
    assert_eq!(
        error.to_json(),
        json!({"error": "query must not be empty", "kind": "tool_failed", "tool": "web_search", "message": "query must not be empty"})
    );
}

#[test]
fn a_structured_error_comes_back_as_its_json() {
    let host = common::hostile_host();
    assert_eq!(
        host.call("fail_structured", &json!({"code": 7})).map_err(|e| e.to_string()),
        Err(r#"{"code":7,"reason":"the structured failure asked for"}"#.to_string())
    );
}

#[test]
fn a_wrong_type_is_rejected_before_the_tool_runs() {
    assert_eq!(
        message(first_run(), "web_search", json!({"query": "a", "limit": "five"})),
        r#"Invalid arguments for 'web_search': 'limit' must be an integer between 0 and 4294967295, got "five"."#
    );
    assert_eq!(
        message(first_run(), "web_search", json!({"query": "a", "limit": -1})),
        "Invalid arguments for 'web_search': 'limit' must be an integer between 0 and 4294967295, got -1."
    );
}

#[test]
fn lossless_coercions_are_made() {
    let one = json!(["Planets move in elliptical orbits with the Sun at one focus."]);
    assert_eq!(runs(first_run(), "web_search", json!({"query": "orbits", "limit": "1"}), "web_search"), one);
    assert_eq!(runs(first_run(), "web_search", json!({"query": "orbits", "limit": 1.0}), "web_search"), one);
    assert_eq!(runs(examples(), "slugify", json!({"text": "A b", "separator": "."}), "slugify"), json!("a.b"));
    let moment = json!({"date": {"year": "2024", "month": 1, "day": 2}, "hour": 3, "minute": 4, "second": 5});
    assert_eq!(
        runs(examples(), "format_date_time", json!({"moment": moment}), "format_date_time"),
        json!("2024-01-02T03:04:05Z")
    );
    assert_eq!(
        message(examples(), "slugify", json!({"text": "a", "separator": "--"})),
        r#"Invalid arguments for 'slugify': 'separator' must be a single character (a string of length 1), got "--"."#
    );
    assert_eq!(
        message(first_run(), "web_search", json!({"query": "a", "limit": 1.5})),
        "Invalid arguments for 'web_search': 'limit' must be an integer between 0 and 4294967295, got 1.5."
    );
}

#[test]
fn parameter_names_are_matched_across_case_and_separators() {
    runs(first_run(), "web_search", json!({"Query": "orbits"}), "web_search");
    let moment = json!({"date": {"year": 2024, "month": 1, "day": 2}, "hour": 3, "minute": 4, "second": 5});
    for key in ["utc_offset_hours", "utcOffsetHours", "utc-offset-hours", "UTC_OFFSET_HOURS"] {
        let result = runs(examples(), "format_date_time", json!({"moment": moment, key: 2}), "format_date_time");
        assert_eq!(result, json!("2024-01-02T03:04:05+02:00"), "{key}");
    }
    assert_eq!(
        message(first_run(), "web_search", json!({"query": "a", "Query": "b"})),
        format!("Tool 'web_search' was called with parameter 'query' twice (as 'query' and 'Query'). {EXPECTED}")
    );
}

#[test]
fn enum_drift_is_repaired_and_anything_else_lists_the_allowed_values() {
    assert_eq!(
        runs(second_run(), "get_weather", json!({"city": "Oslo", "unit": "Fahrenheit"}), "get_weather"),
        json!("Oslo: 64 °F")
    );
    assert_eq!(
        runs(second_run(), "get_weather", json!({"city": "Oslo", "unit": "CELSIUS"}), "get_weather"),
        json!("Oslo: 18 °C")
    );
    assert_eq!(
        message(second_run(), "get_weather", json!({"city": "Oslo", "unit": "kelvin"})),
        r#"Invalid arguments for 'get_weather': 'unit' must be one of ['celsius', 'fahrenheit'], got "kelvin"."#
    );
    assert_eq!(
        runs(
            examples(),
            "replace",
            json!({"text": "a.b", "pattern": ".", "replacement": "!", "options": ["Literal", "FirstOnly"]}),
            "replace"
        ),
        json!("a!b")
    );
}

#[test]
fn nested_values_are_checked_with_their_path() {
    let start = json!({"date": {"year": 2024, "month": 1, "day": 2}, "hour": 3, "minute": 4, "second": 5});
    assert_eq!(
        message(
            examples(),
            "add_duration",
            json!({"start": start, "duration": {"days": 1, "hours": "x", "minutes": 0, "seconds": 0}})
        ),
        r#"Invalid arguments for 'add_duration': 'duration.hours' must be an integer between -32768 and 32767, got "x"."#
    );
    assert_eq!(
        message(examples(), "add_duration", json!({"start": start, "duration": {"days": 1, "hours": 1, "minutes": 0}})),
        "Invalid arguments for 'add_duration': 'duration.seconds' must be an integer between -9223372036854775808 and 9223372036854775807, got nothing (the field is required)."
    );
    assert_eq!(
        message(examples(), "statistics", json!({"values": [1, 2, "three"]})),
        r#"Invalid arguments for 'statistics': 'values[2]' must be an integer between -9223372036854775808 and 9223372036854775807, got "three"."#
    );
    assert_eq!(
        message(examples(), "replace", json!({"text": "a", "pattern": "a", "replacement": "b", "options": ["global"]})),
        r#"Invalid arguments for 'replace': 'options[0]' must be one of ['case_insensitive', 'whole_word', 'first_only', 'literal'], got "global"."#
    );
}

#[test]
fn argument_text_is_parsed_strictly_then_repaired() {
    let host = first_run();
    let want = Ok(json!(["Planets move in elliptical orbits with the Sun at one focus."]));
    assert_eq!(host.request("web_search").text(r#"{"query": "orbits", "limit": 1}"#).run().result, want);
    assert_eq!(host.request("web_search").text("```json\n{'query': 'orbits', limit: 1,}\n```").run().result, want);
    assert_eq!(host.request("web_search").text(r#"{"query": "orbits", "limit": 1"#).run().result, want);
    assert_eq!(
        host.request("web_search").text(r#"{"query": orbits}"#).run().result.map_err(|e| e.to_string()),
        Err(format!(
            "The arguments for 'web_search' are not valid JSON: expected value at line 1 column 11, near `{{\"query\": orbits}}`. {EXPECTED}"
        ))
    );
    assert_eq!(
        host.request("web_search").text(r#"{"query": "a", "query": "b"}"#).run().result.map_err(|e| e.to_string()),
        Err(format!("Tool 'web_search' was called with parameter 'query' twice. {EXPECTED}"))
    );
}

// --- traps ---------------------------------------------------------------------------

#[test]
fn each_trap_kind_is_told_in_plain_words() {
    let host = common::hostile_host();
    let crash = |name: &str| match host.call(name, &if name == "recurse" { json!({"depth": 0}) } else { json!({}) }) {
        Err(ToolError::Crashed { reason, .. }) => reason,
        other => panic!("{name}: expected a crash, got {other:?}"),
    };
    assert_eq!(crash("recurse"), "it overflowed its call stack (endless recursion?)");
    assert_eq!(crash("read_out_of_bounds"), "it accessed memory out of bounds");
    assert_eq!(crash("trap_silently"), "it aborted without a message");
    assert_eq!(
        host.call("panic_with", &json!({"message": "no disk"})).map_err(|e| e.to_string()),
        Err(
            "Tool 'panic_with' crashed: it panicked: no disk. Retrying with the same arguments will fail the same way."
                .into()
        )
    );
    assert_eq!(host.call("echo", &json!({"text": "fine"})), Ok(json!("fine")));
}

/// The words of each repair a call made.
fn repairs_of(host: &Host, name: &str, arguments: Value) -> (Result<Value, String>, Vec<String>) {
    let outcome = host.request(name).arguments(&arguments).run();
    (outcome.result.map_err(|e| e.to_string()), outcome.repairs.iter().map(ToString::to_string).collect())
}

#[test]
fn a_lone_value_for_a_list_or_flags_is_its_one_item() {
    let (result, repairs) = repairs_of(examples(), "statistics", json!({"values": 7}));
    assert_eq!(result.map(|v| v["count"].clone()), Ok(json!(1)));
    assert_eq!(repairs, ["'values' wrapped in a list"]);
    let (result, repairs) = repairs_of(
        examples(),
        "replace",
        json!({"text": "a A", "pattern": "a", "replacement": "b", "options": "Case_Insensitive"}),
    );
    assert_eq!(result, Ok(json!("b b")));
    assert_eq!(
        repairs,
        ["'options' wrapped in a list", "'options[0]': \"Case_Insensitive\" read as \"case_insensitive\""]
    );
    // A string is never split, and a value that is not an item is refused as sent.
    assert_eq!(
        message(examples(), "statistics", json!({"values": "1, 2"})),
        "Invalid arguments for 'statistics': 'values' must be an array whose items are each an integer between \
         -9223372036854775808 and 9223372036854775807, got \"1, 2\"."
    );
}

#[test]
fn null_and_an_empty_named_parameter_are_not_given() {
    let (result, repairs) = repairs_of(examples(), "list_units", json!({"": "", "dimension": null}));
    assert!(result.as_ref().is_ok_and(|units| units.as_array().is_some_and(|u| u.len() > 10)), "{result:?}");
    assert_eq!(repairs, ["an empty-named parameter (\"\": \"\") dropped"]);
    assert_eq!(
        message(examples(), "factorial", json!({"n": null})),
        "Tool 'factorial' was called with missing required parameter 'n'. Expected parameters for 'factorial' — \
         required: ['n'], optional: []."
    );
}

#[test]
fn a_call_that_was_right_reports_no_repair() {
    for (name, arguments) in [
        ("gcd", json!({"a": 12, "b": 18})),
        ("statistics", json!({"values": [1, 2]})),
        ("slugify", json!({"text": "A B", "separator": null})),
        ("convert", json!({"value": 1.5, "from": "mile", "to": "kilometer"})),
    ] {
        let (result, repairs) = repairs_of(examples(), name, arguments);
        assert!(result.is_ok(), "{name}: {result:?}");
        assert_eq!(repairs, Vec::<String>::new(), "{name}");
    }
}

#[test]
fn every_example_tool_is_shown_to_providers_under_a_name_they_take_and_runs_by_it() {
    let host = examples();
    for format in
        [toolhost::ToolFormat::OpenAiChat, toolhost::ToolFormat::OpenAiResponses, toolhost::ToolFormat::Anthropic]
    {
        let definitions = host.tool_definitions(format);
        let definitions = definitions.as_array().expect("an array");
        assert_eq!(definitions.len(), host.tools().len());
        for (definition, tool) in definitions.iter().zip(host.tools()) {
            let name = definition.get("function").unwrap_or(definition)["name"].as_str().expect("a name");
            // OpenAI's and Anthropic's documented pattern, and Gemini's first character.
            let fits = (1..=64).contains(&name.len())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            assert!(fits, "{} shows {name:?}", format.name());
            assert_eq!(
                host.request(name).arguments(&json!({})).run().tool.as_deref(),
                Some(tool.name.as_str()),
                "{name}"
            );
        }
    }
}

#[test]
fn a_repair_is_told_without_running_the_call() {
    let host = examples();
    let repaired = host.repair_call("Factorial", "{n: 5,}").expect("repairable");
    assert_eq!(repaired.tool, "factorial");
    assert_eq!(repaired.arguments, serde_json::json!({"n": 5}));
    let said: Vec<String> = repaired.repairs.iter().map(ToString::to_string).collect();
    assert!(said[0].contains("'Factorial' → 'factorial'"), "{said:?}");
    assert_eq!(said.len(), 2, "{said:?}");
    // What a call would refuse is refused here, with the same message.
    let refused = host.repair_call("factorial", r#"{"n": "five"}"#).expect_err("not repairable");
    assert_eq!(refused.to_string(), message(host, "factorial", serde_json::json!({"n": "five"})));
    assert_eq!(host.provider_name("factorial").as_deref(), Some("factorial"));
    assert_eq!(host.provider_name("no_such_tool"), None);
}
