"""``Host.functions()``: one plain Python function per tool, for agent frameworks.

Frameworks that take functions as tools (PraisonAI's ``Agent(tools=[...])``, LangChain's
``StructuredTool.from_function``, the OpenAI Agents SDK's ``function_tool``, pydantic-ai)
build the schema they show the model by reading the function: its ``inspect.Signature``,
its type annotations and its docstring. So each function here gets a real signature
made from the tool's parameter schema (which the host derives from the WIT types):
annotations that say the same as the schema (``int``, ``float``, ``str``, ``bool``,
``Literal[...]`` for an enum, ``List[...]``, ``Tuple[...]``, a ``TypedDict`` for a
record, ``Optional[...] = None`` for an option), and a Google-style docstring with the
description and one line per parameter. Calling it runs the sandboxed tool through the
host, with the host's repair; a failure raises ``ToolExecutionError``.
"""

import inspect
import keyword
from typing import Any, Callable, Dict, List, Literal, Optional, Tuple, Union

from ._errors import ToolExecutionError

try:
    # pydantic (which most frameworks build tool schemas with) reads a TypedDict only
    # from typing_extensions before Python 3.12; it is there wherever pydantic is.
    from typing_extensions import NotRequired, Required, TypedDict
except ImportError:  # pragma: no cover - depends on what is installed
    try:
        from typing import NotRequired, Required, TypedDict  # Python 3.11 and later
    except ImportError:  # older Pythons: a record loses which keys are required
        from typing import TypedDict

        NotRequired = Required = None

__all__ = ["tool_functions", "tool_function", "annotation_for"]


def tool_functions(host: Any, errors: str = "raise") -> List[Callable[..., Any]]:
    """One function per tool ``host`` shows a model (see ``tool_function``): every active
    tool, sorted by name, or a disclosing host's ``find_tools``, its caller and its core."""
    return [tool_function(host, tool, errors) for tool in host.shown_tools()]


def tool_function(host: Any, tool: Any, errors: str = "raise") -> Callable[..., Any]:
    """A function that calls ``tool`` through ``host``, described as the tool is.

    With ``errors="raise"`` a failed call raises ``ToolExecutionError``; with
    ``errors="return"`` it returns the error's ``to_dict()`` (``{"error": message,
    "kind": ..., ...}``) as the tool's answer, for frameworks that end the run when a
    tool raises but hand a returned error to the model (PraisonAI does).
    """
    if errors not in ("raise", "return"):
        raise ValueError(f"errors must be 'raise' or 'return', not {errors!r}")
    schema = tool.parameters
    properties: Dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    parameters = _parameters(tool.name, properties, required)
    # A parameter named like a Python keyword ('from') is 'from_' in the signature.
    wire_names = {_identifier(name): name for name in properties}
    positional = [p.name for p in parameters if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    tool_name = tool.name

    def function(*args: Any, **kwargs: Any) -> Any:
        if len(args) > len(positional):
            raise TypeError(f"{tool_name}() takes {len(positional)} arguments but {len(args)} were given")
        arguments = dict(zip(positional, args))
        # Keyword names go to the host as written: it matches 'Query' to 'query' and
        # tells the model about a name that matches nothing.
        arguments.update(kwargs)
        # An omitted option is None here; the host reads a missing key the same way.
        sent = {wire_names.get(key, key): value for key, value in arguments.items()}
        sent = {key: value for key, value in sent.items() if value is not None or key in required}
        if errors == "raise":
            return host.call(tool_name, sent)
        try:
            return host.call(tool_name, sent)
        except ToolExecutionError as error:
            return error.to_dict()

    function.__name__ = function.__qualname__ = _identifier(tool.name)
    function.__module__ = "toolhost.tools"
    function.__doc__ = _docstring(tool.description, properties)
    function.__signature__ = inspect.Signature(parameters, return_annotation=_result_annotation(tool))  # type: ignore[attr-defined]
    function.__annotations__ = {p.name: p.annotation for p in parameters}
    function.__annotations__["return"] = function.__signature__.return_annotation  # type: ignore[attr-defined]
    function.toolhost_tool = tool  # type: ignore[attr-defined]
    return function


def _parameters(tool: str, properties: Dict[str, Any], required: set) -> List[inspect.Parameter]:
    parameters = []
    keyword_only = False
    for name, schema in properties.items():
        annotation = annotation_for(schema, _title(tool, name))
        if name in required:
            # After a parameter with a default, the rest can only be keywords.
            kind = inspect.Parameter.KEYWORD_ONLY if keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
            parameters.append(inspect.Parameter(_identifier(name), kind, annotation=annotation))
        else:
            keyword_only = True
            parameters.append(
                inspect.Parameter(
                    _identifier(name),
                    inspect.Parameter.KEYWORD_ONLY,
                    default=None,
                    annotation=Optional[_without_null(annotation)],
                )
            )
    return parameters


def annotation_for(schema: Dict[str, Any], title: str = "Record") -> Any:
    """The Python type annotation that says what the JSON Schema ``schema`` says."""
    if not isinstance(schema, dict):
        return Any
    if "enum" in schema and all(isinstance(value, (str, int, bool)) for value in schema["enum"]):
        return Literal[tuple(schema["enum"])]
    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches:
        return Union[tuple(annotation_for(branch, title) for branch in branches)]
    kind = schema.get("type")
    if isinstance(kind, list):
        return Union[tuple(annotation_for({**schema, "type": one}, title) for one in kind)]
    if kind == "array":
        return _array_annotation(schema, title)
    if kind == "object":
        return _object_annotation(schema, title)
    return _SCALARS.get(kind, Any)


_SCALARS = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def _array_annotation(schema: Dict[str, Any], title: str) -> Any:
    prefix = schema.get("prefixItems")
    if prefix:
        return Tuple[tuple(annotation_for(item, f"{title}Item") for item in prefix)]
    items = schema.get("items")
    return List[annotation_for(items, f"{title}Item")] if isinstance(items, dict) else List[Any]


def _object_annotation(schema: Dict[str, Any], title: str) -> Any:
    properties = schema.get("properties")
    if not properties:
        return Dict[str, Any]
    required = set(schema.get("required") or [])
    fields = {}
    for key, field in properties.items():
        annotation = annotation_for(field, _title(title, key))
        if Required is not None:
            annotation = Required[annotation] if key in required else NotRequired[annotation]
        fields[key] = annotation
    record = TypedDict(title, fields, total=Required is not None or required == set(properties))  # type: ignore[operator]
    record.__module__ = "toolhost.tools"
    if schema.get("description"):
        record.__doc__ = schema["description"]
    return record


def _without_null(annotation: Any) -> Any:
    """``X`` for ``Union[X, None]`` (an option's schema), so that ``Optional`` wraps it once."""
    arguments = getattr(annotation, "__args__", None)
    if getattr(annotation, "__origin__", None) is Union and arguments and type(None) in arguments:
        rest = tuple(argument for argument in arguments if argument is not type(None))
        return Union[rest] if rest else Any
    return annotation


def _result_annotation(tool: Any) -> Any:
    result = tool.result
    return annotation_for(result, _title(tool.name, "result")) if result else None


def _docstring(description: str, properties: Dict[str, Any]) -> str:
    lines = [description.strip() or "A sandboxed tool."]
    documented = [(name, schema.get("description")) for name, schema in properties.items()]
    if any(text for _, text in documented):
        lines += ["", "Args:"]
        lines += [f"    {_identifier(name)}: {(text or '').strip()}".rstrip() for name, text in documented]
    return "\n".join(lines)


def _identifier(name: str) -> str:
    """``name`` as a Python identifier (tool and parameter names are snake_case already)."""
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "_"
    if text[0].isdigit() or keyword.iskeyword(text):
        text = f"{text}_"
    return text


def _title(*parts: str) -> str:
    return "".join(_identifier(part).title().replace("_", "") for part in parts)

