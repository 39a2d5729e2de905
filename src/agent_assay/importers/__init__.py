"""Importers: results another harness published, stored as runs agent-assay did not execute.

An importer is a plugin, registered under the ``agent_assay.importers`` entry-point
group like an adapter is under ``agent_assay.adapters``. It parses and validates a
whole file before anything is stored (a bad file is one line and nothing is written),
then stores it and says, in a few lines, what it found. ``agent-assay import NAME
FILE`` calls it. This module imports no importer.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agent_assay.errors import AssayError
from agent_assay.store.store import Store

GROUP = "agent_assay.importers"


@dataclass(frozen=True)
class ImportReport:
    run_id: str
    lines: tuple[str, ...]
    """What the import found, printed to stderr; the run id goes to stdout."""


@runtime_checkable
class Importer(Protocol):
    name: str
    description: str

    def parse(self, path: Path) -> Any:
        """Read and validate the whole file; store nothing."""
        ...

    def store(self, store: Store, parsed: Any, *, name: str | None) -> ImportReport:
        """Store what `parse` returned (idempotent: an imported file adds nothing)."""
        ...


def load_importer(name: str) -> Importer:
    found = {ep.name: ep for ep in entry_points(group=GROUP)}
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise AssayError(f"unknown importer: {name} (registered: {known})")
    try:
        importer = found[name].load()()
    except Exception as exc:
        raise AssayError(f"importer {name} failed to load: {type(exc).__name__}: {exc}") from exc
    if not isinstance(importer, Importer):
        raise AssayError(f"importer {name} does not have name, description, parse and store")
    return importer
