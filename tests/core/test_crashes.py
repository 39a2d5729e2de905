"""Crashed repetitions (stats.crashes): an agent's crash is a failure, a harness's crash is
not a measurement, and every view counts both.

The coin agents (tests/support/crashing.py) meet the same successes under one seed and
differ only in what a failure looks like, so what the rule must give is known: the figures
of the agent that answers its failures.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.aggregates import item_values
from agent_assay.hosting.jobs import Task, attributed, run_task
from agent_assay.integrity.comparability import compare_runs
from agent_assay.integrity.verify import verify_run
from agent_assay.model import CRASH_CAUSE, Config, CrashCause, Run, Trajectory
from agent_assay.run_context import run_context
from agent_assay.schemas import schema
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.crashes import NO_VERDICT, WHAT_IT_COUNTS_AS, treat
from agent_assay.stats.passrates import pass_at_k, pass_hat_k
from agent_assay.store import Store, open_store
from agent_assay.views.gates import comparison_text
from agent_assay.views.load import (
    passk_report,
    report_json,
    report_text,
    run_page,
    summarise,
    trajectory_view,
)
from agent_assay.views.load import show_run_view as run_view
from agent_assay.views.passk import passk_json, render_passk
from agent_assay.views.run_view import run_json, run_text
from agent_assay.views.summary import MetricSummary
from agent_assay.views.trajectory_view import trajectory_json, trajectory_text
from tests.support.crashing import CoinSystem, draws
from tests.support.tamper import behind_triggers

K = 3
FIGURES = ("n_items", "mean_of_k", "mean_ci", "n_pass_k", "pass_hat_k", "pass_hat_k_ci",
           "pass_at_k", "pass_at_k_ci", "per_repetition")


@dataclass(frozen=True)
class Coins:
    store: Store
    runs: dict[str, Run]
    harness: int
    """How many slots the flaky run's harness crashed, as the run reported it."""


def coin_run(store: Store, config: str) -> tuple[Run, int]:
    system = CoinSystem()
    done = api.evaluate(system, config, store=store, repeats=K, seed=0)
    return done.run, done.result.harness


@pytest.fixture(scope="module")
def coins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Coins]:
    store = open_store(str(tmp_path_factory.mktemp("coins") / "assay.db"))
    made = {config: coin_run(store, config) for config in ("scored", "raises", "flaky")}
    yield Coins(store, {c: run for c, (run, _) in made.items()}, made["flaky"][1])
    store.close()


def figures(m: MetricSummary) -> tuple[Any, ...]:
    return tuple(getattr(m, name) for name in FIGURES)


def test_an_agent_that_raises_instead_of_failing_gets_the_figures_of_one_that_fails(
    coins: Coins,
) -> None:
    store, scored, raises = coins.store, coins.runs["scored"], coins.runs["raises"]
    crashed = [t for t in store.trajectories(raises.run_id) if t.crashed]
    assert crashed and {t.crash_cause for t in crashed} == {"agent"}
    values = {(r.item_id, r.repetition): r.value for r in store.current_scores(raises.run_id)
              if r.scorer == "coin.pass"}
    assert {values[(t.item_id, t.repetition)] for t in crashed} == {None}  # n/a on a crash
    answered, raised = summarise(store, scored), summarise(store, raises)
    for metric in ("coin.pass", "outcome.match"):
        assert figures(raised.metric(metric)) == figures(answered.metric(metric)), metric
    assert raised.metric("coin.pass").pass_hat_k == answered.metric("outcome.match").pass_hat_k
    curves = [{c.metric: c.points for c in passk_report(store, run).curves}
              for run in (scored, raises)]
    assert curves[0] == curves[1] and len(curves[0]["coin.pass"]) == K
    assert item_values(store, raises)["coin.pass"] == item_values(store, scored)["coin.pass"]


def test_leaving_the_crashes_out_would_flatter_the_agent(coins: Coins) -> None:
    """What the rule replaced: the items whose crashes had no value left pass^k, and the
    agent that raises looked more reliable than the one that answers."""
    store, raises = coins.store, coins.runs["raises"]
    by_item: dict[str, list[float]] = {}
    for r in store.current_scores(raises.run_id):
        if r.scorer == "coin.pass" and r.value is not None:
            by_item.setdefault(r.item_id, []).append(r.value)
    kept = [pass_hat_k(K, int(sum(v)), K) for v in by_item.values() if len(v) == K]
    old = sum(kept) / len(kept)
    now = summarise(store, raises).metric("coin.pass")
    assert now.pass_hat_k is not None and old - now.pass_hat_k > 0.1
    assert len(kept) < now.n_pass_k == len(raises.item_ids)


def test_harness_crashes_are_left_out_and_counted(coins: Coins) -> None:
    store, flaky = coins.store, coins.runs["flaky"]
    causes = store.crash_causes(flaky.run_id)
    lost = {slot for slot, cause in causes.items() if cause == "harness"}
    assert lost and len(lost) == coins.harness
    measured = {item: [draws(item, seed)[0] for rep in range(1, K + 1)
                       if (item, rep) not in lost
                       for seed in [slot_seed(flaky, item, rep)]]
                for item in flaky.item_ids}
    summary = summarise(store, flaky)
    m = summary.metric("coin.pass")
    whole = [v for v in measured.values() if len(v) == K]
    short = [v for v in measured.values() if 0 < len(v) < K]
    assert (m.n_pass_k, m.n_left_out) == (len(whole), len(short))
    assert m.pass_hat_k == pytest.approx(np.mean([all(v) for v in whole]))
    assert m.pass_at_k == pytest.approx(np.mean([any(v) for v in whole]))
    assert m.mean_of_k == pytest.approx(np.mean([np.mean(v) for v in measured.values() if v]))
    curve = next(c for c in passk_report(store, flaky).curves if c.metric == "coin.pass")
    for point in curve.points:
        counts = [(len(v), sum(v)) for v in measured.values() if len(v) >= point.k]
        assert point.n_items == len(counts)
        assert point.pass_hat == pytest.approx(np.mean([pass_hat_k(n, c, point.k)
                                                        for n, c in counts]))
        assert point.pass_at == pytest.approx(np.mean([pass_at_k(n, c, point.k)
                                                       for n, c in counts]))
    counted = summary.status.repetitions
    assert (counted.by_agent, counted.by_harness) == (len(causes) - len(lost), len(lost))
    assert counted.left_out() == len(flaky.item_ids) - len(whole)


def slot_seed(run: Run, item: str, rep: int) -> int:
    from agent_assay.hashing import stable_seed

    return stable_seed(run.seed, item, rep)


def test_the_counts_are_in_every_view(coins: Coins) -> None:
    store, flaky = coins.store, coins.runs["flaky"]
    counted = summarise(store, flaky).status.repetitions
    crashes = (f"crashed: {counted.by_agent} by the agent (counted as failures), "
               f"{counted.by_harness} by the harness (not measured)")
    short = (f"{counted.left_out()} items with fewer than {K} measured repetitions left out of "
             f"pass^{K} and pass@{K}")
    text = report_text(store, flaky)
    assert crashes in text and short in text
    document = report_json(store, flaky)
    jsonschema.validate(document, schema("report"))
    status = document["status"]
    assert (status["crashed_by_agent"], status["crashed_by_harness"], status["left_out"]) == (
        counted.by_agent, counted.by_harness, counted.left_out())
    # an item with no measured repetition has no value to leave out of a metric
    assert document["metrics"]["coin.pass"]["n_left_out"] == (
        counted.left_out() - counted.short.get(0, 0))
    curve = passk_report(store, flaky)
    assert crashes in render_passk(curve) and "left out at k" in render_passk(curve)
    assert passk_json(curve)["crashed"] == {"by_agent": counted.by_agent,
                                            "by_harness": counted.by_harness}
    shown = run_view(store, flaky.run_id)
    # every crash listed: the text shows the first ten in the order they arrived, and
    # under load those can all be the agent's
    listed = run_text(shown, shown_crashes=len(shown.crashes))
    assert "(by the harness): EnvironmentFailed: the coin could not be set up" in listed
    shown_json = run_json(shown)
    jsonschema.validate(shown_json, schema("runs-show"))
    assert {c["cause"] for c in shown_json["crashes"]} == {"agent", "harness"}
    one_of_each = {cause: slot for slot, cause in store.crash_causes(flaky.run_id).items()}
    for cause, (item, rep) in one_of_each.items():
        one = trajectory_view(store, flaky.run_id, item, rep)
        assert WHAT_IT_COUNTS_AS[cause] in trajectory_text(one)
        one_json = trajectory_json(one)
        jsonschema.validate(one_json, schema("trajectories-show"))
        assert one_json["crash_cause"] == cause


def test_the_counts_reach_the_html_page_and_a_forced_comparison(coins: Coins) -> None:
    """Any crash makes a run inadmissible, so `compare` shows its numbers only forced,
    and the counts come with the reason it gives."""
    store, flaky = coins.store, coins.runs["flaky"]
    crashes = summarise(store, flaky).status.repetitions.crash_line()
    assert crashes.startswith("crashed: ") and crashes in run_page(
        store, flaky, run_view(store, flaky.run_id).verdict)
    forced = comparison_text(compare_runs(store, coins.runs["scored"].run_id, flaky.run_id),
                             forced=True)
    assert crashes in forced


def test_verify_vouches_for_the_causes_and_finds_one_rewritten(
    coins: Coins, tmp_path: Path
) -> None:
    """The cause is part of the trajectory's payload, so the row digest and the chain cover
    it: an honest store verifies (re-scored too), and turning an agent's crash into the
    harness's, which would take it out of every figure, is found."""
    flaky = coins.runs["flaky"].run_id
    assert verify_run(coins.store, flaky, lambda name: CoinSystem()).findings == []
    copy = tmp_path / "copy.db"
    source, target = sqlite3.connect(str(coins.store.engine.url.database)), sqlite3.connect(copy)
    source.backup(target)  # with what the writer left in its log
    source.close()
    target.close()
    behind_triggers(copy, "UPDATE trajectories SET payload = replace(payload, "
                          "'\"crash_cause\":\"agent\"', '\"crash_cause\":\"harness\"')")
    forged = open_store(str(copy))
    try:
        assert set(forged.crash_causes(flaky).values()) == {"harness"}
        found = [f.line() for f in verify_run(forged, flaky, None).findings]
        assert any("digest" in line for line in found), found
    finally:
        forged.close()


def test_a_crash_stored_without_a_cause_is_the_agents(store: Store) -> None:
    """A store written before causes were recorded: its crashes fail, as they always
    should have, and so does a cause the harness does not know; one the runner then
    marked as unreachable was a failed measurement already, and stays one."""
    system = CoinSystem()
    run = api.start(system, "scored", store=store, repeats=2, seed=0,
                    selection=api.Selection(limit=3))
    context = run_context(store, system, run)
    first, second, third = run.item_ids
    heads = {(item, rep): Trajectory(item, rep, outcome="heads")
             for item in run.item_ids for rep in (1, 2)}
    heads[(first, 2)] = Trajectory(first, 2, crashed=True, error="old", meta={})
    heads[(second, 1)] = Trajectory(second, 1, crashed=True, error="odd",
                                    meta={CRASH_CAUSE: "nobody"})
    heads[(third, 2)] = Trajectory(third, 2, crashed=True, error="AgentUnreachable: down",
                                   meta={"agent_unreachable": True})
    store.write_trajectories(run.run_id, [(t, context.score(t)) for t in heads.values()])
    assert store.crash_causes(run.run_id) == {
        (first, 2): "agent", (second, 1): "agent", (third, 2): "harness"}
    summary = summarise(store, run)
    m = summary.metric("coin.pass")
    assert (m.n_pass_k, m.n_left_out, m.pass_hat_k, m.pass_at_k) == (2, 1, 0.0, 1.0)
    assert m.mean_of_k == pytest.approx(2 / 3)
    counted = summary.status.repetitions
    assert (counted.by_agent, counted.by_harness, counted.left_out()) == (2, 1, 1)


def test_the_rule_for_each_kind_of_metric() -> None:
    items, reps = np.array([0, 0, 1, 1], np.int32), np.array([1, 2, 1, 2], np.int32)
    crashed: dict[tuple[int, int], CrashCause] = {(0, 2): "agent", (1, 2): "harness"}
    cases: tuple[tuple[ScoreKind, float | None, float | None, int], ...] = (
        ("binary", 1.0, 0.0, 0),      # a pass on the empty trajectory is still a failure
        ("binary", None, 0.0, 0),     # n/a on the crash: a failure all the same
        ("fraction", 0.5, 0.0, 0),    # no credit
        ("count", 0.0, 0.0, 0),       # the count stands, the repetition fails
        ("count", None, None, 0),
        ("measure", 12.0, 12.0, NO_VERDICT),
        ("measure", None, None, NO_VERDICT),
    )
    for kind, stored, mean, verdict in cases:
        values = np.array([1.0 if kind != "count" else 0.0, np.nan if stored is None else stored,
                           1.0, 1.0], np.float64)
        treated = treat(kind, items, reps, values, crashed)
        got = treated.values[1]
        assert (None if np.isnan(got) else float(got)) == mean, (kind, stored)
        assert treated.verdicts[1] == verdict, (kind, stored)
        assert np.isnan(treated.values[3]) and treated.verdicts[3] == NO_VERDICT  # harness


def test_a_metric_that_does_not_apply_leaves_an_agents_crash_out() -> None:
    # item 0: n/a where measured (the metric does not apply), item 1: crashed every time
    items, reps = np.array([0, 0, 1, 1], np.int32), np.array([1, 2, 1, 2], np.int32)
    crashed: dict[tuple[int, int], CrashCause] = {(0, 2): "agent", (1, 1): "agent",
                                                  (1, 2): "agent"}
    nowhere = np.array([np.nan] * 4)
    treated = treat("binary", items, reps, nowhere, crashed)
    assert list(treated.verdicts) == [NO_VERDICT] * 4  # n/a on every measured repetition
    # item 2 has a value: the metric applies in this run, so the item with nothing else fails
    treated = treat("binary", np.array([0, 0, 1, 1, 2], np.int32),
                    np.array([1, 2, 1, 2, 1], np.int32), np.append(nowhere, 1.0), crashed)
    assert list(treated.verdicts) == [NO_VERDICT, NO_VERDICT, 0, 0, 1]
    every: dict[tuple[int, int], CrashCause] = {
        slot: "agent" for slot in zip(items.tolist(), reps.tolist(), strict=True)}
    everything = treat("binary", items, reps, nowhere, every)
    assert list(everything.verdicts) == [0] * 4  # nothing measured: every crash fails


@pytest.mark.parametrize("mode, cause, unreachable", [
    ("raises", "agent", False), ("flaky", "harness", False), ("unreachable", "harness", True)])
def test_whose_failure_a_crash_is(mode: str, cause: str, unreachable: bool) -> None:
    system = load_system(CoinSystem())
    item = CoinSystem().build_suite().items[0].public()
    config = Config("coins", mode, {"mode": mode})
    seed = next(s for s in range(1000) if draws(item.item_id, s) == (False, True))
    trajectory = run_task(system, Task(item, config, seed, 1))
    assert trajectory.crashed and trajectory.crash_cause == cause
    assert bool(trajectory.meta.get("agent_unreachable")) is unreachable


def test_the_writer_keeps_only_a_cause_it_knows() -> None:
    honest = Trajectory("c00", 1, crashed=True, meta={CRASH_CAUSE: "harness", "x": 1})
    assert attributed(honest) is honest
    invented = attributed(Trajectory("c00", 1, crashed=True, meta={CRASH_CAUSE: "cosmic ray"}))
    assert invented.meta[CRASH_CAUSE] == "agent"
    assert attributed(Trajectory("c00", 1, crashed=True)).meta == {CRASH_CAUSE: "agent"}
    calm = attributed(Trajectory("c00", 1, meta={CRASH_CAUSE: "harness", "x": 1}))
    assert calm.meta == {"x": 1} and calm.crash_cause is None


def test_nothing_changes_for_a_run_without_crashes(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "a.db"))
    run, _ = coin_run(store, "scored")
    status = summarise(store, run).status
    assert status.reasons == () and status.repetitions.crash_line() == ""
    assert "crashed:" not in report_text(store, run)
