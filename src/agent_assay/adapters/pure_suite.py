"""A suite is built twice, and one whose hash moves between the builds is refused.

`build_suite` must be a pure function of what is on disk. One that reads a counter, the
clock or a random draw gives the run one set of items and anyone who rebuilds it (a
reviewer, a later `controls run --config`) another, so the verdict would speak for items
nobody can reproduce. `run`, `controls run` and `suite build` all build through
`build_pure_suite`; `check-adapter` reports the same drift without stopping.
"""

from __future__ import annotations

from pathlib import Path

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.errors import AssayError
from agent_assay.model import Suite


def drift(system: LoadedSystem, source: Path | None, first: Suite, second: Suite) -> str | None:
    """Why two builds from the same source disagree; None when they hash the same."""
    if first.suite_hash == second.suite_hash:
        return None
    where = source if source is not None else "its bundled set"
    return (f"adapter {system.name} built its suite twice from {where} and it hashes "
            f"differently ({first.suite_hash}, then {second.suite_hash}): build_suite must "
            "be a pure function of what is on disk")


def build_pure_suite(system: LoadedSystem, source: Path | None) -> Suite:
    """The suite, built twice; a one-line refusal (nothing stored) when the builds differ."""
    first, second = system.build_suite(source), system.build_suite(source)
    moved = drift(system, source, first, second)
    if moved:
        raise AssayError(f"{moved}; nothing was stored")
    return first
