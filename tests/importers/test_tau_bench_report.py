"""pass^k on an imported run reproduces tau-bench's own numbers for gpt-4o-airline.json.

pass^k is compared with == against the exact fractions (21/50, 41/150, 11/50,
1/5) rounded once to float: the report computes in rational arithmetic and
rounds once, so equality is exact. tau-bench computes the same mean in floats,
summing C(c,k)/C(n,k) over tasks; that sum depends on the order of the tasks and
can differ in the last bit, so it is compared with math.isclose at 1e-12.
"""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from math import comb, isclose
from pathlib import Path
from typing import Any

import pytest

from agent_assay.controls.execute import run_controls
from agent_assay.model import Run
from agent_assay.stats.intervals import exact_interval, mean_interval
from agent_assay.stats.passrates import pass_hat_k
from agent_assay.store import Store, open_store
from agent_assay.views.load import passk_report, summarise
from agent_assay.views.passk import PassKReport, passk_json, render_passk
from agent_assay_bundled.tau_bench.adapter import TauBenchAdapter
from agent_assay_bundled.tau_bench.importer import import_results
from tests.importers.test_tau_bench_parse import real_file, run_cli

EXACT_PASS_HAT = {1: Fraction(21, 50), 2: Fraction(41, 150), 3: Fraction(11, 50), 4: Fraction(1, 5)}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Run]:
    """The imported run with its controls run, so the null agent's passes are stored."""
    store = open_store(str(tmp_path_factory.mktemp("tau_report") / "assay.db"))
    run = import_results(store, real_file()).run
    run_controls(store, TauBenchAdapter(), run)
    return store, run


@pytest.fixture(scope="module")
def report(imported: tuple[Store, Run]) -> PassKReport:
    return passk_report(*imported)


def _tau_bench_style(path: Path) -> dict[int, float]:
    """pass^k the way tau-bench's own script averages it: a float sum over tasks."""
    rewards: dict[int, list[float]] = defaultdict(list)
    for r in json.loads(path.read_text(encoding="utf-8")):
        rewards[r["task_id"]].append(r["reward"])
    out = {}
    for k in range(1, 5):
        total = 0.0
        for values in rewards.values():
            c = sum(1 for v in values if v == 1.0)
            total += comb(c, k) / comb(len(values), k)
        out[k] = total / len(rewards)
    return out


def test_pass_hat_k_is_tau_benchs_own(report: PassKReport) -> None:
    (reward,) = [c for c in report.curves if c.metric == "tau.reward"]
    got = {p.k: p.pass_hat for p in reward.points}
    assert got == {k: float(v) for k, v in EXACT_PASS_HAT.items()}
    assert got == {1: 0.42, 2: 0.2733333333333333, 3: 0.22, 4: 0.2}
    theirs = _tau_bench_style(real_file())
    assert all(isclose(got[k], theirs[k], rel_tol=0, abs_tol=1e-12) for k in got)
    assert all(p.n_items == 50 for p in reward.points)


PASSES_BY_TASK = {0: 14, 1: 12, 2: 10, 3: 4, 4: 10}
"""tasks of the published file by how many of their 4 trials passed."""


def test_pass_at_k_exact(report: PassKReport) -> None:
    (reward,) = [c for c in report.curves if c.metric == "tau.reward"]
    # tasks by passes c of 4 in the file; pass@k = 1 - C(4-c,k)/C(4,k), pass^k = C(c,k)/C(4,k)
    counts = PASSES_BY_TASK
    by_task: dict[int, int] = defaultdict(int)
    for r in json.loads(real_file().read_text(encoding="utf-8")):
        by_task[r["task_id"]] += r["reward"] == 1.0
    assert {c: list(by_task.values()).count(c) for c in range(5)} == counts
    for p in reward.points:
        exact = sum(n * (1 - Fraction(comb(4 - c, p.k), comb(4, p.k)))
                    for c, n in counts.items()) / 50
        assert p.pass_at == float(exact)
        hat = sum(n * Fraction(comb(c, p.k), comb(4, p.k)) for c, n in counts.items()) / 50
        assert p.pass_hat == float(hat)
    assert reward.point(4).pass_at == 0.72


def test_pass_k_intervals_are_the_stats_module_over_the_items_values(
    report: PassKReport,
) -> None:
    (reward,) = [c for c in report.curves if c.metric == "tau.reward"]
    per_item = [pass_hat_k(4, c, 4) for c, n in PASSES_BY_TASK.items() for _ in range(n)]
    assert reward.point(4).pass_hat_ci == mean_interval(per_item, "fraction")
    assert reward.point(4).pass_hat_ci == pytest.approx(exact_interval(10, 50))
    low, high = reward.point(2).pass_hat_ci or (0, 0)
    assert low < 41 / 150 < high


def test_per_trial_and_consistency_across_trials(report: PassKReport) -> None:
    (reward,) = [c for c in report.curves if c.metric == "tau.reward"]
    assert reward.per_repetition == ((21, 50), (22, 50), (20, 50), (21, 50))
    assert (reward.all_pass, reward.all_fail, reward.n_items) == (10, 14, 50)
    assert reward.consistency == 24 / 50
    assert reward.imported


def test_null_agent_twin_margin_per_k(report: PassKReport) -> None:
    (twin,) = [t for t in report.twins if t.metric == "tau.reward"]
    assert (twin.agent, twin.passes, twin.n_items, twin.tool_calls) == ("do_nothing", 19, 50, 0)
    assert twin.value == 0.38
    assert twin.ci == exact_interval(19, 50)
    assert [p.margin for p in twin.points] == [
        float(EXACT_PASS_HAT[k]) - 0.38 for k in range(1, 5)
    ]
    assert [round(p.margin, 4) for p in twin.points] == [0.04, -0.1067, -0.16, -0.18]
    assert [p.overlap for p in twin.points] == [True, True, True, True]
    (recall,) = [t for t in report.twins if t.metric == "tools.recall"]
    assert (recall.passes, recall.n_items) == (0, 43)
    # exact intervals are wider than Wilson: at k=2 they now overlap the null agent's
    assert [p.overlap for p in recall.points] == [False, True, True, True]


def test_harness_scorers_beside_the_published_reward(report: PassKReport) -> None:
    beside = {b.metric: b for b in report.beside}
    assert report.reference == "tau.reward"
    assert beside["trajectory.exact"].mean == 14 / 200
    assert (beside["trajectory.exact"].n_pass, beside["trajectory.exact"].n_fail) == (84, 116)
    recall = beside["tools.recall"]
    assert recall.n == 172  # 7 tasks have no gold action, so recall is n/a on their 28
    assert recall.mean_pass is not None and recall.mean_fail is not None
    assert recall.mean_pass > recall.mean_fail
    assert beside["tools.missing"].mean == 166 / 200
    assert beside["outcome.match"].n == 0
    assert report.faults["malformed"] == []
    assert [(f["item_id"], f["repetition"]) for f in report.faults["no_reward_info"]] == [
        ("002", 2), ("009", 3), ("009", 4), ("033", 1), ("046", 4)
    ]


def test_report_passk_curve_flag(
    imported: tuple[Store, Run],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, run = imported
    db = str(store.engine.url.database)
    code, out, _ = run_cli(["report", run.run_id, "--db", db, "--passk-curve"], monkeypatch,
                           capsys)
    assert code == 3  # its controls leave it INADMISSIBLE (test_tau_bench_controls)
    assert out.index("tau.reward * (imported)") < out.index("pass^k and pass@k, k = 1..4")
    assert out.endswith(render_passk(passk_report(store, run)))
    lines = out.splitlines()
    def ci(interval: tuple[float, float] | None) -> str:
        assert interval is not None
        return f"[{interval[0]:.4f}, {interval[1]:.4f}]"

    first = ci(exact_interval(21, 50)).split()[0]
    assert any(line.split()[:6] == ["tau.reward", "(imported)", "1", "50", "0.4200", first]
               for line in lines)
    second = ci(mean_interval([pass_hat_k(4, c, 2) for c, n in PASSES_BY_TASK.items()
                               for _ in range(n)], "fraction")).split()[0]
    assert any(line.split()[:4] == ["2", "50", "0.2733", second] for line in lines)
    assert (f"null agent do_nothing on tau.reward: 19 of 50 = 0.3800 {ci(exact_interval(19, 50))}"
            " (0 tool calls)") in out
    assert (f"consistency across repetitions, tau.reward: 0.4800 {ci(exact_interval(24, 50))}, "
            "n=50") in out
    code, plain, _ = run_cli(["report", run.run_id, "--db", db], monkeypatch, capsys)
    assert code == 3 and "pass^k and pass@k, k = 1.." not in plain
    code, raw, _ = run_cli(["report", run.run_id, "--db", db, "--json", "--passk-curve"],
                           monkeypatch, capsys)
    payload: dict[str, Any] = json.loads(raw)
    assert payload["passk_curve"] == json.loads(json.dumps(passk_json(passk_report(store, run))))
    points = payload["passk_curve"]["curves"]["tau.reward"]["points"]
    assert [p["pass_hat_k"] for p in points] == [0.42, 0.2733333333333333, 0.22, 0.2]


def test_any_run_gets_a_curve(store: Store) -> None:
    """The curve is generic: a toy run with k=3 gets k = 1..3 for its headline metrics."""
    from agent_assay import api
    from tests.support.toy import ToyAdapter

    adapter = ToyAdapter()
    run = api.evaluate(adapter, "good", store=store, repeats=3, seed=0).run
    report = passk_report(store, run)
    assert report.curves and all(len(c.points) == 3 for c in report.curves)
    assert "pass^k and pass@k, k = 1..3" in render_passk(report)


def test_one_metric_has_one_interval_in_every_view(imported: tuple[Store, Run]) -> None:
    store, run = imported
    summary = summarise(store, run)
    curves = {c.metric: c for c in passk_report(store, run).curves}
    for metric in summary.metrics:
        if metric.name not in curves or metric.kind == "measure":
            continue
        point = curves[metric.name].point(run.repeats)
        assert (point.n_items, point.pass_hat_ci, point.pass_at_ci) == (
            metric.n_pass_k, metric.pass_hat_k_ci, metric.pass_at_k_ci), metric.name
    args = summary.metric("args.match")
    assert (args.n_items, args.n_pass_k) == (43, 29)  # items with fewer than 4 values: left out


def test_headline_only_changes_no_interval(
    imported: tuple[Store, Run], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, run = imported
    db = str(store.engine.url.database)
    _, full, _ = run_cli(["report", run.run_id, "--db", db], monkeypatch, capsys)
    _, short, _ = run_cli(["report", run.run_id, "--headline-only", "--db", db], monkeypatch,
                          capsys)
    headline = [line for line in short.splitlines() if " * " in f" {line} " and "[" in line]
    assert headline and all(line in full.splitlines() for line in headline)
