"""toolhost's tools in PraisonAI: ``Agent(tools=[...])`` takes each of
``host.functions(errors="return")`` as it is.

PraisonAI ends a run when a tool raises, but hands a returned ``{"error": ...}`` to the
model as the tool's answer; ``errors="return"`` makes a failed call return the
corrective message that way. This runs each tool through ``Agent.execute_tool``, the
entry point PraisonAI calls after a model's tool call (no model is called here).

    python python/examples/praisonai_tools.py [PLUGIN_FOLDER]
"""

import os
import sys
from pathlib import Path

import toolhost

PLUGINS = Path(__file__).resolve().parents[2] / "target" / "plugins"


def main(plugins: Path) -> list:
    os.environ.setdefault("OPENAI_API_KEY", "not-used-offline")
    from praisonaiagents import Agent

    host = toolhost.Host(plugins)
    functions = {f.__name__: f for f in host.functions(errors="return")}
    agent = Agent(name="units", instructions="Convert units.", tools=[functions["convert"], functions["word_count"]])
    calls = [
        ("convert", {"value": 10, "from_": "kilometer", "to": "mile"}),
        ("convert", {"value": 1, "from_": "mile", "to": "gram"}),
        ("word_count", {"text": "sandboxed tools for agents"}),
    ]
    answers = []
    for name, arguments in calls:
        answer = agent.execute_tool(name, arguments)
        print(f"{name}({arguments}) -> {answer}")
        answers.append(answer)
    return answers


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else PLUGINS)
