"""The one door to the agentdojo package: importing it, its suites and its versions.

Everything else in this system reaches agentdojo through here, so a missing extra is one
line naming it, and the entry point loads (``adapters list``) without the package.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from agent_assay.errors import AssayError
from agent_assay_bundled import extras
from agent_assay_bundled.extras import require_module

EXTRA = "install agent-assay[agentdojo]"
PINNED = "0.1.35"
"""The release whose behaviour this system certifies (the extra pins it)."""


def load_suites_module() -> ModuleType:
    """agentdojo's suite registry, or one line saying how to get it."""
    return require_module("agentdojo.task_suite.load_suites", system="agentdojo", extra=EXTRA)


def installed_version() -> str:
    return extras.installed_version("agentdojo", system="agentdojo", package="agentdojo",
                                    extra=EXTRA)


def benchmark_versions() -> list[str]:
    """Every benchmark version the installed package registers a suite under, oldest first.

    agentdojo keeps them in its registry's ``_SUITES`` mapping (a defaultdict: asking
    ``get_suites`` for an unknown version would answer an empty dict, not an error)."""
    registry: dict[str, dict[str, Any]] = load_suites_module()._SUITES
    found = [name for name, suites in registry.items() if suites]
    return sorted(found, key=_version_key)


def newest_version() -> str:
    return benchmark_versions()[-1]


def _version_key(name: str) -> tuple[int, ...]:
    parts = name.lstrip("v").split(".")
    return tuple(int(p) if p.isdigit() else -1 for p in parts)


def task_suite(name: str, version: str) -> Any:
    """agentdojo's TaskSuite `name` at benchmark `version`; one line naming what exists."""
    versions = benchmark_versions()
    if version not in versions:
        raise AssayError(f"unknown AgentDojo benchmark version {version!r} "
                         f"(agentdojo {installed_version()} has: {', '.join(versions)})")
    suites: dict[str, Any] = load_suites_module().get_suites(version)
    if name not in suites:
        raise AssayError(f"unknown AgentDojo suite {name!r} at {version} "
                         f"(known: {', '.join(sorted(suites))})")
    return suites[name]


def import_modules(modules: tuple[str, ...]) -> None:
    """What agentdojo's own scripts do with ``--module-to-load``: import modules that
    register further suites (``register_suite``) before any suite is looked up. An entry
    ending in ``.py`` is a file (absolute: `source` resolves it), imported once."""
    for module in modules:
        try:
            if module.endswith(".py"):
                _import_file(Path(module))
            else:
                importlib.import_module(module)
        except (ImportError, OSError) as exc:
            raise AssayError(f"cannot import module {module!r} named in the AgentDojo source: "
                             f"{exc}") from exc


def _import_file(path: Path) -> None:
    name = "agentdojo_source_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
