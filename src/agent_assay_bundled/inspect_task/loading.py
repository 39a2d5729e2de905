"""The Inspect task a source names, built once per process through Inspect's registry.

A file is imported under a name derived from its path (so two files never share a module),
which registers its ``@task`` functions; Inspect's ``list_tasks`` names them without running
them. A registry name (``inspect_evals/agentdojo``) is created by ``registry_create``, which
finds packages through Inspect's own entry points. Every failure (no such file or task, a
file that raises on import, arguments the task refuses) is one line naming the task.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError, described
from agent_assay_bundled.inspect_task import door
from agent_assay_bundled.inspect_task.source import TaskSource


def task_names(path: Path) -> list[str]:
    """The ``@task`` names a file declares (read by Inspect without running the file)."""
    from inspect_ai import list_tasks

    try:
        return [info.name for info in list_tasks(path.name, root_dir=path.parent)]
    except Exception as exc:  # a file Inspect cannot parse
        raise AssayError(f"task file {path}: Inspect cannot read it ({described(exc)})") from None


def import_file(path: Path) -> None:
    """Run the file once in this process, registering its tasks."""
    name = "inspect_task_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AssayError(f"task file {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]
        raise AssayError(f"task file {path} fails to load: {described(exc)}") from None
    # Inspect looks for the installed distribution that ships a task's module, and for a
    # module found by its spec on no distribution it lists every installed file (seconds,
    # on every evaluation); a module without a spec is taken as shipped by none at once.
    module.__spec__ = None


def file_task_name(source: TaskSource) -> str:
    """The registered name of the source's task in its file; the file imported."""
    path = Path(source.task)
    if not path.is_file():
        raise AssayError(f"no task file {path}")
    names = task_names(path)
    if source.name is None and len(names) != 1:
        listed = ", ".join(names) or "none"
        raise AssayError(f"task file {path} holds {len(names)} tasks ({listed}): name one "
                         f"as {path.name}@TASK in a YAML source")
    name = source.name or names[0]
    if name not in names:
        raise AssayError(f"task file {path} has no task {name!r} (it has: "
                         f"{', '.join(names) or 'none'})")
    import_file(path)
    return name


_LOADED: dict[str, Any] = {}
"""source line -> its task, built once per process."""


def load_task(source: TaskSource) -> Any:
    """Inspect's Task for `source`, its arguments applied (built once per process)."""
    line = source.describe()
    if line not in _LOADED:
        _LOADED[line] = build_task(source)
    return _LOADED[line]


def build_task(source: TaskSource) -> Any:
    door.require()
    from inspect_ai.util import registry_create

    if source.is_file:
        name = file_task_name(source)
    elif "/" not in source.task:
        raise AssayError(f"unknown Inspect task {source.task!r}: a registry task is "
                         "package/name, a file task FILE.py[@TASK]")
    else:
        name = source.task
    try:
        return registry_create("task", name, **source.args)
    except LookupError as exc:
        if type(exc) is LookupError:  # the registry's own refusal, not a KeyError inside
            raise AssayError(f"unknown Inspect task {source.label!r}") from None
        raise AssayError(f"task {source.label} failed to load: {described(exc)}") from None
    except TypeError as exc:
        raise AssayError(f"task {source.label}: arguments {sorted(source.args)} refused: "
                         f"{exc}") from None
    except Exception as exc:  # the task's own code raised while building it
        raise AssayError(f"task {source.label} failed to load: {described(exc)}") from None
