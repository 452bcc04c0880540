"""An agent loop with toolhost from Python, offline.

The tools go to the model in OpenAI's chat-completions format; each tool call the model
makes goes to ``host.dispatch_text`` with the argument text as the model wrote it; the
result, or the corrective message, goes back as the tool's message. The "model" is a
script that makes the mistakes real models make and corrects itself from what it is told.

Run it from the repository root after building the guests (scripts/build-guests.sh)
and installing the package (pip install ./python)::

    python python/examples/agent_loop.py [PLUGIN_FOLDER]
"""

import json
import sys
from pathlib import Path

import toolhost

PLUGINS = Path(__file__).resolve().parents[2] / "target" / "plugins"


class ScriptedModel:
    """Answers each turn with a tool call (name, argument text), or None when done."""

    def __init__(self):
        self.turns = iter([
            # A drifted name and arguments with a trailing comma: both repaired.
            ("Convert", '{"value": 10, "from": "kilometer", "to": "mile",}'),
            # A typo in the name: the host answers with a hint and runs nothing...
            ("evalute", '{"expression": "6.21 * 2"}'),
            # ...so the model retries with the name it was offered.
            ("evaluate", '{"expression": "6.21 * 2"}'),
        ])

    def respond(self, messages, tools):
        """The next turn, given the conversation so far (a real model would read it)."""
        return next(self.turns, None)


def main(plugins: Path) -> list:
    host = toolhost.Host(plugins)
    tools = host.tool_definitions("openai")
    print(f"offering the model {len(tools)} tools")
    model = ScriptedModel()
    messages = [{"role": "user", "content": "How many miles is 10 km, doubled?"}]
    while (call := model.respond(messages, tools)) is not None:
        name, arguments = call
        outcome = host.dispatch_text(name, arguments)
        content = json.dumps(outcome.value) if outcome.ok else str(outcome.error)
        print(f"\nmodel called {name} {arguments}")
        if outcome.repaired_from:
            print(f"  host repaired '{outcome.repaired_from}' -> '{outcome.tool}'")
        print(f"  tool result: {content}")
        messages.append({"role": "assistant", "tool_calls": [
            {"type": "function", "function": {"name": name, "arguments": arguments}}]})
        messages.append({"role": "tool", "content": content})
    print(f"\nthe model is done after {len(messages)} messages")
    return messages


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else PLUGINS)
