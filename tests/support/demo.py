"""The database `make demo` builds, built in-process: banking mock, k=3, all 104 items, controls."""

from __future__ import annotations

from pathlib import Path

from agent_assay.adapters.registry import load_adapter
from agent_assay.controls.execute import run_controls
from agent_assay.runner import (
    build_and_store_suite,
    execute_run,
    resolve_config,
    select_items,
    start_run,
)
from agent_assay.store import open_store


def build_demo_db(db: Path) -> str:
    """Build the demo store at `db`; return the certified run's id."""
    store = open_store(str(db))
    adapter = load_adapter("banking")
    suite = build_and_store_suite(store, adapter, None)
    run = start_run(
        store,
        adapter,
        suite,
        resolve_config(adapter, "mock"),
        repeats=3,
        seed=0,
        items=select_items(suite),
    )
    execute_run(store, adapter, run, progress=False)
    run_controls(store, adapter, run)
    store.close()
    return run.run_id
