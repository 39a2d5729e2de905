"""A small JSON-schema subset validator for tool arguments.

Promise: checks object arguments against the exact schemas in ``toolspecs`` (types, enums,
required, no extras) and reports problems as text, never raising.
Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _type_ok(value: object, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "array":
        return isinstance(value, list)
    return False


def problems(schema: Mapping[str, Any], args: object) -> list[str]:
    """Every way ``args`` breaks ``schema``; empty when it conforms."""
    if not isinstance(args, dict):
        return ["arguments must be a JSON object"]
    props: Mapping[str, Any] = schema.get("properties", {})
    out = [f"missing required argument {k!r}" for k in schema.get("required", ()) if k not in args]
    for key, value in args.items():
        spec = props.get(key) if isinstance(key, str) else None
        if spec is None:
            out.append(f"unknown argument {key!r}")
            continue
        if not _type_ok(value, spec["type"]):
            out.append(f"{key} must be of type {spec['type']}")
            continue
        if "enum" in spec and value not in spec["enum"]:
            out.append(f"{key} must be one of {spec['enum']}")
        item_type = spec.get("items", {}).get("type")
        if item_type and not all(_type_ok(v, item_type) for v in value):
            out.append(f"every item of {key} must be of type {item_type}")
    return out
