"""Run a config over its whole suite, then every control on the run: what control tests share."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.adapters.system import System
from agent_assay.controls.execute import run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.admissibility import assess
from agent_assay.store import Store, open_store
from tests.support.toy import RichToyAdapter


def certify(store: Store, adapter: System, config: str, *, repeats: int = 1) -> dict[str, Any]:
    """The run, each control's outcome (by kind), the stored payloads, and the verdict."""
    run = api.evaluate(adapter, config, store=store, repeats=repeats, seed=0).run
    result = run_controls(store, adapter, run)
    stored = store.control_outcomes(run.run_id)
    payloads = [stored[o.kind].payload for o in result.outcomes]
    verdict = assess(store, run)
    return {
        "run": run,
        "by_kind": {o.kind: o for o in result.outcomes},
        "payloads": {p["kind"]: p for p in payloads},
        "admissible": verdict.admissible,
        "reasons": verdict.reasons,
        "exit": verdict.exit_code,
    }


@dataclass(frozen=True)
class Certified:
    """A store holding the rich toy's run of `good`, certified ADMISSIBLE, the twins its
    identical_config made, and a second complete run of the same config and suite that
    no control has judged."""

    db: Path
    run: str
    twins: tuple[str, ...]
    other: str


def certified_store(db: Path) -> Certified:
    store = open_store(str(db))
    adapter = RichToyAdapter()
    got = certify(store, adapter, "good")
    assert got["admissible"], got["reasons"]
    run = got["run"]
    other = api.evaluate(adapter, "good", store=store, repeats=1, seed=0).run
    assert other.item_ids == run.item_ids
    store.close()
    twins = got["payloads"]["identical_config"]["certificate"]["aux_runs"]
    return Certified(db, run.run_id, tuple(sorted(twins)), other.run_id)


def richtoy_named(name: str) -> System:
    """What the registry gives for a name, in tests whose store holds rich-toy runs."""
    if name != "richtoy":
        raise AssayError(f"unknown adapter: {name}")
    return load_system(RichToyAdapter())  # type: ignore[return-value]


def private_copy(certified: Certified, where: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the certified store to edit; commands find the rich toy by its name."""
    copy = where / "assay.db"
    shutil.copyfile(certified.db, copy)
    monkeypatch.setattr("agent_assay.adapters.registry.load_adapter", richtoy_named)
    return copy
