"""Read a YAML file a user wrote, failing in one line that names the file and line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agent_assay.errors import AssayError


def read_yaml(path: Path, what: str) -> Any:
    """The parsed document; a missing file, a syntax error or a key given twice in one
    mapping is an AssayError naming the file and line."""
    return read_located(path, what).data


@dataclass(frozen=True)
class Located:
    """A parsed YAML document and the line each mapping key stands on, so a check of a
    value can name the line it came from."""

    path: Path
    data: Any
    lines: Mapping[tuple[Any, ...], int]

    def at(self, *keys: Any) -> str:
        """`file:line` of the deepest of `keys` that has a line (the file alone if none)."""
        for end in range(len(keys), 0, -1):
            line = self.lines.get(tuple(keys[:end]))
            if line is not None:
                return f"{self.path}:{line}"
        return str(self.path)


def read_located(path: Path, what: str) -> Located:
    """Like `read_yaml`, with key lines, refusing a key that appears twice in one mapping
    (YAML would silently keep the last)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise AssayError(f"{path}: {what} not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise AssayError(f"{path}: {what} cannot be read ({exc})") from exc
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise AssayError(f"{path}{where}: malformed YAML: {getattr(exc, 'problem', exc)}") from exc
    finally:
        loader.dispose()
    lines: dict[tuple[Any, ...], int] = {}
    if node is not None:
        _walk(path, node, (), lines)
    return Located(path, data, lines)


def _walk(
    path: Path, node: yaml.Node, at: tuple[Any, ...], lines: dict[tuple[Any, ...], int]
) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise AssayError(f"{path}:{line}: duplicate key {key!r}")
            seen.add(key)
            lines[(*at, key)] = line
            _walk(path, value_node, (*at, key), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, value_node in enumerate(node.value):
            lines[(*at, index)] = value_node.start_mark.line + 1
            _walk(path, value_node, (*at, index), lines)
