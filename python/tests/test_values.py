"""Python values ↔ WIT values, for every WIT type the example tools use: round trips,
bounds, wrong types, and the Python values that JSON cannot carry."""

import enum

import pytest

import toolhost
from conftest import message

DATE = {"year": 2024, "month": 1, "day": 2}
MOMENT = {"date": DATE, "hour": 3, "minute": 4, "second": 5}


def test_string_and_char(examples):
    assert examples.call("slugify", {"text": "Hello, Wörld!"}) == "hello-world"
    assert examples.call("char_at", {"text": "héllo", "index": 1}) == "é"
    assert message(examples, "slugify", {"text": "a", "separator": "--"}) == (
        "Invalid arguments for 'slugify': 'separator' must be a single character (a string of length 1), got \"--\"."
    )
    assert message(examples, "slugify", {"text": True}).startswith("Invalid arguments for 'slugify': 'text' must be a string")
    # A number for a string is its text (Java and JavaScript signatures are often called so).
    assert examples.call("slugify", {"text": 2024}) == "2024"


def test_bool(examples):
    assert examples.call("is_palindrome", {"text": "abba"}) is True
    assert examples.call("is_palindrome", {"text": "abc"}) is False
    built = examples.call("build_url", {"host": "example.com", "path": "/s", "query": [], "secure": False})
    assert built == "http://example.com/s"


@pytest.mark.parametrize(
    "tool, arguments, key, low, high",
    [
        ("factorial", {}, "n", 0, 255),  # u8
        ("top_words", {"text": "a"}, "limit", 0, 65535),  # u16
        ("char_at", {"text": "abc"}, "index", 0, 4294967295),  # u32
        ("gcd", {"b": 5}, "a", 0, 18446744073709551615),  # u64
    ],
)
def test_unsigned_integers_take_their_whole_range_and_nothing_beyond(examples, tool, arguments, key, low, high):
    for outside in (low - 1, high + 1):
        text = message(examples, tool, {**arguments, key: outside})
        # Past 64 bits an int is sent as the float that JSON text with its digits is.
        shown = outside if outside < 2**64 else float(outside)
        assert text == f"Invalid arguments for '{tool}': '{key}' must be an integer between {low} and {high}, got {shown}.", text
    assert examples.dispatch(tool, {**arguments, key: True}).error.kind == "invalid_value"


def test_integers_at_the_edges_round_trip(examples):
    assert examples.call("gcd", {"a": 18446744073709551615, "b": 5}) == 5
    assert examples.call("factorial", {"n": 20}) == 2432902008176640000  # u64 result
    extremes = examples.call("statistics", {"values": [-9223372036854775808, 9223372036854775807]})  # s64
    assert (extremes["min"], extremes["max"], extremes["sum"]) == (-9223372036854775808, 9223372036854775807, -1)
    assert examples.call("days_between", {"from": DATE, "to": {"year": 2023, "month": 1, "day": 2}}) == -365


def test_signed_integers_are_bounded(examples):
    # s8 (utc_offset_hours), s16 (duration.hours), s32 (date.year), s64 (statistics values).
    assert message(examples, "format_date_time", {"moment": MOMENT, "utc_offset_hours": 128}) == (
        "Invalid arguments for 'format_date_time': 'utc_offset_hours' must be an integer between -128 and 127, got 128."
    )
    duration = {"days": 0, "hours": -32769, "minutes": 0, "seconds": 0}
    assert "'duration.hours' must be an integer between -32768 and 32767, got -32769." in message(
        examples, "add_duration", {"start": MOMENT, "duration": duration}
    )
    assert "'date.year' must be an integer between -2147483648 and 2147483647, got 2147483648." in message(
        examples, "weekday", {"date": {**DATE, "year": 2**31}}
    )
    # An int beyond 64 bits reaches the host as the float JSON text with its digits would be.
    assert message(examples, "statistics", {"values": [2**64]}) == (
        "Invalid arguments for 'statistics': 'values[0]' must be an integer between -9223372036854775808 and "
        "9223372036854775807, got 1.8446744073709552e+19."
    )


def test_floats(examples):
    assert examples.call("percentage", {"part": 1, "whole": 4}) == 25.0  # f32 in and out
    assert examples.call("evaluate", {"expression": "2*(3+4)"}) == 14.0  # f64
    assert isinstance(examples.call("evaluate", {"expression": "1"}), float)
    assert "'part' must be a number" in message(examples, "percentage", {"part": 1e39, "whole": 1})


@pytest.mark.parametrize("value, shown", [(float("nan"), "NaN"), (float("inf"), "inf"), (float("-inf"), "-inf")])
def test_a_float_json_cannot_carry_is_a_corrective_error(examples, value, shown):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        examples.call("ratio", {"numerator": value, "denominator": 1})
    assert failure.value.kind == "invalid_value"
    assert failure.value.path == "numerator"
    assert str(failure.value) == (
        f"Invalid arguments for 'ratio': 'numerator' must be a finite number (JSON has no NaN or infinity), got {shown}."
    )


def test_lists_tuples_and_sets(examples):
    assert examples.call("summarize", {"values": (1, 2, 3.5)})["count"] == 3  # list<f64> from a tuple
    assert examples.call("top_words", {"text": "a b a", "limit": 2}) == [["a", 2], ["b", 1]]  # list<tuple<..>>
    url = examples.call("build_url", {"host": "example.com", "path": "/s", "query": [("q", "a b")], "secure": True})
    assert url == "https://example.com/s?q=a+b"
    assert "'query[0]' must be" in message(
        examples, "build_url", {"host": "example.com", "path": "/", "query": [("q",)], "secure": True}
    )
    assert "'values' must be" in message(examples, "summarize", {"values": "1, 2"})


def test_options(examples):
    assert examples.call("slugify", {"text": "A b"}) == "a-b"
    assert examples.call("slugify", {"text": "A b", "separator": None}) == "a-b"
    assert examples.call("slugify", {"text": "A b", "separator": "_"}) == "a_b"
    port = examples.call("parse_url", {"url": "https://example.com/a"})["port"]
    assert port is None
    assert examples.call("parse_url", {"url": "https://example.com:8080/a"})["port"] == 8080


def test_records_in_and_out(examples):
    assert examples.call("parse_date", {"text": "2024-01-02"}) == DATE
    later = examples.call("add_duration", {"start": MOMENT, "duration": {"days": 1, "hours": 0, "minutes": 0, "seconds": 0}})
    assert later == {**MOMENT, "date": {**DATE, "day": 3}}
    assert message(examples, "weekday", {"date": {"year": 2024, "month": 1}}) == (
        "Invalid arguments for 'weekday': 'date.day' must be an integer between 0 and 255, got nothing (the field is required)."
    )


def test_enums(examples):
    class Unit(str, enum.Enum):
        MILE = "mile"
        KILOMETER = "kilometer"

    assert examples.call("convert", {"value": 26.2, "from": Unit.MILE, "to": Unit.KILOMETER, "precision": 2}) == 42.16
    assert examples.call("weekday", {"date": {"year": 2024, "month": 1, "day": 1}}) == "monday"
    assert "'kind' must be one of ['mean', 'median', 'mode'], got \"avg\"." in message(
        examples, "average", {"values": [1], "kind": "avg"}
    )


def test_variants(examples):
    assert examples.call("query", {"document": '{"a": {"b": 2.5}}', "path": "a.b"}) == {"tag": "number", "value": 2.5}
    assert examples.call("query", {"document": '{"a": null}', "path": "a"}) == {"tag": "null"}


def test_flags(examples):
    arguments = {"text": "a.b.a", "pattern": "A", "replacement": "!"}
    assert examples.call("replace", {**arguments, "options": {"case_insensitive", "literal"}}) == "!.b.!"
    assert examples.call("replace", {**arguments, "options": ["CaseInsensitive", "first_only"]}) == "!.b.a"
    assert examples.call("replace", {**arguments, "options": []}) == "a.b.a"


def test_results_ok_and_err(examples):
    assert examples.call("evaluate", {"expression": "1+1"}) == 2.0
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        examples.call("evaluate", {"expression": "1/"})
    assert failure.value.kind == "tool_failed" and failure.value.message == str(failure.value)


def test_values_python_cannot_send_raise_type_error(examples):
    with pytest.raises(TypeError, match=r"a value of type 'object' \(at 'expression'\) cannot be sent"):
        examples.call("evaluate", {"expression": object()})
    with pytest.raises(TypeError, match=r"dictionary keys must be strings \(at the arguments\), got 'int'"):
        examples.call("evaluate", {1: "x"})
    with pytest.raises(TypeError, match=r"at 'values\[1\]'"):
        examples.call("summarize", {"values": [1, b"2"]})


def test_results_keep_key_order_and_types(examples):
    parsed = examples.call("parse_url", {"url": "https://example.com:8080/a?b=c#f"})
    assert list(parsed) == ["scheme", "host", "port", "path", "query", "fragment"]
    assert parsed["query"] == [["b", "c"]]
    assert type(examples.call("word_count", {"text": "a b"})["words"]) is int
