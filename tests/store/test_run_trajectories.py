"""A run's trajectories walked an item at a time: the same trajectories on every walk, a
small run kept after its first walk, a large one read again each time, and a reader that
holds a bounded number of base states (re-checking one it had let go)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_assay.hashing import canonical_json
from agent_assay.model import Run, Trajectory
from agent_assay.store import RunTrajectories, SharedStates, Store, open_store
from agent_assay.store.database import BaseStates
from agent_assay.store.facade import run_trajectories as module
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run


def _world(n: int, tag: str, changed: int = 0) -> dict[str, Any]:
    """A state well above the inline size, so it is stored as a base and edits from it."""
    return {"records": {f"r{i:04d}": {"owner": f"{tag}-{i}", "balance": i if i != changed else -1}
                        for i in range(n)}}


def _filled_run(store: Store) -> Run:
    run = new_toy_run(store, ToyAdapter(), "good", repeats=3)
    for item in run.item_ids:
        for rep in (1, 2, 3):
            store.write_trajectory(
                run.run_id, Trajectory(item, rep, final_state=_world(200, item, rep)), [])
    return run


def _as_json(walk: Any) -> list[str]:
    return [canonical_json(t.to_json()) for t in walk]


class _Counting:
    """Counts the store reads a walk makes."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads = 0
        real = store.trajectories_by_item

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.reads += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(store, "trajectories_by_item", counted)


def test_every_walk_gives_the_stored_trajectories_item_by_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(str(tmp_path / "s.db"))
    run = _filled_run(store)
    expected = _as_json(store.trajectories(run.run_id))
    monkeypatch.setattr(module, "HELD_TRAJECTORIES", 0)  # every walk reads the store
    counting = _Counting(store, monkeypatch)
    walked = RunTrajectories(store, run.run_id)
    assert len(walked) == len(expected) == 3 * len(run.item_ids)
    groups = list(walked.by_item())
    assert [item for item, _ in groups] == sorted(run.item_ids)
    assert all([t.repetition for t in group] == [1, 2, 3] and {t.item_id for t in group} == {item}
               for item, group in groups)
    first = next(iter(walked))
    first.final_state["records"]["r0000"]["owner"] = "changed by a caller"
    assert _as_json(walked) == expected  # read again: the caller's change is not in it
    assert counting.reads == 3


def test_a_small_run_is_kept_after_its_first_complete_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(str(tmp_path / "s.db"))
    run = _filled_run(store)
    counting = _Counting(store, monkeypatch)
    walked = RunTrajectories(store, run.run_id)
    next(iter(walked))  # an abandoned walk keeps nothing
    assert counting.reads == 1
    first = _as_json(walked)
    assert _as_json(walked) == first == _as_json(store.trajectories(run.run_id))
    assert counting.reads == 3  # the abandoned walk, the first complete one, the direct read


def test_a_bounded_reader_lets_go_of_old_bases_and_checks_one_again_when_it_returns(
    tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    _filled_run(store)
    with sqlite3.connect(db) as conn:
        digests = [d for (d,) in conn.execute("SELECT digest FROM state_blobs ORDER BY digest")]
    assert len(digests) >= 3
    bases = BaseStates(store.engine, keep=1)
    for digest in digests:
        bases.load([digest])
        bases.fresh(digest)
        assert len(bases._texts) <= 2 and len(bases._pickled) <= 2  # kept one, plus the asked
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER IF EXISTS state_blobs_no_update")
        conn.execute("UPDATE state_blobs SET payload = replace(payload, 'r0001', 'r9999') "
                     "WHERE digest = ?", (digests[0],))
    bases.load([digests[0]])
    with pytest.raises(ValueError, match="does not match its digest"):
        bases.text(digests[0])
    unbounded = BaseStates(store.engine)
    unbounded.load(digests)
    assert len(unbounded._texts) == len(digests)


def test_a_walk_on_shared_bases_gives_the_same_trajectories_sharing_what_no_edit_touched(
    tmp_path: Path,
) -> None:
    store = open_store(str(tmp_path / "s.db"))
    run = _filled_run(store)
    shared = RunTrajectories(store, run.run_id, SharedStates(store).by_item)
    assert _as_json(shared) == _as_json(store.trajectories(run.run_id))
    group = next(shared.by_item())[1]
    records = [t.final_state["records"] for t in group]  # type: ignore[index]
    # each repetition edited one record of one base: every other record is the same object
    assert records[0]["r0100"] is records[1]["r0100"] is records[2]["r0100"]
