"""Group commit: trajectories a scoring process hands over together are appended in one
transaction, each as its own block; a group with one refused trajectory stores none of
it, and a base state two of them name first is stored once."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_assay.model import Run, Trajectory
from agent_assay.store import Store, open_store
from agent_assay.store.encoding import PreparedTrajectory, StateEncoder, prepare
from agent_assay.store.evidence import check_run_chain
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run


def _bank(n: int = 300) -> dict[str, Any]:
    return {"records": {f"r{i:04d}": {"owner": f"owner-{i}", "balance": i} for i in range(n)}}


def _prepared(run: Run, slots: list[tuple[str, int]]) -> list[PreparedTrajectory]:
    """Rows prepared the way a scoring process prepares a batch: one encoder, told nothing
    of what was stored, so each large state in the batch carries its base."""
    encoder = StateEncoder()
    return [prepare(encoder, run.run_id, Trajectory(item, rep, final_state=_bank()), [])[0]
            for item, rep in slots]


def _counts(db: Path, run_id: str) -> tuple[int, int, int]:
    with sqlite3.connect(db) as conn:
        return (
            conn.execute("SELECT COUNT(*) FROM trajectories WHERE run_id = ?", (run_id,))
            .fetchone()[0],
            conn.execute("SELECT COUNT(*) FROM ledger WHERE run_id = ? AND kind = 'trajectory'",
                         (run_id,)).fetchone()[0],
            conn.execute("SELECT COUNT(*) FROM state_blobs").fetchone()[0],
        )


def _fresh(tmp_path: Path) -> tuple[Path, Store, Run]:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    return db, store, new_toy_run(store, ToyAdapter(), "good", repeats=3)


def test_a_group_is_one_block_per_trajectory_and_one_base(tmp_path: Path) -> None:
    db, store, run = _fresh(tmp_path)
    item = run.item_ids[0]
    group = _prepared(run, [(item, 1), (item, 2), (item, 3)])
    assert all(p.blob is not None for p in group)  # each carries the same new base
    ids = store.write_prepared_group(run.run_id, group)
    assert len(set(ids)) == 3
    assert _counts(db, run.run_id) == (3, 3, 1)
    assert check_run_chain(store, run.run_id).intact
    assert [t.final_state for t in store.trajectories(run.run_id)] == [_bank()] * 3


def test_a_refused_trajectory_leaves_nothing_of_its_group(tmp_path: Path) -> None:
    db, store, run = _fresh(tmp_path)
    first, second = run.item_ids[:2]
    store.write_prepared_group(run.run_id, [_prepared(run, [(first, 1)])[0]])
    before = _counts(db, run.run_id)
    head = store.head(run.run_id)
    taken = _prepared(run, [(second, 1), (second, 2), (first, 1)])  # the last slot is taken
    with pytest.raises(sqlite3.IntegrityError):
        store.write_prepared_group(run.run_id, taken)
    assert _counts(db, run.run_id) == before
    assert store.head(run.run_id) == head
    assert store.stored_slots(run.run_id) == {(first, 1)}
    store.write_prepared_group(run.run_id, taken[:2])  # the same rows go in once free of it
    assert store.stored_slots(run.run_id) == {(first, 1), (second, 1), (second, 2)}
    assert check_run_chain(store, run.run_id).intact


def test_a_refused_group_of_trajectories_leaves_no_base_named_that_was_rolled_back(
    tmp_path: Path,
) -> None:
    db, store, run = _fresh(tmp_path)
    first, second = run.item_ids[:2]
    store.write_trajectory(run.run_id, Trajectory(first, 1, final_state=_bank()), [])
    bases = _counts(db, run.run_id)[2]
    other = {"records": {"x": {"owner": "someone else", "balance": -1}}, **_bank(400)}
    taken = [(Trajectory(second, 1, final_state=other), []),  # brings a new base ...
             (Trajectory(first, 1, final_state=other), [])]  # ... in a group that is refused
    with pytest.raises(sqlite3.IntegrityError):
        store.write_trajectories(run.run_id, taken)
    assert _counts(db, run.run_id)[2] == bases  # the new base was rolled back with it
    store.write_trajectories(run.run_id, [(Trajectory(second, 1, final_state=other), []),
                                          (Trajectory(second, 2, final_state=other), [])])
    assert _counts(db, run.run_id) == (3, 3, bases + 1)
    assert check_run_chain(store, run.run_id).intact
    assert [t.final_state for t in store.trajectories(run.run_id, second)] == [other] * 2
