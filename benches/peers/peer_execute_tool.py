"""Times the reference implementation's Agent.execute_tool on a trivial tool.

Prints one JSON object: the median microseconds of one call by the exact name and by
a drifted name ("WebSearch"), over many calls. The agent's loop guard and its tool
circuit breakers, loop detector and doom-loop tracker are reset before each call, so that only dispatch is timed (left
alone, the loop guard stops repeated identical calls).
"""
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OPENAI_API_KEY", "not-used-no-model-is-called")

from praisonaiagents import Agent  # noqa: E402


def web_search(text: str) -> str:
    """Returns the text unchanged (the same trivial work as toolhost's echo)."""
    return text


def reset(agent) -> None:
    """Forgets the calls so far, as a new turn would: the loop guard (created again on
    the next call), the loop detector's history, the doom-loop tracker and the tool
    circuit breakers. Left alone they stop a run of identical calls."""
    agent._loop_guard = None
    if getattr(agent, "_loop_detector_history", None) is not None:
        agent._loop_detector_history.clear()
    if getattr(agent, "_doom_loop_tracker", None) is not None:
        agent._doom_loop_tracker = None
    agent._cleanup_circuit_breakers()


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    agent = Agent(name="Bench", instructions="Benchmark", tools=[web_search])

    def median_us(name: str) -> float:
        samples = []
        for _ in range(calls):
            reset(agent)
            started = time.perf_counter_ns()
            result = agent.execute_tool(name, {"text": "hello"})
            samples.append(time.perf_counter_ns() - started)
            if result != "hello":
                raise SystemExit(f"unexpected result from {name}: {result!r}")
        return statistics.median(samples) / 1000

    median_us("web_search")  # warm-up
    print(json.dumps({"exact_us": median_us("web_search"), "repaired_us": median_us("WebSearch"), "calls": calls}))


if __name__ == "__main__":
    main()
