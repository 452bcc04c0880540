"""toolhost: run an AI agent's tools as sandboxed WebAssembly components.

A tool is a function exported from a WebAssembly component; every call runs in a fresh
instance with no files, environment or network unless granted, under time and memory
limits. When a model gets a name or an argument wrong, the host repairs what it can
without guessing and otherwise raises :class:`ToolExecutionError`, whose message tells
the model what to do next::

    import toolhost

    host = toolhost.Host("plugins")
    host.call("Evaluate", {"expression": "2*(3+4)"})   # 14.0: 'Evaluate' repaired to 'evaluate'

Components travel as OCI artifacts: :func:`pull` installs one into a plugin folder
(pinned by digest in its ``toolhost.lock``, optionally verified against cosign keys),
:func:`push` publishes one.
"""

from ._errors import LoadError, RegistryError, ToolExecutionError, ToolsetError
from ._native import Approval, CallOutcome, Capacity, ExtractedCall, Extraction, Host, Limits, Tool, pull, push

__all__ = [
    "Host",
    "Approval",
    "Limits",
    "Capacity",
    "Tool",
    "CallOutcome",
    "Extraction",
    "ExtractedCall",
    "ToolExecutionError",
    "LoadError",
    "ToolsetError",
    "RegistryError",
    "pull",
    "push",
]
__version__ = "0.1.0"
