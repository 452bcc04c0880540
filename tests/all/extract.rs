//! Tool calls written into a reply's text, recovered against the example tools: the
//! corpus in tests/extract/corpus.jsonl (every dialect, in the forms vLLM's and
//! llama.cpp's tool-parser tests show models write, and the traps), a call run
//! straight from its extraction, and a 1 MB reply.

use serde_json::{Value, json};

use crate::common;

#[test]
fn the_corpus_gives_exactly_its_calls_in_order_and_rejects_what_it_says() {
    let host = common::example_host_shared();
    let corpus = std::fs::read_to_string(common::root().join("tests/extract/corpus.jsonl")).expect("the corpus");
    let mut checked = 0;
    for line in corpus.lines().filter(|line| !line.trim().is_empty()) {
        let entry: Value = serde_json::from_str(line).expect("a corpus line is JSON");
        let reply = entry["reply"].as_str().expect("a reply");
        let extraction = host.extract_calls(reply);
        let calls: Vec<Value> =
            extraction.calls.iter().map(|call| json!([call.tool.clone(), call.arguments.clone()])).collect();
        assert_eq!(Value::Array(calls), entry["calls"], "{}: {reply}", entry["note"]);
        let rejected: Vec<&str> = extraction.rejected.iter().map(|call| call.name.as_str()).collect();
        assert_eq!(json!(rejected), entry["rejected"], "{}: {reply}", entry["note"]);
        if entry["dialect"] != "trap" {
            for call in &extraction.calls {
                assert_eq!(serde_json::to_value(call.dialect).expect("JSON"), entry["dialect"], "{}", entry["note"]);
            }
        }
        for call in extraction.calls.iter().chain(&extraction.rejected) {
            assert!(reply.get(call.span.clone()).is_some(), "a span outside the reply: {:?}", call.span);
        }
        checked += 1;
    }
    assert!(checked >= 112, "only {checked} corpus entries");
}

#[test]
fn an_extracted_call_runs_as_it_is_and_a_rejected_one_says_why() {
    let host = common::example_host_shared();
    let reply = "Let me check.\n<tool_call>{\"name\": \"Evaluate\", \"arguments\": {\"expression\": \"6 * 7\"}}</tool_call>\n\
                 <tool_call>{\"name\": \"evalute_all\", \"arguments\": {}}</tool_call>";
    let extraction = host.extract_calls(reply);
    let outcome = extraction.calls[0].request(host).run();
    assert_eq!((outcome.tool.as_deref(), outcome.repaired_from.as_deref()), (Some("evaluate"), Some("Evaluate")));
    assert_eq!(outcome.result, Ok(json!(42.0)));
    let refused = extraction.rejected[0].request(host).run().result.expect_err("rejected");
    assert!(refused.to_string().starts_with("Tool 'evalute_all' not found."), "{refused}");
}

#[test]
fn a_megabyte_reply_full_of_near_misses_gives_its_one_call() {
    let host = common::example_host_shared();
    let noise = "Some prose, `code`, <tool_call> without JSON, [TOOL_CALLS] nothing, {\"name\": 1}, \"quotes\n";
    let mut reply = noise.repeat((1 << 20) / noise.len());
    reply.push_str("<tool_call>{\"name\": \"factorial\", \"arguments\": {\"n\": 5}}</tool_call>");
    let extraction = host.extract_calls(&reply);
    let tools: Vec<_> = extraction.calls.iter().map(|call| call.tool.as_deref()).collect();
    assert_eq!(tools, [Some("factorial")]);
}

/// Calls as BFCL's prompt mode has models write them, run on real components: a
/// tuple is a list, a number for a string is its text, and a value that is an
/// expression refuses its own call only, saying which argument.
#[test]
fn python_style_values_reach_real_components_as_json_carries_them() {
    let host = common::example_host_shared();
    let reply = "Here are the calls:\n\n[is_palindrome(text=12321), average(values=(2, 4), kind='Mean'), char_at(text='abc', index=2*1)]";
    let extraction = host.extract_calls(reply);
    let results: Vec<_> = extraction.calls.iter().map(|call| call.request(host).run()).collect();
    assert_eq!(results[0].result, Ok(json!(true)));
    let repairs: Vec<String> = results[0].repairs.iter().map(ToString::to_string).collect();
    assert_eq!(repairs, ["call text: prose around the call left out", "'text': 12321 read as \"12321\""]);
    assert_eq!(results[1].result, Ok(json!(3.0)));
    let refused = extraction.rejected[0].rejected.as_ref().expect("refused").to_string();
    assert!(
        refused.starts_with("Invalid arguments for 'char_at': the value of 'index' is the expression 2*1, which the host does not compute;"),
        "{refused}"
    );
    assert!(refused.ends_with("Expected parameters for 'char_at' — required: ['text', 'index'], optional: []."));
}
