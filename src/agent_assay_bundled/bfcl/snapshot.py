"""The environment instances' state as JSON, for the trajectory's final state.

What BFCL's state checker compares is each instance's public attributes (`vars`, names
not starting with `_`); the snapshot is those, with nested objects (a file system's
directories and files) written as their own public attributes and a reference back to an
enclosing object (a directory's parent) left out, since it is the same object again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SCALARS = (str, int, float, bool, type(None))


def plain(value: Any, above: tuple[int, ...] = ()) -> Any:
    if isinstance(value, SCALARS):
        return value
    if id(value) in above:
        return None
    inner = (*above, id(value))
    if isinstance(value, Mapping):
        return {str(k): plain(v, inner) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, inner) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v, inner) for v in value), key=repr)
    if hasattr(value, "__dict__"):
        return {k: plain(v, inner) for k, v in vars(value).items()
                if not k.startswith("_") and id(v) not in inner}
    return repr(value)


def state_of(instances: Mapping[str, Any]) -> dict[str, Any]:
    """class name -> its instance's public attributes, as JSON."""
    return {name: plain({k: v for k, v in vars(obj).items() if not k.startswith("_")})
            for name, obj in sorted(instances.items())}
