"""BFCL function docs as the tools an agent is offered.

A doc's parameter types are BFCL's own vocabulary (`dict`, `float`, `tuple`, `any`);
they become JSON-schema types through BFCL's own table (`GORILLA_TO_OPENAPI`), the way its
function-calling handlers convert them. Nothing else of a doc changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.adapters.system import ToolSpec


def _json_schema(node: Any, table: Mapping[str, str]) -> Any:
    if isinstance(node, list):
        return [_json_schema(v, table) for v in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            out[key] = table.get(value, value)
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _json_schema(v, table) for name, v in value.items()}
        else:
            out[key] = _json_schema(value, table)
    return out


def tool_specs(docs: Sequence[Mapping[str, Any]]) -> tuple[ToolSpec, ...]:
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI

    return tuple(ToolSpec(str(doc["name"]), str(doc.get("description", "")),
                          _json_schema(doc.get("parameters") or {"type": "dict",
                                                                 "properties": {}},
                                       GORILLA_TO_OPENAPI))
                 for doc in docs)


def docs_at_turn(entry: Mapping[str, Any], turn: int) -> list[Mapping[str, Any]]:
    """The docs offered from `turn` on: the entry's, plus every withheld doc whose turn
    has come (miss_func), as BFCL's inference adds them."""
    docs = list(entry.get("function") or [])
    for at, withheld in sorted((entry.get("missed_function") or {}).items(),
                               key=lambda kv: int(kv[0])):
        if int(at) <= turn:
            docs.extend(withheld)
    return docs
