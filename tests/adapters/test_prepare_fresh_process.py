"""A stored suite can be resumed and certified from a fresh adapter instance (prepare)."""

from __future__ import annotations

from pathlib import Path

from agent_assay import api
from agent_assay.runner import execute_run
from agent_assay.store import Store
from agent_assay_bundled import governance
from agent_assay_bundled.governance import GovernanceAdapter


def test_governance_custom_suite_runs_from_a_fresh_adapter(store: Store, tmp_path: Path) -> None:
    spec = tmp_path / "worlds.yaml"
    spec.write_text("seed: 7\nsplit: train\nn: 3\ndifficulty: easy\n")
    builder = GovernanceAdapter()
    run = api.start(builder, "oracle_replay", store=store, source=spec)
    # as in a fresh process: no world of seed 7 is known; prepare() must rebuild them
    governance._WORLDS.clear()
    result = execute_run(store, GovernanceAdapter(), run, progress=False)
    assert result.crashed == 0
    rewards = [r.value for r in store.current_scores(run.run_id) if r.scorer == "governance.reward"]
    assert rewards == [1.0, 1.0, 1.0]
