"""The database `make demo` builds, built in-process: banking mock, k=3, all 104 items, controls."""

from __future__ import annotations

from pathlib import Path

from agent_assay import api
from agent_assay.adapters.registry import load_adapter
from agent_assay.controls.execute import run_controls
from agent_assay.store import open_store


def build_demo_db(db: Path) -> str:
    """Build the demo store at `db`; return the certified run's id."""
    store = open_store(str(db))
    adapter = load_adapter("banking")
    run = api.evaluate(adapter, "mock", store=store, repeats=3, seed=0).run
    run_controls(store, adapter, run)
    store.close()
    return run.run_id
