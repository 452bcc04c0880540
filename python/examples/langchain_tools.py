"""toolhost's tools as LangChain tools: ``StructuredTool.from_function`` takes each of
``host.functions()`` as it is (its signature and docstring become the tool's schema).

This runs the tools the way LangChain does after a model's tool call: ``tool.invoke``
with a ``tool_call`` dict, which returns the ``ToolMessage`` for the model. With
``errors="return"`` a failed call's corrective message is that message's content, so
the model can correct itself instead of the run ending.

    python python/examples/langchain_tools.py [PLUGIN_FOLDER]
"""

import sys
from pathlib import Path

from langchain_core.tools import StructuredTool

import toolhost

PLUGINS = Path(__file__).resolve().parents[2] / "target" / "plugins"


def main(plugins: Path) -> list:
    host = toolhost.Host(plugins)
    tools = {f.__name__: StructuredTool.from_function(f) for f in host.functions(errors="return")}
    print(f"{len(tools)} LangChain tools; convert takes {sorted(tools['convert'].args)}")
    # What a model's tool calls look like once LangChain has parsed them.
    calls = [
        {"type": "tool_call", "id": "call_1", "name": "convert", "args": {"value": 10, "from_": "kilometer", "to": "mile"}},
        {"type": "tool_call", "id": "call_2", "name": "convert", "args": {"value": 1, "from_": "mile", "to": "gram"}},
        {"type": "tool_call", "id": "call_3", "name": "word_count", "args": {"text": "sandboxed tools for agents"}},
    ]
    replies = []
    for call in calls:
        message = tools[call["name"]].invoke(call)
        print(f"{call['name']}({call['args']}) -> {message.content}")
        replies.append(message)
    return replies


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else PLUGINS)
