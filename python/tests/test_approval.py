"""Approval in Python: a tool that needs a person's yes calls the ``Approval``'s
function with its name and arguments, and runs only when it returns ``True``."""

import asyncio
import shutil
import sys
import threading

import pytest

import toolhost

from conftest import CACHE, guest


@pytest.fixture
def folder(tmp_path):
    """The hostile guest, its ``env_var`` tool marked by its manifest as needing approval."""
    shutil.copy(guest("hostile"), tmp_path / "hostile.wasm")
    (tmp_path / "hostile.toml").write_text('[tools.env_var]\napproval = true\n\n[env]\nGREETING = "hi"\n')
    return tmp_path


def refusal(host, name, arguments):
    with pytest.raises(toolhost.ToolExecutionError) as failure:
        host.call(name, arguments)
    return str(failure.value)


def test_the_function_is_asked_and_only_true_lets_the_call_run(folder):
    asked = []
    answers = iter([True, False, "yes", 1, None, False])

    def ask(tool, arguments):
        asked.append((tool, arguments, threading.get_ident()))
        return next(answers)

    host = toolhost.Host(folder, cache_dir=CACHE, approval=toolhost.Approval(ask, wait_s=5))
    assert host.call("echo", {"text": "x"}) == "x", "a tool that needs no approval runs unasked"
    approved = host.dispatch("Env_Var", {"NAME": "GREETING"})
    assert (approved.value, approved.approved) == ("hi", True)
    for _ in range(4):
        assert "did not approve running 'env_var'" in refusal(host, "env_var", {"name": "GREETING"})
    # The name as registered, the arguments as the tool gets them (repaired), asked
    # on a thread of the host's rather than the caller's.
    assert [(tool, arguments) for tool, arguments, _ in asked] == [("env_var", {"name": "GREETING"})] * 5
    assert threading.get_ident() not in {thread for _, _, thread in asked}
    outcome = host.dispatch("env_var", {"name": "GREETING"})
    assert (outcome.error.kind, outcome.value, outcome.approved) == ("not_approved", None, False)


def test_an_exception_dismisses_and_silence_leaves_the_call_unrun(folder, monkeypatch):
    def broken(tool, arguments):
        raise RuntimeError("the approval UI is down")

    shown = []
    monkeypatch.setattr(sys, "unraisablehook", shown.append)
    host = toolhost.Host(folder, cache_dir=CACHE, approval=toolhost.Approval(broken))
    assert "dismissed the request to run 'env_var'" in refusal(host, "env_var", {"name": "GREETING"})
    # The exception is shown as Python shows one nobody can catch.
    assert [str(raised.exc_value) for raised in shown] == ["the approval UI is down"]

    release = threading.Event()
    silent = toolhost.Approval(lambda tool, arguments: release.wait(30), wait_s=0.3)
    host = toolhost.Host(folder, cache_dir=CACHE, approval=silent)
    try:
        assert "Nobody approved running 'env_var' within 0 s" in refusal(host, "env_var", {"name": "GREETING"})
    finally:
        release.set()


def test_calls_from_asyncio_ask_too(folder):
    asked = []
    approval = toolhost.Approval(lambda tool, arguments: asked.append(tool) or True)
    host = toolhost.Host(folder, cache_dir=CACHE, approval=approval)

    async def main():
        return await host.call_async("env_var", {"name": "GREETING"})

    assert asyncio.run(main()) == "hi"
    assert asked == ["env_var"]


def test_without_a_function_such_a_tool_is_refused_and_destructive_tools_named(folder):
    host = toolhost.Host(folder, cache_dir=CACHE)
    assert "this caller cannot ask one" in refusal(host, "env_var", {"name": "GREETING"})
    # Named by pattern (and destructive=False: the hints alone do not ask).
    asked = []
    approval = toolhost.Approval(lambda tool, arguments: asked.append(tool) or False, destructive=False, tools=["ec*"])
    host = toolhost.Host(folder, cache_dir=CACHE, approval=approval)
    assert "did not approve running 'echo'" in refusal(host, "echo", {"text": "x"})
    assert asked == ["echo"]
    with pytest.raises(TypeError, match="ask must be a function"):
        toolhost.Approval("yes")
    with pytest.raises(ValueError, match="wait_s"):
        toolhost.Approval(print, wait_s=-1)
