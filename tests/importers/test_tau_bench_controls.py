"""Controls on an imported tau-bench run, and paired comparison between imported runs.

What stored data allows runs: null_agent (the do-nothing agent under tau-bench's
reward rule: 0.38 = 19 of 50, beaten by 0.04), shuffled_gold on the stored calls.
What needs execution is declared not applicable in expected.yaml and is NOT_RUN
with its reason; nothing is executed, so no run is added. scorer_selftest takes
its base from `replay` in the core today and therefore errors; the last test of
the controls shows what it gives with the one-line core hook the importer asks for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.controls.bands import load_bands
from agent_assay.controls.base import ControlOutcome
from agent_assay.controls.execute import run_controls
from agent_assay.integrity.comparability import compare_runs
from agent_assay.model import Run, ToolCall
from agent_assay.store import Store, open_store
from agent_assay.views.gates import comparison_text
from agent_assay_bundled.tau_bench.adapter import TauBenchAdapter, TauReward
from agent_assay_bundled.tau_bench.importer import import_results
from tests.importers.test_tau_bench_parse import real_file, run_cli, write

DECLARED = ("state_check_bites", "random_agent", "identical_config", "positive_control",
            "mutation")


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Run, dict[str, Any]]:
    store = open_store(str(tmp_path_factory.mktemp("tau_controls") / "assay.db"))
    run = import_results(store, real_file()).run
    outcomes = {o.kind: o for o in run_controls(store, TauBenchAdapter(), run).outcomes}
    return store, run, outcomes


def test_statuses_and_nothing_executed(certified: tuple[Store, Run, dict[str, Any]]) -> None:
    store, run, outcomes = certified
    statuses = {k: o.status for k, o in outcomes.items()}
    assert {k: statuses[k] for k in ("scorer_selftest", "shuffled_gold", "null_agent",
                                     "judge_calibration", *DECLARED)} == {
        "scorer_selftest": "PASSED",
        "shuffled_gold": "FAILED",
        "null_agent": "FAILED",
        "judge_calibration": "NOT_RUN",
        **dict.fromkeys(DECLARED, "NOT_RUN"),
    }
    stored = store.control_outcomes(run.run_id)
    for kind in DECLARED:
        # missing evidence is not waved through: each must be allowed by name
        assert stored[kind].payload["allowed_not_run"] is False
        assert outcomes[kind].reason == load_bands(TauBenchAdapter.facts.bands).not_applicable[kind]
    assert "cannot be re-executed" in outcomes["identical_config"].reason
    assert [r.run_id for r in store.list_runs()] == [run.run_id]  # no twin or replay runs
    # the self-test plants defects in gold recorded without executing (planting_bases)
    assert outcomes["scorer_selftest"].summary.startswith("10 of 10 scorers went red")


def test_null_agent_is_038_and_the_run_clears_it_by_004(
    certified: tuple[Store, Run, dict[str, ControlOutcome]],
) -> None:
    outcome = certified[2]["null_agent"]
    agent = outcome.measured["agents"]["do_nothing"]
    assert agent["tool_calls"] == 0 and agent["trajectories"] == 50
    assert agent["scores"] == {"tau.reward": 19 / 50, "tools.recall": 0.0}
    assert agent["scores"]["tau.reward"] == 0.38
    assert agent["twin_margin"]["tau.reward"] == 0.42 - 0.38
    assert agent["twin_margin"]["tools.recall"] == pytest.approx(0.5000226517668378, abs=1e-15)
    assert outcome.reason == f"do_nothing: margin on tau.reward is {0.42 - 0.38}"
    assert outcome.band["min_margin"] == 0.25


def test_shuffled_gold_moves_the_harness_scorers_but_not_enough_reward(
    certified: tuple[Store, Run, dict[str, ControlOutcome]],
) -> None:
    metrics = certified[2]["shuffled_gold"].measured["metrics"]
    assert metrics["tools.recall"]["before"] == pytest.approx(0.5000226517668378, abs=1e-15)
    assert metrics["tools.recall"]["after"] == 0.0
    assert metrics["tau.reward"]["before"] == pytest.approx(0.42)
    # the rule decides 42 of 50 items under deranged gold; see the band's derivation
    assert metrics["tau.reward"]["after"] == pytest.approx(5 / 28)
    assert metrics["tau.reward"]["drop"] < 0.25


def test_controls_cli_with_and_without_allow_not_run(
    certified: tuple[Store, Run, dict[str, ControlOutcome]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, run, _ = certified
    db = str(store.engine.url.database)
    base = ["controls", "run", "--adapter", "tau-bench", "--config", run.config_name,
            "--run", run.run_id, "--db", db]
    code, out, _ = run_cli(base, monkeypatch, capsys)
    assert code == 3  # inadmissible: NOT_RUN without allowance and FAILED controls alike
    assert "3 FAILED, 6 NOT_RUN, 1 PASSED, run INADMISSIBLE" in out
    # tau.reward gives full reward to doing nothing where no generic lens credits anything
    assert "reason: failed control(s): shuffled_gold, null_agent, headline_agreement" in out
    assert "reason: control(s) NOT_RUN without allowance: " in out
    allow = [a for kind in DECLARED for a in ("--allow-not-run", kind)]
    code, allowed, _ = run_cli(base + allow, monkeypatch, capsys)
    assert code == 3 and "NOT_RUN without allowance" not in allowed
    assert allowed.count("NOT_RUN (allowed)") == 6  # the five declared and judge_calibration
    assert len(store.list_runs()) == 1


def test_scorer_selftest_plants_in_gold_recorded_without_executing(
    certified: tuple[Store, Run, dict[str, ControlOutcome]],
) -> None:
    _, _, outcomes = certified
    outcome = outcomes["scorer_selftest"]
    scorers = outcome.measured["scorers"]
    assert outcome.status == "PASSED"
    idle = sorted(n for n, r in scorers.items() if r["red"] is None)
    assert idle == ["outcome.match", "state.assertions", "state.collateral",
                    "tools.order_violations"]
    assert all(r["went_red"] == r["probed"] == 5 for n, r in scorers.items() if n not in idle)
    assert "tau.reward" in scorers and scorers["tau.reward"]["red"] is True


def test_reward_rule_planted_defects(certified: tuple[Store, Run, Any]) -> None:
    store, run, _ = certified
    adapter = load_system(TauBenchAdapter())
    (reward,) = [s for s in adapter.facts.scorers if s.name == "tau.reward"]
    items = store.get_suite(run.suite_hash).by_id()
    ctx = load_system(adapter).scoring_context()
    writes, reads = items["000"], items["012"]  # book_reservation; no gold action at all
    nothing = adapter.null_agents()["do_nothing"](reads.public(), store.get_config(run.config_hash))
    assert not nothing.steps and reward.score(reads.gold, nothing, ctx).value == 1.0
    assert adapter.recorder is not None
    wrote = adapter.recorder.record_without_executing(writes.public(), writes.gold.path)
    assert reward.score(writes.gold, wrote, ctx).value == 0.0  # nothing ran, gold writes
    published = next(t for t in store.trajectories(run.run_id)
                     if t.item_id == "000" and t.meta["published_reward"] == 0.0)
    assert reward.score(writes.gold, published, ctx).detail == {
        "source": "published by tau-bench; imported, not computed by agent-assay"
    }
    other = reward.score(reads.gold, published, ctx)  # another task's gold: the rule, not 0.0
    assert other.detail is not None and other.detail["source"] == "reward rule"
    assert isinstance(reward, TauReward)
    planted = reward.plant_defect(reads.gold, published, ctx)
    assert planted is not None
    assert "published_reward" not in planted.meta
    assert ToolCall("cancel_reservation", {"reservation_id": "PLANTED"}) in planted.calls


# ---- paired comparison between imported runs --------------------------------------
@pytest.fixture(scope="module")
def halves(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Run, Run, Path]:
    home = tmp_path_factory.mktemp("tau_compare")
    data = json.loads(real_file().read_text(encoding="utf-8"))
    first = write(home / "trials-0-1.json", [r for r in data if r["trial"] in (0, 1)])
    second = write(home / "trials-2-3.json", [r for r in data if r["trial"] in (2, 3)])
    subset = write(home / "tasks-0-24.json", [r for r in data if r["task_id"] < 25])
    store = open_store(str(home / "assay.db"))
    a = import_results(store, first).run
    b = import_results(store, second).run
    return store, a, b, subset


def test_split_trials_compare_soundly_except_admissibility(
    halves: tuple[Store, Run, Run, Path],
) -> None:
    store, a, b, _ = halves
    assert a.suite_hash == b.suite_hash and a.repeats == b.repeats == 2
    assert a.env["source_sha256"] != b.env["source_sha256"]
    comparison = compare_runs(store, a.run_id, b.run_id)
    assert {m.code for m in comparison.mismatches} == {"RUN_INADMISSIBLE"}
    for run in (a, b):
        run_controls(store, TauBenchAdapter(), run)
    comparison = compare_runs(store, a.run_id, b.run_id)
    assert {m.code for m in comparison.mismatches} == {"RUN_INADMISSIBLE"}
    reward = next(m for m in comparison.metrics if m.metric == "tau.reward")
    assert (reward.n_items, reward.mean_a, reward.mean_b) == (50, 43 / 100, 41 / 100)
    text = comparison_text(comparison, forced=True)
    assert "tau.reward *: A 0.4300  B 0.4100  B-A -0.0200" in text  # a headline metric


def test_a_different_suite_is_refused(
    halves: tuple[Store, Run, Run, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, a, _, subset = halves
    c = import_results(store, subset).run
    comparison = compare_runs(store, a.run_id, c.run_id)
    assert "SUITE_MISMATCH" in {m.code for m in comparison.mismatches}
    db = str(store.engine.url.database)
    code, out, _ = run_cli(["compare", a.run_id, c.run_id, "--db", db], monkeypatch, capsys)
    assert code == 4 and out.startswith("COMPARISON REFUSED") and "SUITE_MISMATCH" in out
