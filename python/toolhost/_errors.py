"""The exceptions toolhost raises, and the helper that resolves ``call_async``'s futures."""

from typing import Any, Dict, List, Optional

__all__ = ["ToolExecutionError", "LoadError", "ToolsetError", "RegistryError"]


# The facts a failure may carry (ToolError::to_json's keys besides "error").
_FACTS = frozenset(
    ("kind tool name suggestion available_tools nearest_tools candidates expected_parameters problem path expected got "
     "message reason denied limit_ms limit_bytes running queued waited_ms server retry per_minute "
     "retry_after_ms").split()
)


class ToolExecutionError(Exception):
    """A tool call failed. ``str(error)`` is the corrective message to hand back to the model.

    The attributes carry the same facts for programs: ``kind`` (a short stable name such
    as ``"unknown_tool"``, ``"invalid_value"``, ``"crashed"``, ``"timed_out"``), ``tool``
    (the tool that was called, when the name resolved), and, where the failure has them,
    ``name``, ``suggestion``, ``available_tools``, ``nearest_tools``, ``candidates``, ``expected_parameters``,
    ``problem``, ``path``, ``expected``, ``got``, ``message``, ``reason``, ``denied``,
    ``limit_ms``, ``limit_bytes``, ``running``, ``queued``, ``waited_ms``, ``server``,
    ``retry``, ``per_minute`` and ``retry_after_ms``; ``None`` where it does not.
    """

    kind: str
    tool: Optional[str]
    name: Optional[str]
    suggestion: Optional[str]
    available_tools: Optional[List[str]]
    nearest_tools: Optional[List[str]]
    candidates: Optional[List[str]]
    expected_parameters: Optional[Dict[str, List[str]]]
    problem: Optional[str]
    path: Optional[str]
    expected: Optional[str]
    got: Optional[str]
    message: Optional[str]
    reason: Optional[str]
    denied: Optional[List[str]]
    limit_ms: Optional[int]
    limit_bytes: Optional[int]
    running: Optional[int]
    queued: Optional[int]
    waited_ms: Optional[int]
    server: Optional[str]
    retry: Optional[bool]
    per_minute: Optional[int]
    retry_after_ms: Optional[int]

    def __init__(self, message: str, details: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self._details: Dict[str, Any] = dict(details or {"error": message, "kind": "unknown"})
        self._details.setdefault("error", message)

    def __getattr__(self, attribute: str) -> Any:
        # Only reached for attributes not set otherwise: the failure's facts, None
        # for one this kind of failure does not have.
        if attribute in _FACTS:
            return self._details.get(attribute)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attribute!r}")

    def to_dict(self) -> Dict[str, Any]:
        """The structured form: ``{"error": message, "kind": ..., ...facts}``, as the Rust library's ``ToolError::to_json``."""
        return dict(self._details)

    def __reduce__(self):  # so that errors cross process pools
        return (type(self), (str(self), self._details))


class LoadError(Exception):
    """A host could not be built or reloaded: a plugin folder or file could not be read or used."""


class ToolsetError(ValueError):
    """A toolset names something that is not exactly one tool; the message has the nearest name."""


class RegistryError(Exception):
    """A pull or push did not happen: not found, unauthorized, unreachable, not a Wasm
    component, a digest or signature that does not match, a key that cannot be used.
    The message says which and what to do; nothing was written."""


def settle_future(future: Any, method: str, value: Any) -> None:
    """Resolves a ``call_async`` future on its event loop, unless it was cancelled meanwhile."""
    if not future.done():
        getattr(future, method)(value)
