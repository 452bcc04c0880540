"""Type stubs for toolhost's native module (the Rust library through PyO3)."""

import os
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._errors import ToolExecutionError

_Path = Union[str, "os.PathLike[str]"]
JSON = Any
"""A JSON-like Python value: dict (str keys), list, tuple, set, str, int, float, bool or None."""

class Approval:
    """Which tools ask a person before each call, and the function that asks them.

    ``ask(tool, arguments)`` returns ``True`` to let the call run; anything else, an
    exception, or no answer within ``wait_s`` seconds leaves it unrun, and the model is
    told so. It runs on a thread of its own, so it may block on a person. With
    ``destructive=True`` the tools whose hints say they may destroy something ask, as do
    those whose names match ``tools`` and those whose manifest says ``approval = true``.
    """

    def __init__(
        self,
        ask: Callable[[str, Dict[str, JSON]], bool],
        *,
        destructive: bool = True,
        tools: Sequence[str] = (),
        wait_s: float = 120.0,
    ) -> None: ...

class Limits:
    """Resource limits for one call; anything left out keeps the default (10 s, 256 MiB, 64 KiB of output, 1 MiB of result)."""

    def __init__(
        self,
        *,
        time_ms: Optional[int] = None,
        memory_mb: Optional[int] = None,
        output_kb: Optional[int] = None,
        result_kb: Optional[int] = None,
    ) -> None: ...
    @property
    def time_ms(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def output_bytes(self) -> int: ...
    @property
    def result_bytes(self) -> int: ...

class Capacity:
    """How many calls a host runs at once, and how many wait for a turn and how long; anything left out keeps the default (four per core at once, at least four; 1,024 waiting; 30 s)."""

    def __init__(
        self,
        *,
        max_concurrent_calls: Optional[int] = None,
        max_queued_calls: Optional[int] = None,
        queue_timeout_ms: Optional[int] = None,
    ) -> None: ...
    @property
    def max_concurrent_calls(self) -> int: ...
    @property
    def max_queued_calls(self) -> int: ...
    @property
    def queue_timeout_ms(self) -> int: ...

class Tool:
    """One tool as the model sees it."""

    @property
    def name(self) -> str: ...
    @property
    def component(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def parameters(self) -> Dict[str, Any]:
        """The JSON Schema of its arguments."""
    @property
    def result(self) -> Optional[Dict[str, Any]]:
        """The JSON Schema of what a successful call returns, or None."""
    @property
    def annotations(self) -> Dict[str, bool]:
        """``read_only``, ``destructive``, ``idempotent`` and ``open_world``, derived from its sandbox."""
    @property
    def sandboxed(self) -> bool: ...
    def definition(self, format: str) -> Dict[str, Any]: ...

class CallOutcome:
    """What a call did: which tool ran (after any repair), and its value or error."""

    @property
    def tool(self) -> Optional[str]: ...
    @property
    def repaired_from(self) -> Optional[str]: ...
    @property
    def repairs(self) -> List[str]:
        """What the host changed to run the call, in words; empty when it was right as sent."""
    @property
    def value(self) -> JSON: ...
    @property
    def error(self) -> Optional[ToolExecutionError]: ...
    @property
    def content(self) -> List[Dict[str, JSON]]:
        """The content blocks the tool added (images, audio, resources), in MCP's form."""
    @property
    def approved(self) -> bool:
        """Whether a person approved the call before it ran (``Approval``)."""
    @property
    def ok(self) -> bool: ...
    def tool_result(self, format: str) -> JSON:
        """The result as a provider's tool-result message carries it ("mcp", "anthropic", "openai-responses", "openai")."""
    def unwrap(self) -> JSON:
        """The value, or raises the error."""

class ExtractedCall:
    """One tool call found in a model's reply text."""

    @property
    def name(self) -> str: ...
    @property
    def tool(self) -> Optional[str]: ...
    @property
    def arguments(self) -> Dict[str, JSON]: ...
    @property
    def span(self) -> Tuple[int, int]: ...
    @property
    def dialect(self) -> str: ...
    @property
    def repairs(self) -> List[str]: ...
    @property
    def error(self) -> Optional[ToolExecutionError]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Extraction:
    """The tool calls a model wrote into its reply."""

    @property
    def calls(self) -> List[ExtractedCall]: ...
    @property
    def rejected(self) -> List[ExtractedCall]: ...
    def summary(self) -> str: ...
    def __len__(self) -> int: ...

class Host:
    """A set of sandboxed WebAssembly tools; safe to share between threads."""

    def __init__(
        self,
        plugins: Union[_Path, Sequence[_Path]],
        *,
        cache_dir: Optional[_Path] = None,
        cache: bool = True,
        watch: bool = False,
        limits: Optional[Limits] = None,
        capacity: Optional[Capacity] = None,
        compiler: str = "auto",
        approval: Optional[Approval] = None,
    ) -> None: ...
    def tools(self) -> List[Tool]: ...
    def shown_tools(self) -> List[Tool]: ...
    def tool(self, name: str) -> Optional[Tool]: ...
    def search_tools(self, query: str, limit: int = 10) -> List[Tool]: ...
    def call(self, name: str, arguments: Optional[Dict[str, JSON]] = None) -> JSON: ...
    def call_text(self, name: str, arguments: str) -> JSON: ...
    def dispatch(self, name: str, arguments: Optional[Dict[str, JSON]] = None) -> CallOutcome: ...
    def dispatch_text(self, name: str, arguments: str) -> CallOutcome: ...
    def call_async(self, name: str, arguments: Optional[Dict[str, JSON]] = None) -> Awaitable[JSON]: ...
    def list_resources(self) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
        """The plugins' resources and resource templates, as dicts in MCP's shape."""
    def read_resource(self, uri: str) -> List[Dict[str, Any]]:
        """The contents of the resource at ``uri``; raises ToolExecutionError when none offers it."""
    def list_prompts(self) -> List[Dict[str, Any]]:
        """The plugins' prompts, as dicts in MCP's shape."""
    def get_prompt(self, name: str, arguments: Optional[Dict[str, str]] = None) -> List[Dict[str, Any]]:
        """The messages of prompt ``name`` with ``arguments``."""
    def tool_definitions(self, format: str = "openai") -> List[Dict[str, Any]]: ...
    def definitions(
        self,
        format: str = "openai",
        most: Optional[int] = None,
        max_bytes: Optional[int] = None,
        task: Optional[str] = None,
    ) -> Tuple[List[Dict[str, Any]], List[str]]: ...
    def disclosing(
        self, core: Sequence[str], format: str = "openai", finder: Optional[str] = None, caller: Optional[str] = None
    ) -> "Host": ...
    def toolset(self, names: Sequence[str]) -> "Host": ...
    def functions(self, errors: str = "raise") -> List[Callable[..., JSON]]: ...
    def extract_calls(self, reply: str) -> Extraction: ...
    def dispatch_call(self, call: ExtractedCall) -> CallOutcome: ...
    def reload(self) -> bool: ...
    def load_report(self) -> Dict[str, Any]: ...
    @property
    def warnings(self) -> List[str]: ...
    def __len__(self) -> int: ...
    def __contains__(self, name: str) -> bool: ...


def pull(
    reference: Optional[str],
    plugins: _Path,
    *,
    keys: Sequence[_Path] = (),
    insecure: bool = False,
    username: Optional[str] = None,
    password: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """Pulls the component ``reference`` names (``registry/repository:tag`` or ``…@sha256:…``)
    into the folder ``plugins`` as ``NAME.wasm`` and records it in ``toolhost.lock``; with
    ``reference=None``, pulls again exactly what the lock names. With ``keys`` (PEM public
    keys, as ``cosign.pub``), only an artifact carrying a cosign signature of one of them.
    Plain HTTP only to a loopback registry unless ``insecure``. Credentials: ``username``
    and ``password``, else Docker's ``config.json``. Returns one dict per component
    (``name``, ``path``, ``reference``, ``artifact``, ``sha256``, ``bytes``, ``manifest``,
    ``signed_by``). Raises :class:`RegistryError`."""


def push(
    file: _Path,
    reference: str,
    *,
    sign: Optional[_Path] = None,
    key_password: Optional[str] = None,
    insecure: bool = False,
    username: Optional[str] = None,
    password: Optional[str] = None,
) -> Dict[str, Any]:
    """Publishes the component ``file`` (with ``NAME.toml`` beside it, if any) to
    ``reference`` in the CNCF Wasm layout, once it loads as a tool component; with
    ``sign`` (a ``cosign.key`` opened with ``key_password``, or an unencrypted PKCS#8 PEM
    key) signs it as cosign does. Returns ``reference``, ``artifact``, ``sha256``,
    ``tools`` and ``signed_by``. Raises :class:`RegistryError`."""
