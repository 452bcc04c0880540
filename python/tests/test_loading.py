"""Loading: folders, files, limits, malformed plugin folders, reloads."""

import shutil

import pytest

import toolhost
from conftest import CACHE, PLUGINS, guest


def test_the_done_when_line(examples):
    assert examples.call("Evaluate", {"expression": "2*(3+4)"}) == 14.0


def test_tools_describe_themselves(examples):
    tools = {tool.name: tool for tool in examples.tools()}
    assert len(tools) == len(examples) == 37
    convert = tools["convert"]
    assert (convert.component, convert.title, convert.sandboxed) == ("units", "Convert", True)
    assert convert.description.startswith("Converts a value from one unit to another")
    assert convert.parameters["required"] == ["value", "from", "to"]
    assert convert.result == {"type": "number"}
    assert convert.annotations == {"read_only": True, "destructive": False, "idempotent": True, "open_world": False}
    assert examples.tool("convert").name == "convert" and examples.tool("Convert") is None
    assert tools["is_palindrome"].result == {"type": "boolean"}


def test_tools_are_found_by_what_they_do(examples):
    found = examples.search_tools("convert miles to kilometers", limit=3)
    assert found[0].name == "convert" and len(found) <= 3
    assert "gcd" in [tool.name for tool in examples.search_tools("greatest common divisor")]
    assert examples.search_tools("zebra crossing") == []
    assert len(examples.search_tools("text", limit=2)) == 2


def test_definitions_within_a_budget_and_a_disclosing_host(examples):
    definitions, left_out = examples.definitions("openai", most=2, task="convert a temperature")
    assert len(definitions) == 2 and definitions[0]["function"]["name"] == "convert"
    assert len(left_out) == len(examples.tools()) - 2 and "convert" not in left_out

    shown = examples.disclosing(["evaluate"], format="anthropic")
    assert [d["name"] for d in shown.tool_definitions("anthropic")] == ["find_tools", "evaluate"]
    found = shown.call("find_tools", {"query": "greatest common divisor", "limit": 2})
    assert found["tools"][0]["name"] == "gcd" and "input_schema" in found["tools"][0]
    assert shown.call("gcd", {"a": 12, "b": 18}) == 6
    with pytest.raises(toolhost.ToolsetError, match=r"\["):
        examples.disclosing(["["])


@pytest.mark.parametrize("format, key", [("openai", "function"), ("openai-responses", "name"), ("anthropic", "input_schema"), ("mcp", "inputSchema")])
def test_tool_definitions_in_each_format(examples, format, key):
    definitions = examples.tool_definitions(format)
    assert len(definitions) == 37 and all(key in definition for definition in definitions)
    assert examples.tool("gcd").definition(format) in definitions


def test_an_unknown_format_lists_the_formats(examples):
    with pytest.raises(ValueError, match="unknown format 'gemini': use one of openai, openai-responses, anthropic, mcp"):
        examples.tool_definitions("gemini")


def test_a_missing_folder_raises_load_error(tmp_path):
    with pytest.raises(toolhost.LoadError, match=r"cannot read the plugin folder .*missing"):
        toolhost.Host(tmp_path / "missing")


def test_a_malformed_plugin_folder_warns_and_serves_the_rest(tmp_path):
    shutil.copy(PLUGINS / "calculator.wasm", tmp_path / "calculator.wasm")
    (tmp_path / "junk.wasm").write_bytes(b"\0asm\x0d\0\x01\0 this is not a component")
    (tmp_path / "text.wasm").write_text("hello")
    shutil.copy(guest("needy"), tmp_path / "needy.wasm")
    (tmp_path / "folder.wasm").mkdir()
    (tmp_path / "vanished.wasm").symlink_to(tmp_path / "gone.wasm")
    shutil.copy(PLUGINS / "units.wasm", tmp_path / "units.wasm")
    (tmp_path / "units.toml").write_text("[limits]\nbogus = 1\n")
    host = toolhost.Host(tmp_path, cache_dir=CACHE)
    assert host.call("gcd", {"a": 6, "b": 4}) == 2
    assert "convert" not in host  # its manifest is invalid, so it is not run with the wrong grants
    warnings = host.warnings
    for file in ["junk.wasm", "text.wasm", "needy.wasm", "folder.wasm", "vanished.wasm", "units.toml"]:
        assert any(file in warning for warning in warnings), (file, warnings)
    report = host.load_report()
    assert [component["name"] for component in report["components"]] == ["calculator"]
    assert report["warnings"] == warnings


def test_limits_are_read_and_checked():
    limits = toolhost.Limits(time_ms=2000, memory_mb=64)
    assert (limits.time_ms, limits.memory_bytes, limits.output_bytes, limits.result_bytes) == (2000, 64 << 20, 64 << 10, 1 << 20)
    assert limits == toolhost.Limits(time_ms=2000, memory_mb=64)
    with pytest.raises(ValueError, match="time_ms must be at least 1"):
        toolhost.Limits(time_ms=0)
    with pytest.raises(OverflowError):
        toolhost.Limits(time_ms=-1)


def test_a_result_limit_applies(tmp_path):
    host = toolhost.Host([guest("hostile")], cache_dir=CACHE, limits=toolhost.Limits(result_kb=1))
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        host.call("big_string", {"length": 4096})
    assert (failure.value.kind, failure.value.limit_bytes) == ("result_too_large", 1024)


def test_cache_arguments(tmp_path):
    host = toolhost.Host([PLUGINS / "calculator.wasm"], cache=False)
    assert host.call("gcd", {"a": 2, "b": 4}) == 2
    assert host.load_report()["components"][0]["compiled"] is True
    with pytest.raises(ValueError, match="contradict"):
        toolhost.Host([PLUGINS / "calculator.wasm"], cache=False, cache_dir=tmp_path)


def test_the_compiler_argument():
    host = toolhost.Host([PLUGINS / "calculator.wasm"], cache=False, compiler="baseline")
    assert host.call("gcd", {"a": 2, "b": 4}) == 2
    assert host.load_report()["components"][0]["baseline"] is True
    optimized = toolhost.Host([PLUGINS / "calculator.wasm"], cache=False, compiler="optimizing")
    assert optimized.load_report()["components"][0]["baseline"] is False
    with pytest.raises(ValueError, match="'auto', 'optimizing' or 'baseline'"):
        toolhost.Host([PLUGINS / "calculator.wasm"], compiler="fast")


def test_reload_picks_up_a_new_component(tmp_path):
    shutil.copy(PLUGINS / "calculator.wasm", tmp_path / "calculator.wasm")
    host = toolhost.Host(tmp_path, cache_dir=CACHE)
    assert "convert" not in host
    assert host.reload() is False
    shutil.copy(PLUGINS / "units.wasm", tmp_path / "units.wasm")
    assert host.reload() is True
    assert host.call("convert", {"value": 1, "from": "kilometer", "to": "meter"}) == 1000.0


def test_a_watched_folder_loads_a_new_component_while_serving(tmp_path):
    import time

    shutil.copy(PLUGINS / "calculator.wasm", tmp_path / "calculator.wasm")
    host = toolhost.Host(tmp_path, cache_dir=CACHE, watch=True)
    shutil.copy(PLUGINS / "units.wasm", tmp_path / "units.wasm")
    deadline = time.monotonic() + 30
    while "convert" not in host and time.monotonic() < deadline:
        assert host.call("gcd", {"a": 6, "b": 4}) == 2  # serving meanwhile
        time.sleep(0.05)
    assert host.call("convert", {"value": 1, "from": "kilometer", "to": "meter"}) == 1000.0
