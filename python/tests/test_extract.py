"""Tool calls a model wrote into its reply text, recovered and run."""

import toolhost


def test_calls_in_a_reply_are_found_repaired_and_run(examples):
    reply = (
        "Let me work that out.\n"
        '<tool_call>{"name": "Evaluate", "arguments": {"expression": "6*7"}}</tool_call>\n'
        '<tool_call>{"name": "gcd", "arguments": "{\'a\': 12, \'b\': 18,}"}</tool_call>\n'
        '<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>'
    )
    extraction = examples.extract_calls(reply)
    assert extraction.summary() == "2 calls, 1 rejected" and len(extraction) == 2
    first, second = extraction.calls
    assert (first.name, first.tool, first.arguments, first.dialect) == ("Evaluate", "evaluate", {"expression": "6*7"}, "tool_call_tag")
    assert reply.encode()[first.span[0]:first.span[1]].decode().startswith("<tool_call>")
    assert first.error is None and second.repairs
    outcome = examples.dispatch_call(first)
    assert (outcome.tool, outcome.repaired_from, outcome.value) == ("evaluate", "Evaluate", 42.0)
    assert examples.dispatch_call(second).value == 6
    (rejected,) = extraction.rejected
    assert isinstance(rejected.error, toolhost.ToolExecutionError) and rejected.error.kind == "unknown_tool"
    outcome = examples.dispatch_call(rejected)
    assert not outcome.ok and str(outcome.error).startswith("Tool 'no_such_tool' not found.")
    assert rejected.to_dict()["rejected"]["kind"] == "unknown_tool"


def test_a_reply_without_calls(examples):
    extraction = examples.extract_calls("Paris is the capital of France. Example: `gcd(1, 2)`")
    assert extraction.calls == [] and extraction.rejected == []
    assert extraction.summary() == "no tool call found in the reply"
