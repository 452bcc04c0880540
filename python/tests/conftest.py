"""Shared fixtures: hosts over the repository's built components (scripts/build-guests.sh)."""

import os
from pathlib import Path

import pytest

import toolhost

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "target" / "plugins"
GUESTS = ROOT / "target" / "test-guests"
# The Rust tests' compile cache: the components are compiled once for both.
CACHE = Path(os.environ.get("TOOLHOST_TEST_CACHE", ROOT / "target" / "test-cache"))


def guest(name: str) -> Path:
    """A test guest's component file."""
    path = GUESTS / f"{name}.wasm"
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the guests first (scripts/build-guests.sh)")
    return path


@pytest.fixture(scope="session")
def examples() -> toolhost.Host:
    """Every example tool (Rust, Python and JavaScript)."""
    if not (PLUGINS / "calculator.wasm").is_file():
        pytest.fail(f"{PLUGINS} has no components: build the guests first (scripts/build-guests.sh)")
    return toolhost.Host(PLUGINS, cache_dir=CACHE)


@pytest.fixture(scope="session")
def first_run() -> toolhost.Host:
    """The reference implementation's first registry: web_search and calculator."""
    return toolhost.Host([guest("peer-search")], cache_dir=CACHE)


@pytest.fixture(scope="session")
def second_run() -> toolhost.Host:
    """The second registry: also websearch and get_weather."""
    return toolhost.Host([guest("peer-search"), guest("peer-weather")], cache_dir=CACHE)


@pytest.fixture(scope="session")
def hostile() -> toolhost.Host:
    """The hostile guest under tight limits, so that each case ends quickly."""
    return toolhost.Host([guest("hostile")], cache_dir=CACHE, limits=toolhost.Limits(time_ms=300, memory_mb=64))


def message(host: toolhost.Host, name: str, arguments=None) -> str:
    """The corrective message of a call that must fail."""
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        host.call(name, arguments if arguments is not None else {})
    return str(failure.value)


def runs(host: toolhost.Host, name: str, arguments, tool: str):
    """Asserts the call ran ``tool`` (repaired from ``name`` when they differ); returns its value."""
    outcome = host.dispatch(name, arguments)
    assert outcome.tool == tool, outcome
    assert outcome.repaired_from == (name if name != tool else None)
    assert outcome.ok, outcome.error
    return outcome.value
