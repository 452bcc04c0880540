"""What a trivial tool call costs from Python: toolhost's sandboxed call against an
in-process Python function run through an agent framework.

The trivial tool is the `echo` function of the `hostile` test guest (string in, string
out), the same one `cargo bench -p toolhost --bench dispatch -- dispatch/exact` times
from Rust, so the two figures differ only by the Python face. Cases:

- ``toolhost Host.call``: ``host.call("echo", {"text": "hello"})`` from Python.
- ``toolhost function``: the same tool through ``host.functions()``'s callable.
- ``PraisonAI execute_tool, in-process``: ``Agent.execute_tool("echo", ...)`` with a
  plain Python ``echo`` function as the tool (no sandbox), as PraisonAI runs a model's
  call; the agent forgets its calls before each one (outside the timing), as
  ``benches/peers/compare-peer.sh`` has it, or its loop guard would stop identical calls.
- ``PraisonAI execute_tool, toolhost``: the same entry point with toolhost's function.
- ``Python function``: the plain function alone, for scale.

Each case runs 1,000 calls to warm up, then times single calls (``perf_counter_ns``)
in 5 rounds of 4,000 and prints the median, 10th and 90th percentile over all of them,
and the medians of the rounds (their spread). Build the package with the release
profile (``pip install ./python``) and the guests first; then, from the repository root::

    python python/bench/bench_call.py
"""

import os
import statistics
import sys
import time
from pathlib import Path

import toolhost

ROOT = Path(__file__).resolve().parents[2]
ROUNDS, PER_ROUND, WARM_UP = 5, 4000, 1000


def measure(call, before=lambda: None):
    for _ in range(WARM_UP):
        before()
        call()
    samples, medians = [], []
    for _ in range(ROUNDS):
        round_samples = []
        for _ in range(PER_ROUND):
            before()
            start = time.perf_counter_ns()
            call()
            round_samples.append(time.perf_counter_ns() - start)
        medians.append(statistics.median(round_samples) / 1000)
        samples += round_samples
    samples.sort()
    at = lambda share: samples[int(share * (len(samples) - 1))] / 1000  # noqa: E731
    return at(0.5), at(0.1), at(0.9), medians


def echo(text: str) -> str:
    """Returns the text it is given."""
    return text


def main():
    os.environ.setdefault("OPENAI_API_KEY", "not-used-offline")
    from praisonaiagents import Agent

    sys.path.insert(0, str(ROOT / "bench"))
    from peer_execute_tool import reset

    host = toolhost.Host([ROOT / "target" / "test-guests" / "hostile.wasm"], cache_dir=ROOT / "target" / "bench-cache")
    sandboxed = next(f for f in host.functions() if f.__name__ == "echo")
    in_process = Agent(name="bench", instructions="-", tools=[echo])
    through_toolhost = Agent(name="bench", instructions="-", tools=[sandboxed])
    arguments = {"text": "hello"}
    assert host.call("echo", arguments) == "hello" and in_process.execute_tool("echo", arguments) == "hello"
    assert through_toolhost.execute_tool("echo", arguments) == "hello"
    # PraisonAI's agents forget their calls before each one, as at a new turn, outside
    # the timing, exactly as benches/peers/compare-peer.sh does (else they stop identical calls).
    cases = [
        ("toolhost Host.call", lambda: host.call("echo", arguments), None),
        ("toolhost function", lambda: sandboxed(text="hello"), None),
        ("PraisonAI execute_tool, in-process", lambda: in_process.execute_tool("echo", arguments), in_process),
        ("PraisonAI execute_tool, toolhost", lambda: through_toolhost.execute_tool("echo", arguments), through_toolhost),
        ("Python function", lambda: echo(text="hello"), None),
    ]
    print(f"Python {sys.version.split()[0]}, {ROUNDS} x {PER_ROUND} calls per case; microseconds")
    print(f"{'case':38} {'median':>8} {'p10':>8} {'p90':>8}   round medians")
    for label, call, agent in cases:
        median, p10, p90, medians = measure(call, (lambda: reset(agent)) if agent else (lambda: None))
        rounds = " ".join(f"{m:.2f}" for m in medians)
        print(f"{label:38} {median:8.2f} {p10:8.2f} {p90:8.2f}   {rounds}")


if __name__ == "__main__":
    main()
