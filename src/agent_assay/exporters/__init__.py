"""Exporters: a stored run written in another harness's format, its verdict with it.

An exporter is a plugin, registered under the ``agent_assay.exporters`` entry-point group
as an importer is under ``agent_assay.importers``; ``agent-assay export RUN --format NAME
--out FILE`` calls it (the evidence bundle stays the default format and needs no plugin).
The API hands it an `ExportRequest`: the store, the run, and the verdict already decided
(word, reasons, waivers, store head), so an exporter never judges a run itself and cannot
write one as sounder than it is. A TAMPERED run never reaches an exporter: the API refuses
it first. This module imports no exporter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol, runtime_checkable

from agent_assay.model import Run
from agent_assay.plugins import load_plugin
from agent_assay.store import Store

GROUP = "agent_assay.exporters"
BUNDLE = "bundle"
"""The built-in format: the evidence bundle (`store.bundle`), not a plugin."""


@dataclass(frozen=True)
class ExportRequest:
    """What an exporter writes: a run, read from `store`, and the verdict on it."""

    store: Store
    run: Run
    verdict: str
    """ADMISSIBLE, ADMISSIBLE WITH WAIVERS or INADMISSIBLE (never TAMPERED)."""
    reasons: tuple[str, ...]
    waivers: tuple[str, ...]
    disclosures: tuple[str, ...]
    head_seq: int
    head_digest: str
    controls: Mapping[str, str] = field(default_factory=dict)
    """Each stored control's status (PASSED, FAILED, NOT_RUN, ERROR) by kind."""


@runtime_checkable
class Exporter(Protocol):
    name: str
    description: str

    def write(self, request: ExportRequest, path: Path) -> int:
        """Write the run to `path` whole (or not at all); return how many samples it holds."""
        ...


def exporter_names() -> list[str]:
    return sorted({BUNDLE, *(ep.name for ep in entry_points(group=GROUP))})


def load_exporter(name: str) -> Exporter:
    # a runtime-checkable protocol is what isinstance checks; mypy wants a concrete class
    return load_plugin(GROUP, name, Exporter,  # type: ignore[type-abstract]
                       what="export format",
                       known=f"known: {', '.join(exporter_names())}",
                       members="name, description and write")
