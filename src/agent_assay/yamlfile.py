"""Read a YAML file a user wrote, failing in one line that names the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agent_assay.errors import AssayError


def read_yaml(path: Path, what: str) -> Any:
    """The parsed document; a missing file or a syntax error is an AssayError naming it."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise AssayError(f"{path}: {what} not found") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise AssayError(f"{path}{where}: malformed YAML: {getattr(exc, 'problem', exc)}") from exc
