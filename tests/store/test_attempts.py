"""Attempts at a slot, on SQLite and on PostgreSQL: a crashed slot run again keeps both
trajectories, every reader takes the newest, re-scoring scores the newest, the chain and
a bundle of the run verify, and a checkpoint taken after the retry covers the attempt
column (which the rows' digests do not)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from agent_assay.model import Trajectory
from agent_assay.run_context import run_context
from agent_assay.store import RetriedSlot, Store, open_store
from agent_assay.store.bundle import export_bundle, open_bundle
from agent_assay.store.evidence import check_run, check_run_chain, write_checkpoint
from tests.store.conftest import Backend
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run

SLOT = ("on-L2", 1)


def retried_run(store: Store) -> str:
    """A toy run whose agent crashed on on-L2 and which ran that slot again, sound; no
    checkpoint yet (written by hand, as no `run` session closed it)."""
    toy = ToyAdapter()
    run = new_toy_run(store, toy, "good")
    context = run_context(store, toy, run)
    config = store.get_config(run.config_hash)
    for item_id in run.item_ids:
        done = toy.run_item(context.items[item_id].public(), config, seed=0, repetition=1)
        if item_id == SLOT[0]:
            done = Trajectory(item_id, 1, crashed=True, error="RuntimeError: lamp L2 is haunted")
        store.write_trajectory(run.run_id, done, context.score(done))
    attempt = store.newest_crashes(run.run_id)[SLOT]
    assert (attempt.number, attempt.cause) == (2, "agent")
    store.append_event(run.run_id, "retry", {"retry": "crashed", "slots": 1})
    again = toy.run_item(context.items[SLOT[0]].public(), config, seed=0, repetition=1)
    store.write_trajectories(run.run_id, [(again, context.score(again))], {SLOT: attempt})
    store.append_event(run.run_id, "complete", {"written": 1, "skipped": 3, "retried": 1})
    return run.run_id


def test_readers_take_the_newest_attempt_and_the_chain_holds_both(
    backend: Backend, tmp_path: Path
) -> None:
    store = open_store(backend.db)
    run_id = retried_run(store)
    assert store.trajectory_counts(run_id) == (4, 0)
    assert store.stored_per_item(run_id) == dict.fromkeys(store.get_run(run_id).item_ids, 1)
    assert store.crash_causes(run_id) == {}
    assert store.retried_slots(run_id) == {SLOT: RetriedSlot(2, ("agent",))}
    assert [t.crashed for t in store.trajectories(run_id, SLOT[0])] == [False]
    assert store.trajectories(run_id, SLOT[0], attempt=1)[0].crashed
    exact = {r.item_id: r.value for r in store.current_scores(run_id)
             if r.scorer == "trajectory.exact"}
    assert exact[SLOT[0]] == 1.0
    assert [r.value for r in store.current_scores(run_id, SLOT[0], attempt=1)
            if r.scorer == "trajectory.exact"] == [0.0]
    assert check_run_chain(store, run_id).findings == ()

    generation = store.append_generation(  # a re-scoring scores each slot's newest attempt
        run_id, "test", [], store.current_scores(run_id))
    assert generation == 1 and store.current_scores(run_id, SLOT[0], attempt=1) == []
    assert check_run_chain(store, run_id).findings == ()

    bundle = tmp_path / "run.jsonl"
    export_bundle(store, run_id, bundle)
    proven = open_bundle(bundle)
    assert proven.findings == ()
    assert check_run_chain(proven.store, run_id).findings == ()
    assert proven.store.retried_slots(run_id) == {SLOT: RetriedSlot(2, ("agent",))}
    store.close()


def test_a_checkpoint_after_a_retry_covers_the_attempt_column(backend: Backend) -> None:
    store = open_store(backend.db)
    run_id = retried_run(store)
    written = write_checkpoint(store, run_id)
    assert (written is None) == backend.on_postgresql  # checkpoints are SQLite's
    assert check_run(store, run_id).findings == ()
    store.close()
    if backend.on_postgresql:
        return
    engine = backend.engine()
    with engine.begin() as conn:  # the crashed attempt made the newest, nothing else touched
        conn.execute(text("DROP TRIGGER trajectories_no_update"))
        conn.execute(text("UPDATE trajectories SET attempt = 3 WHERE attempt = 1 AND crashed"))
    engine.dispose()
    reopened = open_store(backend.db)
    found = [f.line() for f in check_run(reopened, run_id).findings]
    assert any("is attempt 3, its ledger block" in line for line in found), found
    reopened.close()
