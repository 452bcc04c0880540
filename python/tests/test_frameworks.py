"""Host.functions() taken by real agent frameworks from PyPI, as they are: each builds
its tool schema by reading the function, and each runs it through its own
tool-execution entry point, the way it does after a model's tool call (no model here)."""

import ast
import asyncio
import inspect
import json
import typing

import pytest

import toolhost


MILE_TO_GRAM = "cannot convert mile (length) to gram (mass): they measure different things"


@pytest.fixture(scope="module")
def functions(examples):
    return {function.__name__: function for function in examples.functions()}


def test_each_function_is_described_as_its_tool(examples, functions):
    assert sorted(functions) == sorted(tool.name for tool in examples.tools())
    convert = functions["convert"]
    signature = inspect.signature(convert)
    assert list(signature.parameters) == ["value", "from_", "to", "precision"]
    assert signature.parameters["value"].annotation is float
    assert typing.get_args(signature.parameters["to"].annotation)[:2] == ("millimeter", "centimeter")
    precision = signature.parameters["precision"]
    assert (precision.kind, precision.default) == (inspect.Parameter.KEYWORD_ONLY, None)
    assert signature.return_annotation is float
    assert convert.__doc__.startswith("Converts a value from one unit to another")
    assert "    from_: the unit `value` is in." in convert.__doc__
    assert convert(26.2, "mile", "kilometer", precision=2) == 42.16
    assert convert(value=26.2, from_="mile", to="kilometer") == pytest.approx(42.164813, abs=1e-6)
    moment = inspect.signature(functions["format_date_time"]).parameters["moment"].annotation
    assert typing.get_type_hints(moment)["hour"] is int and moment.__required_keys__ >= {"date", "hour"}


def test_a_failure_raises_or_returns_the_corrective_message(examples, functions):
    with pytest.raises(toolhost.ToolExecutionError, match=r"'n' must be an integer between 0 and 255, got 300\.$"):
        functions["factorial"](300)
    returning = {function.__name__: function for function in examples.functions(errors="return")}
    answer = returning["factorial"](n=300)
    assert answer["kind"] == "invalid_value" and answer["error"].endswith("got 300.")
    with pytest.raises(ValueError, match="errors must be 'raise' or 'return'"):
        examples.functions(errors="ignore")
    with pytest.raises(TypeError, match="takes 1 arguments but 2 were given"):
        functions["factorial"](1, 2)


# --- LangChain -----------------------------------------------------------------------


def test_langchain_structured_tool(functions):
    from langchain_core.tools import StructuredTool

    tool = StructuredTool.from_function(functions["convert"])
    assert tool.name == "convert" and tool.description.startswith("Converts a value")
    schema = tool.args
    assert schema["value"]["type"] == "number" and "kilometer" in schema["to"]["enum"]
    assert tool.invoke({"value": 26.2, "from_": "mile", "to": "kilometer", "precision": 2}) == 42.16
    # A nested record, validated by LangChain's pydantic model from the TypedDict, then run.
    dated = StructuredTool.from_function(functions["format_date_time"])
    moment = {"date": {"year": 2024, "month": 1, "day": 2}, "hour": 3, "minute": 4, "second": 5}
    assert dated.invoke({"moment": moment, "utc_offset_hours": 2}) == "2024-01-02T03:04:05+02:00"
    # LangChain's tool-call message path: the ToolMessage carries the result.
    message = tool.invoke({"type": "tool_call", "id": "call_1", "name": "convert",
                           "args": {"value": 1, "from_": "kilometer", "to": "meter"}})
    assert (message.tool_call_id, message.content) == ("call_1", "1000.0")


def test_langchain_hands_the_model_the_corrective_message(examples):
    from langchain_core.tools import StructuredTool

    returning = {function.__name__: function for function in examples.functions(errors="return")}
    tool = StructuredTool.from_function(returning["convert"])
    message = tool.invoke({"type": "tool_call", "id": "call_2", "name": "convert",
                           "args": {"value": 1, "from_": "mile", "to": "gram"}})
    assert json.loads(message.content)["error"] == MILE_TO_GRAM


# --- the OpenAI Agents SDK ------------------------------------------------------------


def run_function_tool(tool, arguments):
    from agents.tool_context import ToolContext

    context = ToolContext(context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=json.dumps(arguments))
    return asyncio.run(tool.on_invoke_tool(context, json.dumps(arguments)))


def test_openai_agents_function_tool(functions):
    from agents import function_tool

    tool = function_tool(functions["convert"], failure_error_function=lambda context, error: str(error))
    assert tool.name == "convert"
    properties = tool.params_json_schema["properties"]
    assert properties["from_"]["description"] == "the unit `value` is in."
    assert properties["precision"]["anyOf"][0]["type"] == "integer"
    assert run_function_tool(tool, {"value": 26.2, "from_": "mile", "to": "kilometer", "precision": 2}) == 42.16
    # The corrective message reaches the model as the tool's output.
    told = run_function_tool(tool, {"value": 1, "from_": "mile", "to": "gram", "precision": None})
    assert told == MILE_TO_GRAM
    records = function_tool(functions["add_duration"], failure_error_function=lambda context, error: str(error))
    moment = {"date": {"year": 2024, "month": 1, "day": 2}, "hour": 3, "minute": 4, "second": 5}
    later = run_function_tool(records, {"start": moment, "duration": {"days": 1, "hours": 0, "minutes": 0, "seconds": 0}})
    assert later["date"]["day"] == 3


# --- PraisonAI -------------------------------------------------------------------------


def test_praisonai_agent_execute_tool(examples, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "not-used: no model is called")
    from praisonaiagents import Agent

    returning = {function.__name__: function for function in examples.functions(errors="return")}
    agent = Agent(name="units", instructions="Convert units.", tools=[returning["convert"], returning["slugify"]])
    assert agent.execute_tool("convert", {"value": 26.2, "from_": "mile", "to": "kilometer", "precision": 2}) == 42.16
    assert agent.execute_tool("slugify", {"text": "Hello World", "separator": "_"}) == "hello_world"
    # The corrective message is the tool's answer, which PraisonAI hands to the model.
    answer = agent.execute_tool("convert", {"value": 1, "from_": "mile", "to": "gram"})
    assert (answer["kind"], answer["error"]) == ("tool_failed", MILE_TO_GRAM)
    # PraisonAI describes the function to the model from its signature and docstring.
    described = json.dumps(agent._format_tools_for_completion())
    assert '"from_"' in described and "Converts a value" in described


# --- a disclosing host: the finder, then the caller ---------------------------------------


def test_openai_agents_run_finds_a_tool_and_calls_it_through_the_caller(examples):
    """A whole Agents SDK run with a scripted model (the SDK's Model interface): it is
    given find_tools, call_tool and the core; it finds gcd, then calls it through
    call_tool, and reads the result."""
    from agents import Agent, ModelResponse, Runner, Usage, function_tool
    from agents.models.interface import Model
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    shown = examples.disclosing(["evaluate"], caller="call_tool")
    # call_tool takes any tool's arguments: an open object, which strict schemas refuse.
    tools = [function_tool(function, strict_mode=False, failure_error_function=lambda context, error: str(error))
             for function in shown.functions()]
    offered, outputs = [], []

    class Scripted(Model):
        async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs,
                               tracing, *, previous_response_id=None, conversation_id=None, prompt=None):
            offered.append([tool.name for tool in tools])
            outputs.extend(item["output"] for item in input if isinstance(item, dict) and item.get("type") == "function_call_output")
            turn = len(offered)
            if turn == 1:
                output = [ResponseFunctionToolCall(type="function_call", id="fc_1", call_id="call_1", name="find_tools",
                                                   arguments='{"query": "greatest common divisor of two numbers"}')]
            elif turn == 2:
                # The SDK hands the model a result that is no string as str() makes it.
                found = ast.literal_eval(outputs[-1])["tools"]
                output = [ResponseFunctionToolCall(type="function_call", id="fc_2", call_id="call_2", name="call_tool",
                                                   arguments=json.dumps({"name": found[0]["function"]["name"],
                                                                         "arguments": {"a": 12, "b": "18"}}))]
            else:
                text = ResponseOutputText(type="output_text", text=f"It is {outputs[-1]}.", annotations=[])
                output = [ResponseOutputMessage(type="message", id="msg_1", role="assistant", status="completed", content=[text])]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args, **kwargs):
            raise NotImplementedError

    agent = Agent(name="maths", instructions="Use the tools.", tools=tools, model=Scripted())
    result = asyncio.run(Runner.run(agent, "What is the greatest common divisor of 12 and 18?"))
    assert offered == [["find_tools", "call_tool", "evaluate"]] * 3
    assert ast.literal_eval(outputs[0])["tools"][0]["function"]["name"] == "gcd"
    assert result.final_output == "It is 6."


def test_langchain_runs_the_finder_and_the_caller_as_tool_calls(examples):
    from langchain_core.tools import StructuredTool

    shown = examples.disclosing(["evaluate"], format="anthropic", caller="call_tool")
    tools = {tool.name: tool for tool in map(StructuredTool.from_function, shown.functions(errors="return"))}
    assert list(tools) == ["find_tools", "call_tool", "evaluate"]
    assert "through call_tool" in tools["find_tools"].description
    found = tools["find_tools"].invoke({"type": "tool_call", "id": "call_1", "name": "find_tools",
                                        "args": {"query": "convert miles to kilometres", "limit": 2}})
    definition = json.loads(found.content)["tools"][0]
    assert definition["name"] == "convert" and "input_schema" in definition
    called = tools["call_tool"].invoke({"type": "tool_call", "id": "call_2", "name": "call_tool",
                                        "args": {"name": "convert", "arguments": {"value": 1, "from": "mile", "to": "gram"}}})
    assert json.loads(called.content)["error"] == MILE_TO_GRAM
    called = tools["call_tool"].invoke({"type": "tool_call", "id": "call_3", "name": "call_tool",
                                        "args": {"name": "convert", "arguments": {"value": 2, "from": "kilometer", "to": "meter"}}})
    assert called.content == "2000.0"
