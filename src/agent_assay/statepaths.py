"""Dot paths into nested state snapshots: look up, flatten, diff.

Shared by the state scorers and by anything that must say which part of a
world changed (controls, mutation replay). Knows nothing about any domain.
"""

from collections.abc import Mapping
from typing import Any

from agent_assay.model import StateAssertion

_MISSING = object()


def value_at(state: Mapping[str, Any], path: str) -> Any:
    """The value at a dot path, or a private sentinel when any key is absent."""
    node: Any = state
    for key in path.split("."):
        if not _is_mapping(node) or key not in node:
            return _MISSING
        node = node[key]
    return node


def found(value: Any) -> bool:
    """Whether a `value_at` result is a value rather than the absent-path sentinel."""
    return value is not _MISSING


def same(a: Any, b: Any) -> bool:
    """Equality that does not let True stand in for 1 (Python's == does)."""
    return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)


def flatten(state: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every leaf of a nested mapping under its dot path (lists are leaves).

    An empty mapping is a container with nothing in it, not a leaf: a table
    that gains its first record has changed by that record only.
    """
    leaves: dict[str, Any] = {}
    _flatten_into(state, prefix, leaves)
    return leaves


def _flatten_into(state: Mapping[str, Any], prefix: str, leaves: dict[str, Any]) -> None:
    for key, value in state.items():
        path = f"{prefix}{key}"
        # a dict is tested first: the ABC check alone was most of flattening a large state
        if type(value) is dict or isinstance(value, Mapping):
            _flatten_into(value, path + ".", leaves)
        else:
            leaves[path] = value


def changed_paths(
    before: Mapping[str, Any], after: Mapping[str, Any], prefix: str = ""
) -> list[str]:
    """Leaf paths added, removed or changed between two nested snapshots.

    Equal subtrees are skipped with one C-level comparison, so the cost follows
    the size of the change, not the size of the world.
    """
    changed: list[str] = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key, _MISSING), after.get(key, _MISSING)
        if old == new:
            continue
        path = f"{prefix}{key}"
        old_nested, new_nested = _is_mapping(old), _is_mapping(new)
        if old_nested and new_nested:
            changed += changed_paths(old, new, path + ".")
        elif not old_nested and not new_nested:
            changed.append(path)  # a leaf changed, added or removed: the key is on a side
        else:
            leaves = flatten(old if old_nested else new, path + ".").keys()
            changed += sorted(leaves | {path} if (new if old_nested else old) is not _MISSING
                              else leaves)
    return changed


_LEAVES: frozenset[type] = frozenset({str, int, float, bool, type(None), list, object})
"""Types of a state's values that are never mappings (`object`: the absent-path sentinel)."""


def _is_mapping(value: Any) -> bool:
    """`isinstance(value, Mapping)`, a dict tested first and a JSON leaf refused by its
    type (the ABC check costs more than the rest of comparing a small state)."""
    kind = type(value)
    return kind is dict or (kind not in _LEAVES and isinstance(value, Mapping))


def covered(path: str, asserted: list[str]) -> bool:
    return any(path == a or path.startswith(a + ".") for a in asserted)


def asserted_changes(before: Mapping[str, Any], after: Mapping[str, Any]
                     ) -> tuple[StateAssertion, ...]:
    """What gold's end state asserts, from the state before gold and after it: every changed
    leaf at its new value, and a removed one through its nearest live parent (a benchmark
    whose gold is a call list, not a list of assertions, gets its assertions this way)."""
    paths: dict[str, None] = {}
    for path in changed_paths(before, after):
        while not found(value_at(after, path)) and "." in path:
            path = path.rsplit(".", 1)[0]
        paths[path] = None
    kept = [p for p in paths if not any(p.startswith(q + ".") for q in paths if q != p)]
    return tuple(StateAssertion(p, value_at(after, p)) for p in kept)
