"""Discover adapters through the ``agent_assay.adapters`` entry-point group.

Third-party packages register an adapter by declaring an entry point; nothing
in the harness names them. Loading is lazy so a broken adapter only fails the
command that asks for it, with its name in the message.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.errors import AssayError

GROUP = "agent_assay.adapters"


@dataclass(frozen=True)
class AdapterInfo:
    name: str
    version: str
    source: str


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def adapter_names() -> list[str]:
    return sorted(_entry_points())


def load_raw(name: str) -> object:
    """The object the entry point `name` makes, unchecked (see `load_adapter`)."""
    found = _entry_points()
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise AssayError(f"unknown adapter: {name} (registered: {known})")
    try:
        return found[name].load()()
    except AssayError:
        raise
    except ModuleNotFoundError as exc:
        raise AssayError(
            f"adapter {name} needs the module {exc.name!r}, which is not installed "
            "(the bundled adapters name their extra: pip install 'agent-assay[synthworld]')"
        ) from exc
    except Exception as exc:
        raise AssayError(f"adapter {name} failed to load: {type(exc).__name__}: {exc}") from exc


def load_adapter(name: str) -> LoadedSystem:
    """Instantiate the system registered under `name` and check it against the surface."""
    return load_system(load_raw(name), name, entry_point=name)


def list_adapters() -> list[AdapterInfo]:
    """Name, version and providing distribution of every registered adapter."""
    infos: list[AdapterInfo] = []
    for name, ep in sorted(_entry_points().items()):
        dist = ep.dist
        source = f"{dist.name} {dist.version}" if dist is not None else ep.value
        try:
            version = load_adapter(name).version
        except AssayError as exc:
            version = f"unloadable: {exc}"
        infos.append(AdapterInfo(name=name, version=version, source=f"{source} ({ep.value})"))
    return infos
