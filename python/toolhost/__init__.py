"""toolhost: run an AI agent's tools as sandboxed WebAssembly components.

A tool is a function exported from a WebAssembly component; every call runs in a fresh
instance with no files, environment or network unless granted, under time and memory
limits. When a model gets a name or an argument wrong, the host repairs what it can
without guessing and otherwise raises :class:`ToolExecutionError`, whose message tells
the model what to do next::

    import toolhost

    host = toolhost.Host("plugins")
    host.call("Evaluate", {"expression": "2*(3+4)"})   # 14.0: 'Evaluate' repaired to 'evaluate'
"""

from ._errors import LoadError, ToolExecutionError, ToolsetError
from ._native import CallOutcome, ExtractedCall, Extraction, Host, Limits, Tool

__all__ = [
    "Host",
    "Limits",
    "Tool",
    "CallOutcome",
    "Extraction",
    "ExtractedCall",
    "ToolExecutionError",
    "LoadError",
    "ToolsetError",
]
__version__ = "0.1.0"
