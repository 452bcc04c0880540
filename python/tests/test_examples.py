"""The examples in python/examples run, and do what their docstrings say."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CACHE, PLUGINS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str) -> str:
    environment = {**os.environ, "TOOLHOST_CACHE_DIR": str(CACHE)}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py"), str(PLUGINS)],
        capture_output=True, text=True, timeout=300, env=environment, check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_agent_loop_repairs_and_corrects():
    output = run_example("agent_loop")
    assert "host repaired 'Convert' -> 'convert'\n  tool result: 6.2137119224" in output
    assert "tool result: Tool 'evalute' not found. Did you mean 'evaluate'?" in output
    assert "model called evaluate" in output and "tool result: 12.42" in output
    assert output.rstrip().endswith("the model is done after 7 messages")


MILE_TO_GRAM = "cannot convert mile (length) to gram (mass): they measure different things"


@pytest.mark.parametrize("example", ["langchain_tools", "openai_agents_tools", "praisonai_tools"])
def test_each_framework_example_runs_the_tools_and_passes_on_the_message(example):
    output = run_example(example)
    assert "convert({'value': 10, 'from_': 'kilometer', 'to': 'mile'}) -> 6.2137119224" in output
    assert MILE_TO_GRAM in output
