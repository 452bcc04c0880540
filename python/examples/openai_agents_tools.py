"""toolhost's tools in the OpenAI Agents SDK: ``function_tool`` takes each of
``host.functions()`` as it is (its signature and docstring become the tool's schema).

``failure_error_function=corrective`` hands the model toolhost's corrective message
when a call fails (the SDK's default hides every error behind one fixed sentence).
This runs each tool the way the SDK's runner does after a model's tool call:
``on_invoke_tool`` with the argument JSON the model wrote.

    python python/examples/openai_agents_tools.py [PLUGIN_FOLDER]
"""

import asyncio
import json
import sys
from pathlib import Path

from agents import Agent, function_tool
from agents.tool_context import ToolContext

import toolhost

PLUGINS = Path(__file__).resolve().parents[2] / "target" / "plugins"


def corrective(context, error: Exception) -> str:
    """What the model is told when a tool fails: toolhost's message, as it is."""
    return str(error)


async def run(tool, arguments: str):
    context = ToolContext(context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=arguments)
    return await tool.on_invoke_tool(context, arguments)


def main(plugins: Path) -> list:
    host = toolhost.Host(plugins)
    tools = {f.__name__: function_tool(f, failure_error_function=corrective) for f in host.functions()}
    agent = Agent(name="units", instructions="Answer with the tools.", tools=list(tools.values()))
    print(f"agent {agent.name!r} has {len(agent.tools)} tools")
    calls = [
        ("convert", {"value": 10, "from_": "kilometer", "to": "mile"}),
        ("convert", {"value": 1, "from_": "mile", "to": "gram"}),
        ("factorial", {"n": 300}),
    ]
    outputs = []
    for name, arguments in calls:
        output = asyncio.run(run(tools[name], json.dumps(arguments)))
        print(f"{name}({arguments}) -> {output}")
        outputs.append(output)
    return outputs


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else PLUGINS)
