"""Self-repair as a Python caller sees it: the Rust self-repair tests' cases, full messages."""

import pytest

import toolhost
from conftest import CACHE, guest, message, runs

INVENTORY = "Available tools: ['calculator', 'web_search']"
EXPECTED = "Expected parameters for 'web_search' — required: ['query'], optional: ['limit']."
ORBITS = ["Planets move in elliptical orbits with the Sun at one focus."]

# --- names -------------------------------------------------------------------------


def test_a_mis_cased_name_runs(first_run):
    for name in ["WebSearch", "WEB_SEARCH", "webSearch"]:
        runs(first_run, name, {"query": "orbits"}, "web_search")


def test_separator_drift_and_surrounding_whitespace_are_repaired(first_run):
    for name in ["web-search", "web search", " web_search\n", "\tweb_search", "web_search\u00a0"]:
        runs(first_run, name, {"query": "orbits"}, "web_search")


def test_an_unknown_name_gets_the_sorted_inventory(first_run):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        first_run.call("totally_made_up_tool", {})
    error = failure.value
    assert str(error) == f"Tool 'totally_made_up_tool' not found. {INVENTORY}"
    assert error.kind == "unknown_tool"
    assert error.name == "totally_made_up_tool"
    assert error.available_tools == ["calculator", "web_search"]
    assert error.suggestion is None and error.tool is None
    assert error.to_dict() == {
        "error": f"Tool 'totally_made_up_tool' not found. {INVENTORY}",
        "kind": "unknown_tool",
        "name": "totally_made_up_tool",
        "suggestion": None,
        "available_tools": ["calculator", "web_search"],
        "nearest_tools": [],  # neither is like it, by its words or its spelling
    }


def test_the_nearest_name_is_suggested_but_never_run(first_run):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        first_run.call("web_serch", {"query": "x"})
    assert str(failure.value) == f"Tool 'web_serch' not found. Did you mean 'web_search'? {INVENTORY}"
    assert failure.value.suggestion == "web_search"
    outcome = first_run.dispatch("web_serch", {"query": "x"})
    assert outcome.tool is None and not outcome.ok and outcome.value is None


def test_an_empty_name_gets_the_inventory(first_run):
    assert message(first_run, "") == f"Tool '' not found. {INVENTORY}"


def test_a_name_several_tools_share_runs_nothing_and_names_them_all(second_run):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        second_run.call("WebSearch", {"query": "q"})
    assert str(failure.value) == (
        "Tool 'WebSearch' is ambiguous: it matches ['web_search', 'websearch']. "
        "Nothing was run; call one of them by its exact name."
    )
    assert failure.value.kind == "ambiguous_tool"
    assert failure.value.candidates == ["web_search", "websearch"]
    runs(second_run, "websearch", {"q": "x"}, "websearch")


@pytest.mark.parametrize(
    "name",
    ["functions.get_weather", "default_api.get_weather", "mcp__weather__get_weather", "functions.getWeather",
     "peer-weather/get_weather"],
)
def test_wrapper_prefixes_are_stripped_when_the_rest_is_unique(second_run, name):
    runs(second_run, name, {"city": "Oslo"}, "get_weather")


def test_a_prefix_does_not_make_a_fuzzy_name_exact(second_run):
    assert message(second_run, "functions.weather").startswith(
        "Tool 'functions.weather' not found. Did you mean 'get_weather'? "
    )


# --- toolsets ------------------------------------------------------------------------


def test_a_toolset_restricts_resolution_hints_and_inventory(second_run):
    toolset = second_run.toolset(["web_search", "calculator"])
    assert [tool.name for tool in toolset.tools()] == ["calculator", "web_search"]
    runs(toolset, "WebSearch", {"query": "orbits"}, "web_search")
    assert message(toolset, "get_weather", {"city": "Oslo"}) == f"Tool 'get_weather' not found. {INVENTORY}"
    assert len(toolset) == 2 and "web_search" in toolset and "websearch" not in toolset


def test_a_toolset_with_a_typo_fails_at_construction(second_run):
    with pytest.raises(toolhost.ToolsetError, match=r"^Unknown tool 'web_serch'\. Did you mean 'web_search'\?$"):
        second_run.toolset(["web_serch", "calculator"])
    with pytest.raises(ValueError, match="is ambiguous: it matches"):
        second_run.toolset(["WebSearch"])


# --- arguments -----------------------------------------------------------------------


def test_a_missing_argument_names_it_and_lists_the_parameters(first_run):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        first_run.call("web_search", {})
    error = failure.value
    assert str(error) == f"Tool 'web_search' was called with missing required parameter 'query'. {EXPECTED}"
    assert error.kind == "invalid_arguments" and error.tool == "web_search"
    assert error.expected_parameters == {"required": ["query"], "optional": ["limit"]}
    # No arguments at all is an empty object.
    assert message(first_run, "web_search") == str(error)
    assert str(first_run.dispatch("web_search").error) == str(error)


def test_an_unexpected_argument_names_it_and_lists_the_parameters(first_run):
    assert message(first_run, "web_search", {"query": "a", "bogus": 1}) == (
        f"Tool 'web_search' was called with unexpected parameter 'bogus'. {EXPECTED}"
    )


def test_arguments_that_are_not_an_object_are_refused(first_run):
    for arguments in (["orbits"], "orbits", 3):
        error = message(first_run, "web_search", arguments)
        assert error.startswith("Tool 'web_search' takes its arguments as a JSON object"), error


def test_the_tools_own_error_comes_back_unchanged(first_run):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        first_run.call("web_search", {"query": ""})
    assert str(failure.value) == "query must not be empty"
    assert failure.value.to_dict() == {
        "error": "query must not be empty", "kind": "tool_failed", "tool": "web_search",
        "message": "query must not be empty",
    }


def test_a_wrong_type_is_rejected_before_the_tool_runs(first_run):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        first_run.call("web_search", {"query": "a", "limit": "five"})
    error = failure.value
    assert str(error) == (
        "Invalid arguments for 'web_search': 'limit' must be an integer between 0 and 4294967295, got \"five\"."
    )
    assert (error.kind, error.path, error.expected, error.got) == (
        "invalid_value", "limit", "an integer between 0 and 4294967295", '"five"'
    )


def test_lossless_coercions_are_made(first_run, examples):
    assert runs(first_run, "web_search", {"query": "orbits", "limit": "1"}, "web_search") == ORBITS
    assert runs(first_run, "web_search", {"query": "orbits", "limit": 1.0}, "web_search") == ORBITS
    assert runs(examples, "slugify", {"text": "A b", "separator": "."}, "slugify") == "a.b"
    assert message(first_run, "web_search", {"query": "a", "limit": 1.5}) == (
        "Invalid arguments for 'web_search': 'limit' must be an integer between 0 and 4294967295, got 1.5."
    )


def test_parameter_names_are_matched_across_case_and_separators(first_run, examples):
    runs(first_run, "web_search", {"Query": "orbits"}, "web_search")
    moment = {"date": {"year": 2024, "month": 1, "day": 2}, "hour": 3, "minute": 4, "second": 5}
    for key in ["utc_offset_hours", "utcOffsetHours", "utc-offset-hours"]:
        assert examples.call("format_date_time", {"moment": moment, key: 2}) == "2024-01-02T03:04:05+02:00"
    assert message(first_run, "web_search", {"query": "a", "Query": "b"}) == (
        f"Tool 'web_search' was called with parameter 'query' twice (as 'query' and 'Query'). {EXPECTED}"
    )


def test_enum_drift_is_repaired_and_anything_else_lists_the_allowed_values(second_run):
    assert runs(second_run, "get_weather", {"city": "Oslo", "unit": "Fahrenheit"}, "get_weather") == "Oslo: 64 °F"
    assert message(second_run, "get_weather", {"city": "Oslo", "unit": "kelvin"}) == (
        "Invalid arguments for 'get_weather': 'unit' must be one of ['celsius', 'fahrenheit'], got \"kelvin\"."
    )


def test_nested_values_are_checked_with_their_path(examples):
    assert message(examples, "statistics", {"values": [1, 2, "three"]}) == (
        "Invalid arguments for 'statistics': 'values[2]' must be an integer between -9223372036854775808 and "
        "9223372036854775807, got \"three\"."
    )


def test_argument_text_is_parsed_strictly_then_repaired(first_run):
    assert first_run.call_text("web_search", '{"query": "orbits", "limit": 1}') == ORBITS
    assert first_run.call_text("web_search", "```json\n{'query': 'orbits', limit: 1,}\n```") == ORBITS
    assert first_run.call_text("web_search", '{"query": "orbits", "limit": 1') == ORBITS
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        first_run.call_text("web_search", '{"query": orbits}')
    assert str(failure.value) == (
        "The arguments for 'web_search' are not valid JSON: expected value at line 1 column 11, "
        f"near `{{\"query\": orbits}}`. {EXPECTED}"
    )
    outcome = first_run.dispatch_text("WebSearch", "{'query': 'orbits', 'limit': 1}")
    assert (outcome.tool, outcome.repaired_from, outcome.value) == ("web_search", "WebSearch", ORBITS)


# --- crashes, time-outs and the sandbox -----------------------------------------------


def test_each_trap_kind_is_told_in_plain_words(hostile):
    def crash(name, arguments=None):
        with pytest.raises(toolhost.ToolExecutionError) as failure:
            hostile.call(name, arguments or {})
        assert failure.value.kind == "crashed", failure.value
        return failure.value.reason

    assert crash("recurse", {"depth": 0}) == "it overflowed its call stack (endless recursion?)"
    assert crash("read_out_of_bounds") == "it accessed memory out of bounds"
    assert crash("trap_silently") == "it aborted without a message"
    assert message(hostile, "panic_with", {"message": "no disk"}) == (
        "Tool 'panic_with' crashed: it panicked: no disk. Retrying with the same arguments will fail the same way."
    )
    assert hostile.call("echo", {"text": "fine"}) == "fine"


def test_limits_stop_a_tool_and_the_host_serves_on(hostile):
    for tool, arguments, kind in [
        ("spin", {}, "timed_out"),
        ("sleep", {"ms": 60_000}, "timed_out"),
        ("allocate_huge", {"bytes": 1536 << 20}, "out_of_memory"),
    ]:
        with pytest.raises(toolhost.ToolExecutionError) as failure:
            hostile.call(tool, arguments)
        assert failure.value.kind == kind, failure.value
        assert hostile.call("echo", {"text": "after"}) == "after"
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        hostile.call("spin")
    assert str(failure.value) == (
        "Tool 'spin' was stopped after its time limit of 300 ms. Retrying may help only with smaller input."
    )
    assert failure.value.limit_ms == 300


def test_a_global_does_not_survive_between_calls(hostile):
    assert [hostile.call("count_calls") for _ in range(3)] == [1, 1, 1]


def test_the_sandbox_denies_files_sockets_and_names(hostile):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        hostile.call("read_path", {"path": "/etc/passwd"})
    error = failure.value
    assert error.kind == "denied"
    assert error.denied == ["opening '/etc/passwd' (it is outside the folders granted to this tool)"]
    assert str(error) == (
        "Tool 'read_path' was denied by its sandbox: opening '/etc/passwd' (it is outside the folders granted to "
        "this tool). The tool reported: /etc/passwd: Permission denied (os error 2). Retrying will not help; only "
        "the tool's manifest can grant this access."
    )
    for tool, arguments, denied in [
        ("connect", {"address": "127.0.0.1:9"}, "opening a TCP socket"),
        ("resolve", {"host": "localhost"}, "a lookup of the host name 'localhost'"),
    ]:
        with pytest.raises(toolhost.ToolExecutionError) as failure:
            hostile.call(tool, arguments)
        assert failure.value.kind == "denied" and failure.value.denied[0].startswith(denied), failure.value
    assert hostile.call("env_var", {"name": "HOME"}) is None


def test_a_manifest_grant_is_honoured_and_its_edges_denied(tmp_path):
    plugins, data = tmp_path / "plugins", tmp_path / "data"
    plugins.mkdir()
    data.mkdir()
    (data / "ok.txt").write_text("fine")
    (plugins / "hostile.wasm").write_bytes(guest("hostile").read_bytes())
    (plugins / "hostile.toml").write_text(f'[[dirs]]\nhost = "{data}"\nguest = "/data"\n')
    host = toolhost.Host(plugins, cache_dir=CACHE)
    assert host.call("read_path", {"path": "/data/ok.txt"}) == "fine"
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        host.call("write_path", {"path": "/data/new.txt", "contents": "x"})
    assert failure.value.kind == "denied", failure.value
    assert not (data / "new.txt").exists()


def test_an_error_has_only_the_facts_of_a_tool_error(first_run):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        first_run.call("web_search", {"query": ""})
    error = failure.value
    assert error.path is None and error.limit_ms is None  # facts this failure does not have
    with pytest.raises(AttributeError, match="has no attribute 'bogus'"):
        error.bogus
    import pickle

    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.to_dict()) == (str(error), error.to_dict())


def test_the_outcome_lists_every_repair_in_words(examples):
    outcome = examples.dispatch_text("Statistics", '{"Values": "7",}')
    assert outcome.ok and outcome.value["count"] == 1
    assert outcome.repairs == [
        "name 'Statistics' → 'statistics'",
        "argument text: a trailing comma removed",
        "parameter 'Values' read as 'values'",
        "'values' wrapped in a list",
        "'values[0]': \"7\" read as 7",
    ]
    assert examples.dispatch("gcd", {"a": 12, "b": 18}).repairs == []
