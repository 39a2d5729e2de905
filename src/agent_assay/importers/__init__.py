"""Importers: results another harness published, stored as runs agent-assay did not execute.

An importer is a plugin, registered under the ``agent_assay.importers`` entry-point
group like an adapter is under ``agent_assay.adapters``. It parses and validates a
whole file before anything is stored (a bad file is one line and nothing is written),
then stores it and says, in a few lines, what it found. ``agent-assay import NAME
FILE`` calls it. This module imports no importer.

An importer may also declare ``trajectory_faults``: the faults its source can carry that
it records in a stored trajectory's ``meta`` (a `TrajectoryFault` each). The pass^k view
lists them beside the curve, for every kind any registered importer declares
(`declared_faults`), so nothing source-specific is written into the view.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from agent_assay.plugins import load_plugin
from agent_assay.store import Store

GROUP = "agent_assay.importers"


@dataclass(frozen=True)
class ImportReport:
    run_id: str
    lines: tuple[str, ...]
    """What the import found, printed to stderr; the run id goes to stdout."""


@dataclass(frozen=True)
class TrajectoryFault:
    """A fault an importer records in a trajectory's ``meta``, as the reports list it."""

    key: str
    """Its name in the pass^k JSON (``faults.<key>``): a list of the trajectories with it."""
    meta_key: str
    """The ``meta`` entry that records it."""
    when: Literal["present", "false"]
    """present: the entry holds something (its items are the fault's details, listed);
    false: the entry is recorded as False (a flag, no details)."""
    heading: str
    """The text report's line, ``{n}`` the number of trajectories with the fault."""

    def found(self, meta: Mapping[str, Any]) -> bool:
        if self.when == "present":
            return bool(meta.get(self.meta_key))
        return meta.get(self.meta_key) is False

    @property
    def detailed(self) -> bool:
        """Whether each trajectory's entry lists what the fault was."""
        return self.when == "present"


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
    registered = ", ".join(sorted(ep.name for ep in entry_points(group=GROUP))) or "none"
    # a runtime-checkable protocol is what isinstance checks; mypy wants a concrete class
    return load_plugin(GROUP, name, Importer,  # type: ignore[type-abstract]
                       what="importer", known=f"registered: {registered}",
                       members="name, description, parse and store")


def declared_faults() -> tuple[TrajectoryFault, ...]:
    """Every registered importer's declared ``trajectory_faults``, importers by name, each
    one's in its own order (the first declaration of a key wins). An importer that fails
    to load declares nothing here; `load_importer` says why when it is used."""
    found: dict[str, TrajectoryFault] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda ep: ep.name):
        try:
            declared = getattr(ep.load(), "trajectory_faults", ())
        except Exception:
            continue
        for fault in declared:
            if isinstance(fault, TrajectoryFault):
                found.setdefault(fault.key, fault)
    return tuple(found.values())
