"""The JSON Schema (draft 2020-12) of every command's `--json` output, one file per command.

A file is named after the command line, spaces as dashes (`runs list` -> `runs-list.json`),
and every document the command prints names it in its `schema` key
(`agent-assay/runs-list/1`). docs/json.md says what each key means.

    from agent_assay.schemas import schema
    jsonschema.validate(json.loads(out), schema("runs-list"))
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from agent_assay.errors import AssayError

__all__ = ["names", "schema"]


def names() -> tuple[str, ...]:
    """Every schema shipped, by name, sorted."""
    files = resources.files(__name__).iterdir()
    return tuple(sorted(f.name.removesuffix(".json") for f in files if f.name.endswith(".json")))


def schema(name: str) -> dict[str, Any]:
    """The schema of `agent-assay <name> --json` ('runs-list', 'mutation-score', ...); a new
    dict on each call, so a caller may change it."""
    if name not in names():
        raise AssayError(f"no JSON schema named {name!r} (shipped: {', '.join(names())})")
    loaded: dict[str, Any] = json.loads(
        resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    )
    return loaded
