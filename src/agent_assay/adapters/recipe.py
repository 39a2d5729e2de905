"""How a fresh process rebuilds a system: never from the parent's memory.

A worker or a control's twin must start from the system as it is built, not as the
certified run left it: a copy of the parent's object would carry any in-process cache
(and whatever the harness held) across. So the recipe is the system's entry-point name,
or failing that its class, called with no arguments; the rebuilt system must have the
same name and version, or the fresh process refuses to run it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from types import ModuleType

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.adapters.registry import load_adapter
from agent_assay.errors import AssayError


@dataclass(frozen=True, slots=True)
class Recipe:
    name: str
    version: str
    entry_point: str | None
    class_path: str
    main_path: str | None = None
    """The script a class defined in `__main__` comes from: a fresh process loads it under
    another name, as multiprocessing does, so its `if __name__ == "__main__"` part does not
    run again."""

    def describe(self) -> str:
        return f"entry point {self.entry_point}" if self.entry_point else self.class_path + "()"


def recipe_of(system: LoadedSystem) -> Recipe:
    cls = type(system.raw)
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    return Recipe(system.name, system.version, system.entry_point,
                  f"{cls.__module__}:{cls.__qualname__}",
                  main if cls.__module__ == "__main__" else None)


def script(path: str) -> ModuleType:
    """A script loaded as the module `__script__` (once per process), not as `__main__`."""
    if "__script__" not in sys.modules:
        spec = importlib.util.spec_from_file_location("__script__", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules["__script__"] = module
        spec.loader.exec_module(module)
    return sys.modules["__script__"]


def rebuild(recipe: Recipe) -> LoadedSystem:
    """The system built afresh in this process, checked to be the one the recipe names."""
    if recipe.entry_point is not None:
        system = load_adapter(recipe.entry_point)
    else:
        module, _, qualname = recipe.class_path.partition(":")
        try:
            target: object = (script(recipe.main_path) if recipe.main_path
                              else importlib.import_module(module))
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
