//! Extraction over a registry of named specs: each dialect, the safety rules, and
//! properties over arbitrary text.

use proptest::prelude::*;
use serde_json::json;

use super::{Dialect, extract};
use crate::resolve::Registry;
use crate::tool::ToolSpec;

fn registry() -> Registry {
    Registry::from_specs(["get_weather", "evaluate", "web_search", "websearch"].map(|name| ToolSpec::new(name, "t")))
}

fn calls(text: &str) -> Vec<(String, serde_json::Value, Dialect)> {
    let extraction = extract(&registry(), text);
    extraction.calls.into_iter().map(|c| (c.tool.expect("resolved"), c.arguments, c.dialect)).collect()
}

#[test]
fn each_dialect_is_read() {
    let weather = json!({"city": "Paris"});
    let cases = [
        (
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            Dialect::ToolCallTag,
        ),
        (
            "<TOOL_CALL>{\"name\": \"GetWeather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}",
            Dialect::ToolCallTag,
        ),
        (
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eom_id|>",
            Dialect::PythonTag,
        ),
        ("[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]", Dialect::Mistral),
        ("[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}", Dialect::Mistral),
        ("<function=get_weather>{\"city\": \"Paris\"}</function>", Dialect::FunctionTag),
        ("<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>", Dialect::FunctionTag),
        (
            "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}\nObservation:",
            Dialect::ReAct,
        ),
        ("  {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n", Dialect::BareJson),
    ];
    for (text, dialect) in cases {
        assert_eq!(calls(text), [("get_weather".to_string(), weather.clone(), dialect)], "{text}");
    }
}

#[test]
fn several_calls_keep_their_order_across_dialects() {
    let text = "First <tool_call>{\"name\": \"evaluate\", \"arguments\": {\"expression\": \"1+1\"}}</tool_call> then \
                <function=get_weather>{\"city\": \"Oslo\"}</function> and [TOOL_CALLS][{\"name\": \"evaluate\", \
                \"arguments\": {\"expression\": \"2\"}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}]";
    let found: Vec<String> =
        calls(text).into_iter().map(|(tool, arguments, _)| format!("{tool} {arguments}")).collect();
    assert_eq!(
        found,
        [
            "evaluate {\"expression\":\"1+1\"}",
            "get_weather {\"city\":\"Oslo\"}",
            "evaluate {\"expression\":\"2\"}",
            "get_weather {\"city\":\"Rome\"}"
        ]
    );
}

#[test]
fn examples_prose_and_unknown_names_are_not_calls() {
    let fenced =
        "To call it, write:\n```\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>\n```\n";
    assert!(extract(&registry(), fenced).is_empty());
    let inline = "Write `<tool_call>{\"name\": \"evaluate\", \"arguments\": {}}</tool_call>` to call it.";
    assert!(extract(&registry(), inline).is_empty());
    let prose = "The get_weather tool takes {\"city\": \"Paris\"} as its arguments.";
    assert!(extract(&registry(), prose).is_empty());
    assert_eq!(extract(&registry(), prose).summary(), "no tool call found in the reply");
    let not_whole = "Here: {\"name\": \"get_weather\", \"arguments\": {}}";
    assert!(extract(&registry(), not_whole).is_empty());

    let mixed = "<tool_call>{\"name\": \"delete_everything\", \"arguments\": {\"note\": \"<tool_call>{\\\"name\\\": \
                 \\\"evaluate\\\"}</tool_call>\"}}</tool_call><tool_call>{\"name\": \"evaluate\", \"arguments\": {}}</tool_call>";
    let extraction = extract(&registry(), mixed);
    assert_eq!(extraction.rejected.len(), 1);
    let rejected = extraction.rejected[0].rejected.as_ref().expect("an error").to_string();
    assert!(rejected.starts_with("Tool 'delete_everything' not found."), "{rejected}");
    assert_eq!(extraction.calls.len(), 1, "{extraction:?}");
    let ambiguous = extract(&registry(), "<tool_call>{\"name\": \"WebSearch\", \"arguments\": {}}</tool_call>");
    assert!(ambiguous.calls.is_empty() && ambiguous.rejected.len() == 1);
}

#[test]
fn repairs_are_said() {
    let text = "<tool_call>{\"name\": \"GetWeather\", \"arguments\": \"{'city': 'Paris',}\"}";
    let extraction = extract(&registry(), text);
    let call = &extraction.calls[0];
    assert_eq!(call.arguments, json!({"city": "Paris"}));
    assert_eq!(
        call.repairs.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "the closing </tool_call> was missing",
            "name 'GetWeather' → 'get_weather'",
            "argument text: relaxed (JSON5) syntax read"
        ]
    );
    assert_eq!(call.span, 0..text.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_text_gives_spans_inside_it_that_do_not_overlap(text in any_reply()) {
        let extraction = extract(&registry(), &text);
        let mut spans: Vec<_> = extraction.calls.iter().chain(&extraction.rejected).map(|c| c.span.clone()).collect();
        spans.sort_by_key(|span| span.start);
        for span in &spans {
            prop_assert!(span.start < span.end && span.end <= text.len() && text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        }
        for pair in spans.windows(2) {
            prop_assert!(pair[0].end <= pair[1].start, "{:?} overlaps {:?}", pair[0], pair[1]);
        }
    }
}

/// Text made of pieces of the dialects, JSON, code fences, prose and Unicode.
fn any_reply() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<tool_call>".to_string()),
        Just("</tool_call>".to_string()),
        Just("<|python_tag|>".to_string()),
        Just("<|eom_id|>".to_string()),
        Just("[TOOL_CALLS]".to_string()),
        Just("[ARGS]".to_string()),
        Just("<function=".to_string()),
        Just("</function>".to_string()),
        Just("<parameter=".to_string()),
        Just("\nAction: ".to_string()),
        Just("\nAction Input: ".to_string()),
        Just("```\n".to_string()),
        Just("`".to_string()),
        Just("{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ünïcödé ☃\"}}".to_string()),
        Just("{\"name\": \"evaluate\", \"parameters\": \"{\\\"expression\\\": 1}\"}".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("\"".to_string()),
        Just("get_weather".to_string()),
        ".{0,8}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}
