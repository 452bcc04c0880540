"""An MCP SDK client (the MCP project's ``mcp`` package from PyPI) over stdio, against
``toolhost serve``: it hears the progress and log lines that the Rust, Python and
JavaScript example tools report, and gets each one's chart as an image content
block; a tool's question reaches its elicitation callback and a tool's request its
sampling callback, and their answers go back to the tool; a tool that needs a person's
approval asks through the same callback and runs only on a yes. Over HTTP, with the
server closing a long call's event stream again and again (SSE polling), the client
resumes it and misses nothing."""

import asyncio
import base64
import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import CACHE, PLUGINS, ROOT, guest

TOOLHOST = Path(os.environ.get("TOOLHOST_BIN", ROOT / "target" / "debug" / "toolhost"))

CALLS = [
    # Rust (calculator), Python (stats-py), JavaScript (urls-js).
    ("plot", {"expression": "x ^ 2", "first": 0, "last": 4}, "info"),
    ("histogram", {"values": list(range(25_000)), "bins": 5}, "info"),
    ("count_hosts", {"urls": ["https://a.example/1", "nonsense", "https://b.example"]}, "warning"),
]


def serving(plugins, *options):
    """``toolhost serve`` over ``plugins``, as the SDK starts a stdio server."""
    if not TOOLHOST.is_file():
        pytest.fail(f"{TOOLHOST} is missing: build the command first (cargo build)")
    return StdioServerParameters(
        command=str(TOOLHOST),
        args=["serve", "--plugins", str(plugins), *options],
        env={"TOOLHOST_CACHE_DIR": str(CACHE), "PATH": os.environ.get("PATH", "")},
    )


async def call_over_stdio(tool, arguments):
    """Calls ``tool`` in a session of its own: the result, the progress and the log lines."""
    progress, lines = [], []

    async def on_log(params):
        lines.append(params)

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    async with stdio_client(serving(PLUGINS)) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            await session.initialize()
            result = await session.call_tool(tool, arguments, progress_callback=on_progress)
    return result, progress, lines


@pytest.mark.timeout(120)
@pytest.mark.parametrize("tool, arguments, level", CALLS, ids=[call[0] for call in CALLS])
def test_an_mcp_sdk_client_hears_progress_and_logs_and_gets_the_chart(tool, arguments, level):
    result, progress, lines = asyncio.run(call_over_stdio(tool, arguments))
    assert not result.is_error, result
    images = [block for block in result.content if block.type == "image"]
    assert len(images) == 1, result.content
    assert images[0].mime_type == "image/svg+xml"
    assert base64.b64decode(images[0].data).startswith(b"<svg")
    assert progress, "no progress was reported"
    done, total, _ = progress[-1]
    assert done == total and [step[0] for step in progress] == sorted(step[0] for step in progress)
    assert [line.level for line in lines] == [level], lines


@pytest.mark.timeout(120)
def test_a_tools_question_and_request_reach_the_sdks_callbacks_and_their_answers_the_tool(tmp_path):
    shutil.copy(guest("conformance"), tmp_path / "conformance.wasm")
    asked, sampled = [], []

    async def on_elicit(context, params):
        asked.append(params)
        return types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})

    async def on_sample(context, params):
        sampled.append(params)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="4"), model="m")

    async def run():
        async with stdio_client(serving(tmp_path)) as (read, write):
            async with ClientSession(read, write, elicitation_callback=on_elicit, sampling_callback=on_sample) as session:
                await session.initialize()
                elicited = await session.call_tool("test_elicitation", {"message": "Who are you?"})
                sampled_result = await session.call_tool("test_sampling", {"prompt": "2+2?"})
        return elicited, sampled_result

    elicited, sampled_result = asyncio.run(run())
    assert asked[0].message == "Who are you?"
    assert "action=accept" in elicited.content[0].text and "ada@example.com" in elicited.content[0].text
    assert sampled[0].messages[0].content.text == "2+2?" and sampled[0].max_tokens == 100
    assert sampled_result.content[0].text == '"LLM response: 4"'


@pytest.mark.timeout(120)
def test_the_person_at_an_mcp_sdk_client_approves_one_call_and_declines_others(tmp_path):
    shutil.copy(guest("hostile"), tmp_path / "hostile.wasm")
    config, audit = tmp_path / "toolhost.toml", tmp_path / "audit.log"
    config.write_text('[approval]\ntools = ["echo"]\n')
    asked = []
    answers = iter([
        types.ElicitResult(action="accept", content={"approve": True}),
        types.ElicitResult(action="accept", content={"approve": False}),
        types.ElicitResult(action="decline"),
    ])

    async def on_elicit(context, params):
        asked.append(params)
        return next(answers)

    async def run():
        options = ("--config", str(config), "--audit-log", str(audit))
        async with stdio_client(serving(tmp_path, *options)) as (read, write):
            async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
                await session.initialize()
                return [await session.call_tool("echo", {"text": text}) for text in ("first", "second", "third")]

    approved, unchecked, declined = asyncio.run(run())
    assert not approved.is_error and approved.content[0].text == '"first"', approved
    for refused in (unchecked, declined):
        assert refused.is_error, refused
        assert "did not approve running 'echo'" in refused.content[0].text
    assert len(asked) == 3
    assert asked[0].message.startswith("The agent wants to run 'echo'") and '"text": "first"' in asked[0].message
    assert asked[0].requested_schema["properties"]["approve"]["type"] == "boolean"
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [line["outcome"] for line in lines] == ["ok", "not_approved", "not_approved"]
    assert "approved_by" in lines[0] and all("approved_by" not in line for line in lines[1:])


@pytest.mark.timeout(120)
def test_an_mcp_sdk_client_finds_and_calls_a_tool_it_was_not_shown():
    async def run():
        async with stdio_client(serving(PLUGINS, "--disclose", "evaluate")) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                found = await session.call_tool("find_tools", {"query": "count the words and lines of a text", "limit": 3})
                definitions = json.loads(found.content[0].text)["tools"]
                called = await session.call_tool("word_count", {"text": "one two three"})
        return listed, found, definitions, called

    listed, found, definitions, called = asyncio.run(run())
    assert [tool.name for tool in listed.tools] == ["find_tools", "evaluate"]
    assert not found.is_error, found
    assert 1 <= len(definitions) <= 3, definitions
    word_count = next(tool for tool in definitions if tool["name"] == "word_count")
    assert "text" in word_count["inputSchema"]["properties"]
    assert not called.is_error, called
    assert json.loads(called.content[0].text)["words"] == 3


def wait_until_loaded(health):
    """Waits (a bounded while) until the server's ``/health`` says its plugins are loaded."""
    for _ in range(600):
        try:
            with urllib.request.urlopen(health, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    pytest.fail(f"{health} did not say 200 within 30 s")


@pytest.mark.timeout(120)
def test_an_mcp_sdk_client_resumes_a_long_calls_closed_streams_and_misses_nothing(tmp_path):
    shutil.copy(guest("hostile"), tmp_path / "hostile.wasm")
    server = subprocess.Popen(
        [str(TOOLHOST), "serve", "--http", "127.0.0.1:0", "--plugins", str(tmp_path),
         "--poll-after-ms", "150", "--sse-retry-ms", "50"],
        env={"TOOLHOST_CACHE_DIR": str(CACHE), "PATH": os.environ.get("PATH", "")},
        stderr=subprocess.PIPE, text=True,
    )
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/mcp", server.stderr.readline()).group(0)
        wait_until_loaded(url.removesuffix("/mcp") + "/health")
        progress, asked = [], []

        async def on_progress(done, total, message):
            progress.append((done, total, message))

        async def on_elicit(context, params):
            asked.append(params.message)
            return types.ElicitResult(action="accept", content={"ok": True})

        async def run():
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
                    await session.initialize()
                    # Eight steps 100 ms apart, then a question: about six streams closed.
                    arguments = {"steps": 8, "pause_ms": 100, "ask": True}
                    return await session.call_tool("work", arguments, progress_callback=on_progress)

        result = asyncio.run(run())
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert not result.is_error, result
    assert result.structured_content == {"result": 9}
    assert progress == [(float(step), 8.0, f"step {step}") for step in range(1, 9)]
    assert asked == ["One more?"]
