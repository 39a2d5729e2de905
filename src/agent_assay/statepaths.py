"""Dot paths into nested state snapshots: look up, flatten, diff.

Shared by the state scorers and by anything that must say which part of a
world changed (controls, mutation replay). Knows nothing about any domain.
"""

from collections.abc import Mapping
from typing import Any

_MISSING = object()


def value_at(state: Mapping[str, Any], path: str) -> Any:
    """The value at a dot path, or a private sentinel when any key is absent."""
    node: Any = state
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return _MISSING
        node = node[key]
    return node


def flatten(state: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every leaf of a nested mapping under its dot path (lists are leaves)."""
    leaves: dict[str, Any] = {}
    for key, value in state.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            leaves.update(flatten(value, path + "."))
        else:
            leaves[path] = value
    return leaves


def changed_paths(old: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Leaf paths added, removed or changed between flattened `old` and the snapshot `after`."""
    new = flatten(after)
    paths = old.keys() | new.keys()
    return sorted(p for p in paths if old.get(p, _MISSING) != new.get(p, _MISSING))


def covered(path: str, asserted: list[str]) -> bool:
    return any(path == a or path.startswith(a + ".") for a in asserted)
