"""A final state written as the edits that turn a stored base state into it.

Most agents change a handful of records in a world of thousands, so storing
every trajectory's whole final state stores the same world again and again.
The writer instead stores a base state once (content-addressed, see
`state_blobs`) and, per trajectory, the edits from it. This module is the pure
part: computing the edits and applying them.

An edit is a JSON array, its path a list of dict keys (strings) and list
positions (integers):

- ``["set", path, value]``: the value at `path` becomes `value`;
- ``["del", path]``: the key at the end of `path` goes;
- ``["extend", path, values]``: the list at `path` gains `values` at its end;
- ``["cut", path, n]``: the list at `path` keeps its first `n` values.

Python's ``==`` says ``1 == 1.0 == True``, so edits found by comparing values
could miss a change of type. The writer therefore works section by section (a
section is a top-level key): a section whose canonical JSON equals the base's
needs no edit, and the edits of any other section are kept only if the section
rebuilt from them has the state's canonical JSON byte for byte; otherwise the
whole section is set (`section_edits`). Only changed sections are serialised a
second time (`state_blobs` also spares most unchanged ones the first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.hashing import canonical_json

Path = list[str | int]


def _collect(base: Any, state: Any, path: Path, edits: list[list[Any]]) -> None:
    if base is state or (type(base) is type(state) and base == state):
        return
    if isinstance(base, dict) and isinstance(state, dict):
        for key in base.keys() - state.keys():
            edits.append(["del", [*path, key]])
        for key, value in state.items():
            if key in base:
                _collect(base[key], value, [*path, key], edits)
            else:
                edits.append(["set", [*path, key], value])
    elif isinstance(base, list) and isinstance(state, list):
        shared = min(len(base), len(state))
        for index in range(shared):
            _collect(base[index], state[index], [*path, index], edits)
        if len(state) > shared:
            edits.append(["extend", path, state[shared:]])
        elif len(base) > shared:
            edits.append(["cut", path, shared])
    else:
        edits.append(["set", path, state])


def rebuilt(base: Any, edits: list[Any]) -> Any:
    """`base` with `edits` applied, leaving `base` untouched: only the containers on an
    edit's path are copied, so the result shares every unedited part with `base`.

    Raises ValueError on an edit that does not fit the state (a payload not written by
    the harness)."""
    root: list[Any] = [base]
    copied: set[int] = set()
    for edit in edits:
        try:
            _apply(root, edit, copied)
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"state edit {canonical_json(edit)[:80]} does not fit ({exc})") \
                from exc
    return root[0]


def _apply(root: list[Any], edit: Any, copied: set[int]) -> None:
    if not isinstance(edit, list) or not edit or not isinstance(edit[1], list):
        raise TypeError("not an edit")
    verb, path = edit[0], [0, *edit[1]]
    if verb in ("set", "del"):
        parent = _opened(root, path[:-1], copied)
        if verb == "set" and len(edit) == 3:
            _put(parent, path[-1], edit[2])
        elif verb == "del" and len(edit) == 2 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            raise TypeError(f"malformed {verb!r}")
        return
    target = _opened(root, path, copied)
    if not isinstance(target, list) or len(edit) != 3:
        raise TypeError(f"{verb!r} needs a list and one argument")
    if verb == "extend" and isinstance(edit[2], list):
        target.extend(edit[2])
    elif verb == "cut" and type(edit[2]) is int and 0 <= edit[2] <= len(target):
        del target[edit[2]:]
    else:
        raise TypeError(f"unknown or malformed verb {verb!r}")


def _opened(root: list[Any], path: Path, copied: set[int]) -> Any:
    """The container at `path`, every container on the way copied once (copy on write)."""
    node: Any = root
    for step in path:
        child = _get(node, step)
        if id(child) not in copied and isinstance(child, (dict, list)):
            child = dict(child) if isinstance(child, dict) else list(child)
            copied.add(id(child))
            _put(node, step, child)
        node = child
    return node


def _fits(node: Any, step: Any) -> bool:
    """Whether `step` names a place in `node`: a key of a dict, a position in a list."""
    if isinstance(node, dict):
        return type(step) is str
    return isinstance(node, list) and type(step) is int and 0 <= step < len(node)


def _get(node: Any, step: Any) -> Any:
    if not _fits(node, step):
        raise KeyError(step)
    return node[step]


def _put(node: Any, step: Any, value: Any) -> None:
    if not _fits(node, step):
        raise KeyError(step)
    node[step] = value


def joined(pieces: Mapping[str, str]) -> str:
    """The canonical JSON of the object whose sections are `pieces`: equal, byte for byte,
    to `canonical_json` of that object."""
    return "{" + ",".join(f"{canonical_json(key)}:{pieces[key]}" for key in sorted(pieces)) + "}"


def section_edits(
    base: Mapping[str, Any], base_pieces: Mapping[str, str],
    state: Mapping[str, Any], pieces: Mapping[str, str],
) -> list[list[Any]]:
    """The edits from `base` to `state`, each section checked to rebuild exactly."""
    edits: list[list[Any]] = [["del", [key]] for key in sorted(base.keys() - state.keys())]
    for key in sorted(pieces):
        if base_pieces.get(key) == pieces[key]:
            continue
        if key not in base:
            edits.append(["set", [key], state[key]])
            continue
        found: list[list[Any]] = []
        _collect(base[key], state[key], [key], found)
        if not reproduces({key: base[key]}, found, joined({key: pieces[key]})):
            found = [["set", [key], state[key]]]
        edits.extend(found)
    return edits


def reproduces(base: Any, edits: list[Any], canonical: str) -> bool:
    """Whether `edits` rebuild, from `base`, exactly the state whose canonical JSON is
    `canonical` (types included)."""
    try:
        return canonical_json(rebuilt(base, edits)) == canonical
    except ValueError:
        return False

