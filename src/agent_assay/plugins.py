"""Loading a named plugin from an entry-point group: one way for importers and exporters, so
an unknown name, a plugin that fails to load and one of the wrong shape read alike."""

from __future__ import annotations

from importlib.metadata import entry_points

from agent_assay.errors import AssayError


def load_plugin[T](group: str, name: str, shape: type[T], *, what: str, known: str,
                   members: str) -> T:
    """The object entry point `name` of `group` makes, checked against the runtime-checkable
    protocol `shape`; a one-line error naming the `known` names, or the `members` a plugin of
    this kind (`what`) must have."""
    found = {ep.name: ep for ep in entry_points(group=group)}
    if name not in found:
        raise AssayError(f"unknown {what}: {name} ({known})")
    try:
        plugin = found[name].load()()
    except Exception as exc:
        raise AssayError(f"{what} {name} failed to load: {type(exc).__name__}: {exc}") from exc
    if not isinstance(plugin, shape):
        raise AssayError(f"{what} {name} does not have {members}")
    return plugin
