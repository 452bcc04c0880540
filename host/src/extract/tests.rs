//! Extraction over a registry of named specs: each dialect, the safety rules, and
//! properties over arbitrary text.

use proptest::prelude::*;
use serde_json::json;

use super::{Dialect, extract};
use crate::resolve::Registry;
use crate::tool::{Repair, ToolSpec};

fn registry() -> Registry {
    Registry::from_specs(["get_weather", "evaluate", "web_search", "websearch"].map(|name| ToolSpec::new(name, "t")))
}

fn calls(text: &str) -> Vec<(String, serde_json::Value, Dialect)> {
    let extraction = extract(&registry(), text);
    extraction.calls.into_iter().map(|c| (c.tool.expect("resolved"), c.arguments, c.dialect)).collect()
}

/// One call of each dialect, as models write it, to `get_weather` with `{"city": "Paris"}`.
const DIALECT_CASES: &[(&str, Dialect)] = &[
    (
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        Dialect::ToolCallTag,
    ),
    ("<TOOL_CALL>{\"name\": \"GetWeather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}", Dialect::ToolCallTag),
    ("<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eom_id|>", Dialect::PythonTag),
    ("[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]", Dialect::Mistral),
    ("[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}", Dialect::Mistral),
    ("<function=get_weather>{\"city\": \"Paris\"}</function>", Dialect::FunctionTag),
    ("<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>", Dialect::FunctionTag),
    (
        "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}\nObservation:",
        Dialect::ReAct,
    ),
    ("  {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n", Dialect::BareJson),
    ("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]", Dialect::BareJson),
    ("{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]}", Dialect::BareJson),
    ("{\"tool_call\": {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}}", Dialect::BareJson),
    ("<tool_calls>[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]</tool_calls>", Dialect::ToolCallsTag),
    (
        "<tool_calls>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_calls>",
        Dialect::ToolCallsTag,
    ),
    ("<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]</TOOLCALL>", Dialect::Nemotron),
    (
        "[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}[END_TOOL_REQUEST]",
        Dialect::LmStudio,
    ),
    (
        "<longcat_tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}</longcat_tool_call>",
        Dialect::LongCat,
    ),
    ("<|tool_call|>[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]", Dialect::Granite),
    ("<function_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}", Dialect::Granite),
    (
        "<|action_start|><|plugin|>{\"name\":\"get_weather\",\"parameters\":{\"city\":\"Paris\"}}<|action_end|>",
        Dialect::InternLm,
    ),
    ("functools[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]", Dialect::Functools),
    (
        "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n]<|END_ACTION|>",
        Dialect::Command,
    ),
    ("<|tools_prefix|>[{\"get_weather\": {\"city\": \"Paris\"}}]<|tools_suffix|>", Dialect::Apertus),
    ("<|function_call|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", Dialect::GigaChat),
    ("function call<|role_sep|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", Dialect::GigaChat),
    (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 <|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>",
        Dialect::Kimi,
    ),
    (
        "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}><\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>function<\u{ff5c}tool\u{2581}sep\u{ff5c}>get_weather\n```json\n{\"city\": \"Paris\"}\n```<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}><\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>",
        Dialect::DeepSeek,
    ),
    (
        "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}><\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>get_weather<\u{ff5c}tool\u{2581}sep\u{ff5c}>{\"city\": \"Paris\"}<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}><\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>",
        Dialect::DeepSeek,
    ),
    (
        "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
        Dialect::Harmony,
    ),
    (
        "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\":\"Paris\"}<|call|>",
        Dialect::Harmony,
    ),
    (">>>get_weather\n{\"city\": \"Paris\"}", Dialect::Functionary),
    ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>", Dialect::Glm),
    ("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>", Dialect::Glm),
    (
        "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>\n</tool_calls>",
        Dialect::Glm,
    ),
    (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        Dialect::FunctionTag,
    ),
    (
        "<seed:tool_call><function=get_weather><parameter=city>Paris</parameter></function></seed:tool_call>",
        Dialect::FunctionTag,
    ),
    (
        "<minimax:tool_call><invoke name=\"get_weather\"><parameter name=\"city\">Paris</parameter></invoke></minimax:tool_call>",
        Dialect::XmlInvoke,
    ),
    ("<function name=\"get_weather\"><parameter name=\"city\">Paris</parameter></function>", Dialect::XmlInvoke),
    (
        "<\u{ff5c}tool_calls_begin\u{ff5c}><\u{ff5c}tool_call_begin\u{ff5c}>function<\u{ff5c}tool_sep\u{ff5c}><steptml:invoke name=\"get_weather\"><steptml:parameter name=\"city\">Paris</steptml:parameter></steptml:invoke><\u{ff5c}tool_call_end\u{ff5c}><\u{ff5c}tool_calls_end\u{ff5c}>",
        Dialect::XmlInvoke,
    ),
    (
        "<\u{ff5c}DSML\u{ff5c}function_calls>\n<\u{ff5c}DSML\u{ff5c}invoke name=\"get_weather\">\n<\u{ff5c}DSML\u{ff5c}parameter name=\"city\" string=\"true\">Paris</\u{ff5c}DSML\u{ff5c}parameter>\n</\u{ff5c}DSML\u{ff5c}invoke>\n</\u{ff5c}DSML\u{ff5c}function_calls>",
        Dialect::XmlInvoke,
    ),
    ("<|python_start|>[get_weather(city=\"Paris\")]<|python_end|>", Dialect::Pythonic),
    ("<|tool_call_start|>[get_weather(city='Paris')]<|tool_call_end|>", Dialect::Pythonic),
    ("<function_calls>\nget_weather(city=\"Paris\")\n</function_calls>", Dialect::Pythonic),
    ("[get_weather(city=\"Paris\")]", Dialect::Pythonic),
    ("<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>", Dialect::Gemma),
    ("<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>", Dialect::Gemma),
    ("<function name=\"get_weather\"><param name=\"city\">Paris</param></function>", Dialect::XmlInvoke),
    (
        "]<]minimax[>[<invoke name=\"get_weather\">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>",
        Dialect::XmlInvoke,
    ),
    (
        "<|tool_call_start|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|tool_call_end|>",
        Dialect::OpenPangu,
    ),
    (
        "<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
        Dialect::Kimi,
    ),
    (
        "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\"city\": \"Paris\"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>",
        Dialect::Plamo,
    ),
];

#[test]
fn each_dialect_is_read() {
    let weather = json!({"city": "Paris"});
    for &(text, dialect) in DIALECT_CASES {
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
fn parallel_calls_of_each_dialect_are_read_in_order() {
    let s = |name: &str| format!("<\u{ff5c}tool\u{2581}{name}\u{ff5c}>");
    let cases = [
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 <|tool_call_argument_begin|>{\"city\": \"Oslo\"}<|tool_call_end|>\
         <|tool_call_begin|>functions.evaluate:1 <|tool_call_argument_begin|>{\"expression\": \"1\"}<|tool_call_end|><|tool_calls_section_end|>"
            .to_string(),
        format!(
            "{}{}function{}get_weather\n```json\n{{\"city\": \"Oslo\"}}\n```{}{}function{}evaluate\n```json\n{{\"expression\": \"1\"}}\n```{}{}",
            s("calls\u{2581}begin"), s("call\u{2581}begin"), s("sep"), s("call\u{2581}end"),
            s("call\u{2581}begin"), s("sep"), s("call\u{2581}end"), s("calls\u{2581}end")
        ),
        "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Oslo</parameter>\n</invoke>\n\
         <invoke name=\"evaluate\">\n<parameter name=\"expression\">1</parameter>\n</invoke>\n</minimax:tool_call>"
            .to_string(),
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>\n\
         <tool_call>evaluate\n<arg_key>expression</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
            .to_string(),
        "[get_weather(city=\"Oslo\"), evaluate(expression=\"1\")]".to_string(),
        "<|python_start|>[get_weather(city=\"Oslo\"), evaluate(expression='1')]<|python_end|>".to_string(),
        "<|tool_call>call:get_weather{city:<|\"|>Oslo<|\"|>}<tool_call|><|tool_call>call:evaluate{expression:<|\"|>1<|\"|>}<tool_call|>"
            .to_string(),
        "[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}[END_TOOL_REQUEST]\n\
         [TOOL_REQUEST]{\"name\": \"evaluate\", \"arguments\": {\"expression\": \"1\"}}[END_TOOL_REQUEST]"
            .to_string(),
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Oslo\"}<|call|>\
         <|start|>assistant<|channel|>commentary to=functions.evaluate <|constrain|>json<|message|>{\"expression\": \"1\"}<|call|>"
            .to_string(),
        "[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}, {\"name\": \"evaluate\", \"arguments\": {\"expression\": \"1\"}}]"
            .to_string(),
    ];
    for text in &cases {
        let found: Vec<String> =
            calls(text).into_iter().map(|(tool, arguments, _)| format!("{tool} {arguments}")).collect();
        assert_eq!(found, ["get_weather {\"city\":\"Oslo\"}", "evaluate {\"expression\":\"1\"}"], "{text}");
        let extraction = extract(&registry(), text);
        assert!(extraction.calls.windows(2).all(|pair| pair[0].span.end <= pair[1].span.start), "{text}");
    }
}

#[test]
fn each_dialect_is_an_example_in_code_and_an_unknown_name_is_rejected() {
    let dialects = [
        "<|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{}<|tool_call_end|>",
        "<invoke name=\"{name}\"><parameter name=\"a\">1</parameter></invoke>",
        "<tool_call>{name}\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
        "<|python_start|>[{name}(a=1)]<|python_end|>",
        "<|tool_call>call:{name}{a:1}<tool_call|>",
        "<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{}<|call|>",
        "[TOOL_REQUEST]{\"name\": \"{name}\", \"arguments\": {}}[END_TOOL_REQUEST]",
        "<|START_ACTION|>[{\"tool_name\": \"{name}\", \"parameters\": {}}]<|END_ACTION|>",
    ];
    for dialect in dialects {
        let call = dialect.replace("{name}", "evaluate");
        // Inline code is one line's (as the fences are lines).
        let inline = (!call.contains('\n')).then(|| format!("Write `{call}` to call it."));
        for example in [format!("Write it so:\n```\n{call}\n```\n")].into_iter().chain(inline) {
            assert!(extract(&registry(), &example).is_empty(), "{example}");
        }
        let unknown = extract(&registry(), &dialect.replace("{name}", "rm_rf"));
        assert!(unknown.calls.is_empty() && unknown.rejected.len() == 1, "{dialect}: {unknown:?}");
        let message = unknown.rejected[0].rejected.as_ref().expect("why").to_string();
        assert!(message.starts_with("Tool '") && message.contains("rm_rf' not found."), "{message}");
    }
}

#[test]
fn code_after_a_fenced_deepseek_call_is_still_code() {
    let s = |name: &str| format!("<\u{ff5c}tool\u{2581}{name}\u{ff5c}>");
    let text = format!(
        "{}function{}evaluate\n```json\n{{\"expression\": \"1\"}}\n```{}\nLike this:\n```\n<tool_call>{{\"name\": \"get_weather\", \"arguments\": {{}}}}</tool_call>\n```\n",
        s("call\u{2581}begin"),
        s("sep"),
        s("call\u{2581}end")
    );
    assert_eq!(calls(&text).len(), 1, "only the DeepSeek call: {:?}", calls(&text));
}

#[test]
fn malformed_gemma_and_python_calls_end_without_a_call() {
    for text in [
        "<|tool_call>call:evaluate{a:[}<tool_call|>",
        "<|tool_call>call:evaluate{a:[1,}",
        "<|tool_call>call:evaluate{a:[}}<tool_call|>",
        "<start_function_call>call:evaluate{a:<escape>x}",
        "[evaluate(a=[1, 2)]",
        "<|python_start|>[evaluate(a=1, a=2)]<|python_end|>",
    ] {
        assert!(extract(&registry(), text).calls.is_empty(), "{text}");
    }
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
    // One call object among prose is read (and said so); one beside another object is not.
    let among_prose = "Here: {\"name\": \"get_weather\", \"arguments\": {}}";
    let extraction = extract(&registry(), among_prose);
    assert_eq!(extraction.calls.len(), 1, "{extraction:?}");
    assert_eq!(extraction.calls[0].repairs, [Repair::CallText { how: "prose around the call left out".into() }]);
    let beside_another = "Here: {\"name\": \"get_weather\", \"arguments\": {}} or {\"city\": \"Oslo\"}";
    assert!(extract(&registry(), beside_another).is_empty());

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
            "argument text: single quotes read, a trailing comma removed"
        ]
    );
    assert_eq!(call.span, 0..text.len());
}

#[test]
fn a_parameter_tag_that_ends_past_its_invoke_is_not_read() {
    // Found by the `extract` fuzz target: the tag's `>` is the closing tag's.
    let text = "<invoke name=\"get_weather\"><parameter name=\"city\"</invoke>>";
    assert_eq!(calls(text), [("get_weather".to_string(), json!({}), Dialect::XmlInvoke)]);
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
        Just("<|tool_call_begin|>".to_string()),
        Just("<|tool_call_argument_begin|>".to_string()),
        Just("<\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>function<\u{ff5c}tool\u{2581}sep\u{ff5c}>".to_string()),
        Just(" to=functions.get_weather <|message|>".to_string()),
        Just("<invoke name=\"get_weather\">".to_string()),
        Just("<parameter name=\"city\">".to_string()),
        Just("<arg_key>".to_string()),
        Just("<arg_value>".to_string()),
        Just("[get_weather(city=".to_string()),
        Just("<|tool_call>call:evaluate{".to_string()),
        Just("<|\"|>".to_string()),
        Just("functools[".to_string()),
        Just("\n>>>".to_string()),
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
    let piece = prop_oneof![3 => piece, 1 => later_dialect_pieces()];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// The markers of the later dialects, and their inner tags.
fn later_dialect_pieces() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("]<]minimax[>[<invoke name=\"get_weather\">".to_string()),
        Just("]<]minimax[>[<city>".to_string()),
        Just("]<]minimax[>[</city>".to_string()),
        Just("]<]minimax[>[".to_string()),
        Just("<|open|>call tool=\"get_weather\" index=\"1\"<|sep|>".to_string()),
        Just("<|open|>argument key=\"city\" type=\"integer\"<|sep|>".to_string()),
        Just("<|close|>argument<|sep|>".to_string()),
        Just("<|close|>call<|sep|>".to_string()),
        Just("<|tool_call:start|>get_weather\n".to_string()),
        Just("<|tool_arg:start|>".to_string()),
        Just("<|tool_arg:value|>".to_string()),
        Just("<|tool_arg:end|>".to_string()),
        Just("<tool_call:☃>get_weather".to_string()),
        Just("<arg_key:☃>".to_string()),
        Just("</arg_value:☃>".to_string()),
        Just("<ifm|tool_call>".to_string()),
        Just("<ifm|arg_key>".to_string()),
        Just("<ifm|arg_type>".to_string()),
        Just("<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>".to_string()),
        Just("<|plamo:end_tool_name:plamo|>".to_string()),
        Just("<|plamo:msg|>".to_string()),
        Just("<|tool_call_start|>".to_string()),
        Just("<function name=\"get_weather\"><param name=\"city\">".to_string()),
        Just("<![CDATA[".to_string()),
        Just("<|content_invoke_tool_json|>".to_string()),
        Just("<tools>".to_string()),
        Just("<iquestcoder_tool_call>".to_string()),
        Just("<dots_function_call>".to_string()),
        Just("<atem:invoke name=\"get_weather\">".to_string()),
    ]
}

/// A registry whose tools have parameters, as an MCP server describes them.
fn registry_with_parameters() -> Registry {
    let tool = |name: &str, properties: serde_json::Value| {
        let schema = json!({"type": "object", "properties": properties});
        ToolSpec::for_server_tool("s", crate::tool::ServerTool::new(name, schema, None))
    };
    Registry::from_specs([
        tool("calc_area", json!({"base": {"type": "integer"}, "height": {"type": "integer"}})),
        tool("geo.locate", json!({"coords": {"type": "array"}, "label": {"type": "string"}})),
        tool("configure", json!({"settings": {"type": "object"}})),
    ])
}

fn read(text: &str) -> super::Extraction {
    extract(&registry_with_parameters(), text)
}

#[test]
fn python_values_are_read_as_json_carries_them_and_an_expression_refuses_only_its_call() {
    let extraction = read("[geo.locate(coords=(40.7, -74.0), label='N' 'YC'), calc_area(base=2*pi, height=3)]");
    assert_eq!(extraction.calls.len(), 1, "{extraction:?}");
    assert_eq!(extraction.calls[0].arguments, json!({"coords": [40.7, -74.0], "label": "NYC"}));
    let refused = extraction.rejected[0].rejected.as_ref().expect("refused").to_string();
    assert!(
        refused.starts_with("Invalid arguments for 'calc_area': the value of 'base' is the expression 2*pi, which the host does not compute;"),
        "{refused}"
    );
    assert!(
        refused.ends_with("Expected parameters for 'calc_area' — required: [], optional: ['base', 'height']."),
        "{refused}"
    );
    let positional = read("[calc_area(2, height=3)]").rejected[0].rejected.as_ref().expect("refused").to_string();
    assert!(positional.contains("the value 2 is given without a parameter name"), "{positional}");
    let twice = read("[calc_area(base=2, base=3)]").rejected[0].rejected.as_ref().expect("refused").to_string();
    assert!(twice.contains("the parameter 'base' is given more than once"), "{twice}");
}

#[test]
fn arguments_written_as_one_dict_are_the_arguments_when_its_keys_are_parameters() {
    let extraction = read("[calc_area({'base': 10, 'Height': 5})]");
    assert_eq!(extraction.calls[0].arguments, json!({"base": 10, "Height": 5}));
    assert_eq!(
        extraction.calls[0].repairs,
        [Repair::CallText { how: "the arguments read from the one dict they were written as".into() }]
    );
    // A dict whose keys are not the tool's parameters is a value given without its name.
    let refused = read("[configure({'depth': 3})]");
    assert!(refused.calls.is_empty() && refused.rejected.len() == 1, "{refused:?}");
}

#[test]
fn quoted_names_escaped_underscores_quoted_calls_and_several_lists_are_read() {
    let text = "[\"calc_area\"(base=1, height=2)]";
    let call = &read(text).calls[0];
    assert_eq!(call.repairs, [Repair::CallText { how: "quotes around the name removed".into() }]);
    let escaped = &read("[calc\\_area(base=1, height=2), geo.locate(label='a\\_b')]").calls;
    assert_eq!(escaped[0].tool.as_deref(), Some("calc_area"));
    assert_eq!(escaped[1].arguments, json!({"label": "a\\_b"}), "a string keeps Python's reading");
    // Escaped in a key too, so in its text: the model escaped every underscore.
    let escaped_keys = &read("[geo.locate(la\\_bel='a\\_b')]").calls;
    assert_eq!(escaped_keys[0].arguments, json!({"la_bel": "a_b"}));
    let quoted = read("[\"calc_area(base=1, height=2)\", 'geo.locate(label=\"x\")']");
    assert_eq!(quoted.calls.len(), 2, "{quoted:?}");
    assert_eq!(quoted.calls[1].arguments, json!({"label": "x"}));
    assert_eq!(read("[calc_area(base=1, height=2)],\n[geo.locate(label='x')]").calls.len(), 2);
    let unclosed = read("\n\n[calc_area(base=1, height=2)");
    assert_eq!(unclosed.calls[0].repairs, [Repair::ClosingTag { tag: "]".into() }]);
}

#[test]
fn a_dropped_namespace_is_resolved_in_a_reply_and_said() {
    let call = &read("[locate(label='x')]").calls[0];
    assert_eq!(call.tool.as_deref(), Some("geo.locate"));
    assert_eq!(call.repairs, [Repair::ToolName { from: "locate".into(), to: "geo.locate".into() }]);
}
