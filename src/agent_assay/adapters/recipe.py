"""How a fresh process rebuilds a system: never from the parent's memory.

A worker or a control's twin must start from the system as it is built, not as the
certified run left it: a copy of the parent's object would carry any in-process cache
(and whatever the harness held) across. So the recipe is the system's entry-point name,
or failing that its class, called with no arguments; the rebuilt system must have the
same name and version, or the fresh process refuses to run it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.adapters.registry import load_adapter
from agent_assay.errors import AssayError


@dataclass(frozen=True, slots=True)
class Recipe:
    name: str
    version: str
    entry_point: str | None
    class_path: str

    def describe(self) -> str:
        return f"entry point {self.entry_point}" if self.entry_point else self.class_path + "()"


def recipe_of(system: LoadedSystem) -> Recipe:
    cls = type(system.raw)
    return Recipe(system.name, system.version, system.entry_point,
                  f"{cls.__module__}:{cls.__qualname__}")


def rebuild(recipe: Recipe) -> LoadedSystem:
    """The system built afresh in this process, checked to be the one the recipe names."""
    if recipe.entry_point is not None:
        system = load_adapter(recipe.entry_point)
    else:
        module, _, qualname = recipe.class_path.partition(":")
        try:
            target: object = importlib.import_module(module)
            for part in qualname.split("."):
                target = getattr(target, part)
            assert callable(target)
            raw = target()
        except Exception as exc:
            raise AssayError(
                f"a fresh process cannot build system {recipe.name} from {recipe.describe()} "
                f"({type(exc).__name__}: {exc}); register it as an entry point, or give its "
                "class a constructor without arguments"
            ) from exc
        system = load_system(raw, recipe.name)
    if (system.name, system.version) != (recipe.name, recipe.version):
        raise AssayError(
            f"a fresh process built {system.name} {system.version} from {recipe.describe()}, "
            f"not {recipe.name} {recipe.version}: the system must rebuild as it was run"
        )
    return system
