"""The runner: slots × scores, crash capture, resume after an interrupt, item selection."""

from __future__ import annotations

import dataclasses
import gc
import sqlite3
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.collector import YOUNG_COLLECTED_AT
from agent_assay.errors import AssayError
from agent_assay.model import Gold, Run, Suite, Trajectory
from agent_assay.run_context import score_records
from agent_assay.runner import (
    build_and_store_suite,
    execute_run,
    resolve_config,
    select_items,
)
from agent_assay.scoring.base import ScoreValue, ScoringContext
from agent_assay.scoring.registry import default_scorers
from agent_assay.store import Store
from agent_assay.store.evidence import RawReader
from agent_assay.views.load import summarise
from tests.support.misbehaving import CTRL_C_PID_ENV, InterruptingToy, press_ctrl_c_on
from tests.support.toy import ToyAdapter, toy_items
from tests.support.toyrun import new_toy_run, toy_run

SCORER_NAMES = {s.name for s in default_scorers()}
ITEMS = ["off-L4", "on-L1", "on-L2", "on-L3"]


def test_toy_run_stores_every_slot_with_thirteen_scores(store: Store, toy: ToyAdapter) -> None:
    run = new_toy_run(store, toy, "good", repeats=3)
    result = execute_run(store, toy, run, progress=False)
    assert (result.written, result.skipped, result.crashed) == (12, 0, 0)
    assert list(run.item_ids) == ITEMS
    assert store.stored_slots(run.run_id) == {(i, r) for i in ITEMS for r in (1, 2, 3)}
    assert store.count_rows("trajectories") == 12
    assert store.count_scores() == 12 * 13
    per_slot: dict[tuple[str, int], set[str]] = {}
    for record in store.current_scores(run.run_id):
        per_slot.setdefault((record.item_id, record.repetition), set()).add(record.scorer)
    assert len(per_slot) == 12
    assert all(names == SCORER_NAMES for names in per_slot.values())
    with sqlite3.connect(store.engine.url.database or "") as con:
        counts = con.execute(
            "SELECT count(*), min(length(packed_values)) FROM score_sets "
            "GROUP BY trajectory_id").fetchall()
    assert counts == [(1, 13 * 16)] * 12  # one set per trajectory, 13 values of 16 hex digits
    assert [e.event for e in store.events(run.run_id)] == ["started", "complete"]
    complete = dict(store.events(run.run_id)[-1].detail)
    # the terminal event records the chain head it closes on: block 1 (the run), 12 trajectories
    closed_on = RawReader(store).ledger(run.run_id)[12]
    assert complete.pop("head") == {"seq": 13, "digest": closed_on.digest}
    assert closed_on.kind == "trajectory"
    assert complete == {"written": 12, "skipped": 0}


def test_wrong_arg_run_scores_are_hand_computed(store: Store, toy: ToyAdapter) -> None:
    run = toy_run(store, toy, "wrong_arg")
    scores = {(r.item_id, r.scorer): r.value for r in store.current_scores(run.run_id)}
    for item in ITEMS:
        # the right tools in the right order on the next lamp along
        assert scores[(item, "trajectory.exact")] == 1.0
        assert scores[(item, "trajectory.lcs")] == 1.0
        assert scores[(item, "outcome.match")] == 1.0
        assert scores[(item, "state.assertions")] == 0.0
        assert scores[(item, "args.match")] == 0.0
        assert scores[(item, "tools.recall")] == 0.0
        assert scores[(item, "tools.wrong")] == 0.0
        assert scores[(item, "tools.missing")] == 0.0
        assert scores[(item, "tools.redundant")] == 0.0
        assert scores[(item, "tools.order_violations")] == 0.0
        assert scores[(item, "cost.usd")] == 0.0
        assert scores[(item, "latency.total_ms")] >= 0.0  # type: ignore[operator]
    # on-L1 switches on L2 and on-L2 switches on L3 (stray changes); on-L3 switches on L4 and
    # off-L4 switches off L1, neither of which changes anything.
    assert {i: scores[(i, "state.collateral")] for i in ITEMS} == {
        "off-L4": 0.0, "on-L1": 1.0, "on-L2": 1.0, "on-L3": 0.0,
    }


def test_crashy_run_records_crashes_and_keeps_others(store: Store, toy: ToyAdapter) -> None:
    run = new_toy_run(store, toy, "crashy", repeats=2)
    result = execute_run(store, toy, run, progress=False)
    assert (result.written, result.crashed) == (8, 2)
    trajectories = store.trajectories(run.run_id)
    assert len(trajectories) == 8
    crashed = [t for t in trajectories if t.crashed]
    assert [(t.item_id, t.repetition) for t in crashed] == [("on-L2", 1), ("on-L2", 2)]
    for t in crashed:
        assert t.error is not None
        assert t.error.startswith("RuntimeError: lamp L2 is haunted at ")
        assert "toy.py:" in t.error
        assert t.steps == () and t.final_state is None
        assert t.cost.reason == "agent crashed before reporting cost"
    assert all(t.error is None and t.final_state is not None
               for t in trajectories if not t.crashed)
    crash_events = [e for e in store.events(run.run_id) if e.event == "item_crashed"]
    assert sorted((e.detail["item_id"], e.detail["repetition"]) for e in crash_events) == [
        ("on-L2", 1), ("on-L2", 2)]
    assert all("lamp L2 is haunted" in e.detail["error"] for e in crash_events)
    scores = {(r.item_id, r.repetition, r.scorer): r.value
              for r in store.current_scores(run.run_id)}
    assert len(scores) == 8 * 13
    # a crash counts against the agent
    assert scores[("on-L2", 1, "trajectory.exact")] == 0.0
    assert scores[("on-L2", 1, "outcome.match")] == 0.0
    assert scores[("on-L2", 1, "tools.missing")] == 2.0
    assert scores[("on-L2", 1, "state.collateral")] is None
    assert scores[("on-L1", 1, "trajectory.exact")] == 1.0

    summary = summarise(store, store.get_run(run.run_id))
    assert summary.status.state == "incomplete"
    assert (summary.status.expected, summary.status.stored, summary.status.crashed) == (8, 8, 2)
    assert summary.metric("trajectory.exact").mean_of_k == pytest.approx(0.75)


def test_resume_after_interrupt_stores_exactly_the_missing_slots(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = InterruptingToy()
    run = new_toy_run(store, first, "noisy", repeats=2)
    press_ctrl_c_on(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        execute_run(store, first, run, progress=False)
    all_slots = {(i, r) for i in ITEMS for r in (1, 2)}
    stored = store.stored_slots(run.run_id)
    assert len(stored) == 2
    assert store.count_scores() == 2 * 13
    events = store.events(run.run_id)
    assert events[-1].event == "interrupted" and events[-1].detail["written"] == 2
    assert summarise(store, run).status.state == "interrupted"

    monkeypatch.delenv(CTRL_C_PID_ENV)
    result = execute_run(store, InterruptingToy(), run, progress=False)
    assert (result.written, result.skipped) == (6, 2)
    assert store.stored_slots(run.run_id) == all_slots
    assert store.count_rows("trajectories") == 8
    assert store.count_scores() == 8 * 13
    per_slot = Counter((r.item_id, r.repetition) for r in store.current_scores(run.run_id))
    assert set(per_slot.values()) == {13}
    assert summarise(store, run).status.state == "complete"

    # resuming a complete run does nothing
    again = execute_run(store, InterruptingToy(), run, progress=False)
    assert (again.written, again.skipped) == (0, 8)
    assert store.count_rows("trajectories") == 8


def test_resumed_noisy_run_matches_an_uninterrupted_one(
    store: Store, toy: ToyAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    interrupted = InterruptingToy()
    run = new_toy_run(store, interrupted, "noisy", repeats=3, seed=11)
    press_ctrl_c_on(monkeypatch, 4)
    with pytest.raises(KeyboardInterrupt):
        execute_run(store, interrupted, run, progress=False)
    monkeypatch.delenv(CTRL_C_PID_ENV)
    execute_run(store, toy, run, progress=False)
    straight = toy_run(store, toy, "noisy", repeats=3, seed=11)
    paths = {(t.item_id, t.repetition): t.path_key() for t in store.trajectories(run.run_id)}
    straight_paths = {(t.item_id, t.repetition): t.path_key()
                      for t in store.trajectories(straight.run_id)}
    assert paths == straight_paths
    assert len(set(paths.values())) > 1  # the noise really shows


class BoomScorer:
    name = "boom"
    version = "1"
    definition = "raises on on-L3"
    kind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if trajectory.item_id == "on-L3":
            raise KeyError("nope")
        return ScoreValue(1.0)


class BoomToy(ToyAdapter):
    facts = replace(ToyAdapter.facts, scorers=(BoomScorer(),))


def test_scorer_error_interrupts_run_without_half_written_slot(store: Store) -> None:
    adapter = BoomToy()
    run = new_toy_run(store, adapter, "good")
    with pytest.raises(AssayError, match="scorer boom v1 raised on item on-L3 repetition 1"):
        execute_run(store, adapter, run, progress=False)
    stored = store.stored_slots(run.run_id)
    assert ("on-L3", 1) not in stored  # whatever the order, the slot it raised on is not kept
    assert store.count_scores() == len(stored) * 14  # and no slot is kept half-scored
    interrupted = store.events(run.run_id)[-1]
    assert interrupted.event == "interrupted" and interrupted.detail["written"] == len(stored)


def test_select_items(toy: ToyAdapter) -> None:
    suite = toy.build_suite(None)
    assert [i.item_id for i in select_items(suite)] == ITEMS
    assert [i.item_id for i in select_items(suite, tags=["on"])] == ["on-L1", "on-L2", "on-L3"]
    assert [i.item_id for i in select_items(suite, tags=["off", "on"])] == ITEMS
    assert [i.item_id for i in select_items(suite, tags=["on"], limit=2)] == ["on-L1", "on-L2"]
    assert [i.item_id for i in select_items(suite, limit=1)] == ["off-L4"]
    assert len(select_items(suite, limit=99)) == 4


@pytest.mark.parametrize(
    ("tags", "limit", "message"),
    [
        (("nope",), None, "no item in the suite carries tag(s): nope"),
        (("x", "y"), None, "no item in the suite carries tag(s): x, y"),
        ((), 0, "--limit must be at least 1, got 0"),
        ((), -3, "--limit must be at least 1, got -3"),
    ],
)
def test_select_items_errors(toy: ToyAdapter, tags: tuple[str, ...], limit: int | None,
                             message: str) -> None:
    with pytest.raises(AssayError) as err:
        select_items(toy.build_suite(None), tags=tags, limit=limit)
    assert str(err.value) == message


def test_repeats_and_config_errors(store: Store, toy: ToyAdapter) -> None:
    with pytest.raises(AssayError, match="--repeats must be between 1 and 10000, got 0"):
        new_toy_run(store, toy, "good", repeats=0)
    with pytest.raises(AssayError) as err:
        resolve_config(toy, "bad")
    available = ", ".join(sorted(toy.configs()))
    assert str(err.value) == f"unknown config 'bad' for adapter toy (available: {available})"
    assert resolve_config(toy, "noisy").params == {"mode": "noisy"}
    assert store.count_rows("runs") == 0


def test_run_with_tag_and_limit(store: Store, toy: ToyAdapter, tmp_path: Path) -> None:
    run = new_toy_run(store, toy, "good", repeats=2, tags=["on"], limit=2)
    assert run.item_ids == ("on-L1", "on-L2")
    result = execute_run(store, toy, run, progress=False)
    assert result.written == 4
    assert {i for i, _ in store.stored_slots(run.run_id)} == {"on-L1", "on-L2"}


class DuplicateIdToy(ToyAdapter):
    """A golden set with two different items both called on-L2."""

    def build_suite(self, source: Path | None = None) -> Suite:
        items = toy_items()
        twin = dataclasses.replace(items[1], input={"request": "please switch on L3"})
        return Suite(adapter=self.name, items=(*items, twin), source="builtin")


def test_duplicate_item_ids_are_a_named_error(store: Store) -> None:
    suite = DuplicateIdToy().build_suite(None)
    assert [i.item_id for i in suite.items].count("on-L2") == 2
    with pytest.raises(AssayError, match="on-L2"):
        build_and_store_suite(store, DuplicateIdToy(), None)


def test_execute_run_skips_any_stored_slot_not_just_a_prefix(store: Store) -> None:
    adapter = ToyAdapter()
    run = new_toy_run(store, adapter, "good", repeats=2)
    # store one slot from the middle of the order by hand
    item = ToyAdapter().build_suite(None).by_id()["on-L2"]
    done = ToyAdapter().run_item(item.public(), resolve_config(adapter, "good"), seed=1,
                                 repetition=2)
    store.write_trajectory(run.run_id, done, score_records(
        load_system(adapter).scorers(), item, done, load_system(adapter).scoring_context()))
    by_hand = next(t for t in store.trajectories(run.run_id))
    result = execute_run(store, adapter, run, progress=False)
    assert (result.written, result.skipped) == (7, 1)
    kept = [t for t in store.trajectories(run.run_id) if (t.item_id, t.repetition) == ("on-L2", 2)]
    assert kept == [by_hand]
    assert store.count_rows("trajectories") == 8


@pytest.mark.parametrize("young", [700, 0])
def test_a_run_collects_young_objects_less_and_restores_the_threshold(
        store: Store, toy: ToyAdapter, young: int) -> None:
    """While a run writes, the young generation is collected at YOUNG_COLLECTED_AT objects
    (never, if the process asked for never); after it, as the process had it."""
    seen: list[tuple[int, ...]] = []
    write = store.write_trajectories

    def recorded(*args: Any, **kwargs: Any) -> list[int]:
        seen.append(gc.get_threshold())
        return write(*args, **kwargs)

    before = gc.get_threshold()
    store.write_trajectories = recorded  # type: ignore[method-assign]
    gc.set_threshold(young, *before[1:])
    try:
        execute_run(store, toy, new_toy_run(store, toy, "good"), progress=False)
        assert gc.get_threshold() == (young, *before[1:])
    finally:
        gc.set_threshold(*before)
    assert seen and set(seen) == {(young and YOUNG_COLLECTED_AT, *before[1:])}


def test_certifying_a_config_reuses_only_a_run_made_as_asked(store: Store, toy: ToyAdapter) -> None:
    """Given a config and no run, the run certified is the newest complete one over the same
    items with the repetitions and seed asked for; a run of another k or seed is not it, and
    one as asked is made instead."""
    from agent_assay import api

    made = toy_run(store, toy, "good", repeats=1, seed=0)
    system = load_system(toy)

    def chosen(repeats: int, seed: int) -> Run:
        return api.run_to_certify(store, system, run=None, config="good", repeats=repeats,
                                  seed=seed)

    assert chosen(1, 0).run_id == made.run_id
    again = chosen(2, 0)
    assert again.run_id != made.run_id and (again.repeats, again.seed) == (2, 0)
    assert chosen(2, 0).run_id == again.run_id  # now there is one as asked
    reseeded = chosen(1, 7)
    assert reseeded.run_id not in (made.run_id, again.run_id) and reseeded.seed == 7
