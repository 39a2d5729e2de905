"""Controls on an auditor run over Asteria Agentic v1: which pass, which fail, and why.

The controls' own seed (the derangement, the random agent's draws) derives from
the suite, the config and the run seed, so these verdicts are reproducible. Only
random_agent's verdict depends on that seed: see the band's derivation.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_assay import api
from agent_assay.controls.base import ControlOutcome
from agent_assay.controls.execute import run_controls
from agent_assay.store import open_store
from agent_assay_bundled.synthworld import SynthWorldAgenticAdapter


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ControlOutcome]:
    store = open_store(str(tmp_path_factory.mktemp("controls") / "assay.db"))
    adapter = SynthWorldAgenticAdapter()
    run = api.evaluate(adapter, "auditor", store=store, repeats=1, seed=0).run
    result = run_controls(store, adapter, run)
    return {o.kind: o for o in result.outcomes}


def test_statuses(outcomes: dict[str, ControlOutcome]) -> None:
    assert {k: o.status for k, o in outcomes.items()} == {
        "scorer_selftest": "PASSED",
        "shuffled_gold": "FAILED",
        "state_check_bites": "PASSED",
        "null_agent": "FAILED",
        "random_agent": "PASSED",  # at run seed 0; see the band's derivation
        "identical_config": "PASSED",
        "positive_control": "PASSED",
        "mutation": "PASSED",
        "headline_agreement": "PASSED",
        "judge_calibration": "NOT_RUN",
    }


def test_selftest_probes_precision_and_skips_the_inapplicable(
    outcomes: dict[str, ControlOutcome],
) -> None:
    scorers: dict[str, Any] = outcomes["scorer_selftest"].measured["scorers"]
    assert sorted(name for name, r in scorers.items() if r["red"] is False) == []
    # no order anchor is declared, so the order check is n/a everywhere: not blind, idle
    assert sorted(name for name, r in scorers.items() if r["red"] is None) == [
        "tools.order_violations"]
    # precision is probed where the oracle denies: a planted allow brings it in at 0
    assert scorers["synthworld.decision_precision"]["red"] is True
    assert scorers["synthworld.decision_at_audit"]["probed"] == 3


def test_shuffled_gold_cannot_move_reconstructability(outcomes: dict[str, ControlOutcome]) -> None:
    metrics = outcomes["shuffled_gold"].measured["metrics"]
    # 10 of 11 events are reconstructable: any derangement flips exactly two verdicts
    assert metrics["synthworld.reconstructable"]["after"] == 9 / 11
    assert outcomes["shuffled_gold"].summary.endswith(
        "did not drop enough: synthworld.reconstructable"
    )


def test_always_deny_twin_margins_per_headline_metric(
    outcomes: dict[str, ControlOutcome],
) -> None:
    agents = outcomes["null_agent"].measured["agents"]
    assert agents["all_null"]["tool_calls"] == agents["always_deny"]["tool_calls"] == 0
    assert set(agents["all_null"]["twin_margin"].values()) == {1.0}
    assert agents["always_deny"]["twin_margin"] == {
        "synthworld.decision": 1.0 - 7 / 11,
        "synthworld.provenance_complete": 1.0 - 8 / 11,
        "synthworld.chain": 1.0,
        "synthworld.attribution": 1.0 - 10 / 11,
        "synthworld.reconstructable": 1.0,
    }
    assert outcomes["null_agent"].reason == (
        f"always_deny: margin on synthworld.attribution is {1.0 - 10 / 11}"
    )


def test_the_controls_that_pass(outcomes: dict[str, ControlOutcome]) -> None:
    assert outcomes["positive_control"].measured["failed_tool_calls"] == 0
    assert outcomes["identical_config"].measured["differing_paths"] == 0
    assert outcomes["state_check_bites"].measured["items"] == 11
    assert outcomes["random_agent"].measured["seeds"] == 50
