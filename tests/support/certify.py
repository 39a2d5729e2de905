"""Run a config over its whole suite, then every control on the run: what control tests share."""

from __future__ import annotations

from typing import Any

from agent_assay.adapters.system import System
from agent_assay.controls.execute import controls_exit_code, run_controls
from agent_assay.integrity.admissibility import assess
from agent_assay.runner import (
    build_and_store_suite,
    execute_run,
    resolve_config,
    select_items,
    start_run,
)
from agent_assay.store import Store


def certify(store: Store, adapter: System, config: str, *, repeats: int = 1) -> dict[str, Any]:
    """The run, each control's outcome (by kind), the stored payloads, and the verdict."""
    suite = build_and_store_suite(store, adapter, None)
    run = start_run(
        store,
        adapter,
        suite,
        resolve_config(adapter, config),
        repeats=repeats,
        seed=0,
        items=select_items(suite),
    )
    execute_run(store, adapter, run, progress=False)
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
        "exit": controls_exit_code(verdict.admissible, payloads),
    }
