"""The checkpoint of a run written by the store that checkpoints it (`checkpoint._vouched`):
made from what the store wrote instead of a full walk of what the database holds.

It must vouch for exactly what a walk would (the same claim, byte for byte). A block or row
someone else added since, or an altered base state, sends it to the walk. A covered value
changed since the store wrote it is either found by reading the stream back (when the store
kept only digests of the long texts it wrote) and then walked, or (when it kept their
bytes) left out of what the checkpoint vouches for, so that every later check, and verify,
name the change: planted defects go red either way.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_assay.model import Trajectory
from agent_assay.store import Store, open_store
from agent_assay.store.evidence import (
    RawReader,
    check_run,
    check_run_chain,
    covered_stream,
    write_checkpoint,
)
from agent_assay.store.evidence import checkpoint as checkpoints
from agent_assay.store.evidence.checkpoint import KIND
from agent_assay.store.facade import written
from tests.store.test_checkpoint import EDITS, _edit, _same
from tests.store.test_state_blobs import _world
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run, toy_run

KEPT = ["bytes", "digests"]
"""What the writer kept of the long texts it wrote: their bytes, or (past `HELD_BYTES`)
their digests."""


def _written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str = "good",
             repeats: int = 2, kept: str = "bytes") -> tuple[Path, Store, str]:
    """A run its store wrote, not checkpointed yet."""
    db = tmp_path / "assay.db"
    store = open_store(str(db))
    monkeypatch.setattr("agent_assay.runner.write_checkpoint", lambda *_: None)
    if kept == "digests":
        monkeypatch.setattr(written, "HELD_BYTES", 0)
    run_id = toy_run(store, ToyAdapter(), config, repeats=repeats).run_id
    monkeypatch.undo()
    chain = store.written(run_id)
    assert chain is not None and chain.whole == (kept == "bytes")
    return db, store, run_id


def _claims(store: Store, run_id: str) -> tuple[Any, Any]:
    """What a full walk would claim, and what vouching for the writer's rows claims (None
    when it declines), both in one snapshot."""
    kept = store.written(run_id)
    with store.snapshot() as snapshot:
        walk = check_run_chain(store, run_id, snapshot)
        assert walk.evidence.head is not None
        stream = covered_stream(store, run_id, walk.evidence.head.seq, snapshot)
        walked = None if walk.findings else checkpoints.claim_of(walk, stream)
        vouched = None if kept is None else checkpoints._vouched(store, run_id, kept, snapshot)
    return walked, None if vouched is None else checkpoints.claim_of(*vouched)


@pytest.mark.parametrize("kept", KEPT)
@pytest.mark.parametrize("config", ["good", "crashy", "wrong_arg"])
def test_the_writer_vouches_for_its_run_exactly_as_a_walk_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, kept: str
) -> None:
    _, store, run_id = _written(tmp_path, monkeypatch, config, kept=kept)
    walked, vouched = _claims(store, run_id)
    assert walked is not None and vouched == walked
    head = write_checkpoint(store, run_id)
    assert head is not None
    _same(check_run(store, run_id), check_run_chain(store, run_id))


def test_a_run_with_base_states_is_vouched_for_and_an_altered_base_is_not(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = new_toy_run(store, ToyAdapter(), "good", repeats=3)
    for rep in (1, 2, 3):
        store.write_trajectory(run.run_id, Trajectory(run.item_ids[0], rep,
                                                      final_state=_world(300, changed=rep)), [])
    walked, vouched = _claims(store, run.run_id)
    assert walked is not None and walked["states"] and vouched == walked
    with sqlite3.connect(db) as conn:
        (trigger,) = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND "
                                  "tbl_name = 'state_blobs' AND sql LIKE '%UPDATE%'").fetchone()
    _edit(db, trigger, "UPDATE state_blobs SET payload = REPLACE(payload, 'owner-7', 'owner-8')")
    assert _claims(store, run.run_id) == (None, None)
    assert write_checkpoint(store, run.run_id) is None


UNSEEN = [
    *EDITS,
    ("ledger", "at = 'yesterday'"),  # no digest covers it: the walk alone would vouch
    ("trajectories", "attempt = 2"),  # outside the row digests, in the stream only if not 1
]


@pytest.mark.parametrize(("table", "change"), UNSEEN)
def test_a_value_changed_since_it_was_written_is_not_vouched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, change: str
) -> None:
    """Kept as bytes: the checkpoint vouches for the value written, and the changed one is
    named by every check from it and by verify."""
    from agent_assay.integrity.verify import verify_run

    db, store, run_id = _written(tmp_path, monkeypatch)
    _edit(db, f"{table}_no_update", f"UPDATE {table} SET {change} WHERE rowid = "
          f"(SELECT min(rowid) FROM {table} WHERE run_id = ?)", (run_id,))
    walked, vouched = _claims(store, run_id)
    assert vouched is not None and vouched != walked
    assert write_checkpoint(store, run_id) is not None
    assert not check_run(store, run_id).intact
    assert verify_run(store, run_id, None).findings


@pytest.mark.parametrize(("table", "change"), UNSEEN)
def test_a_value_changed_since_it_was_written_is_found_when_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, change: str
) -> None:
    """Kept as digests: the stream read back differs, and the walk decides as before."""
    db, store, run_id = _written(tmp_path, monkeypatch, kept="digests")
    _edit(db, f"{table}_no_update", f"UPDATE {table} SET {change} WHERE rowid = "
          f"(SELECT min(rowid) FROM {table} WHERE run_id = ?)", (run_id,))
    walked, vouched = _claims(store, run_id)
    assert vouched is None
    if walked is None:  # what the walk finds, it finds as before: no checkpoint
        assert write_checkpoint(store, run_id) is None
    else:  # what it cannot see (a time no digest covers), it vouches for, as before
        assert write_checkpoint(store, run_id) is not None


@pytest.mark.parametrize("kept", KEPT)
@pytest.mark.parametrize("statement", [
    "INSERT INTO run_env (run_id, key, value, affects_results, block, digest) "
    "SELECT run_id, 'extra', '1', 0, block, digest FROM run_env WHERE run_id = ? LIMIT 1",
    "DELETE FROM run_events WHERE run_id = ? AND event = 'complete'",
])
def test_a_row_added_or_gone_since_is_not_vouched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, statement: str, kept: str
) -> None:
    db, store, run_id = _written(tmp_path, monkeypatch, kept=kept)
    _edit(db, "run_events_no_delete", statement, (run_id,))
    walked, vouched = _claims(store, run_id)
    assert vouched is None and walked is None
    assert write_checkpoint(store, run_id) is None


@pytest.mark.parametrize("kept", KEPT)
def test_a_block_another_store_appended_sends_the_checkpoint_to_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: str
) -> None:
    db, store, run_id = _written(tmp_path, monkeypatch, kept=kept)
    open_store(str(db)).append_event(run_id, "note", {"said": "from elsewhere"})
    walked, vouched = _claims(store, run_id)
    assert vouched is None and walked is not None
    assert write_checkpoint(store, run_id) is not None
    first = RawReader(store).first_block(run_id, KIND)
    assert first is not None and first.detail == _checkpoint_text(walked)


def _checkpoint_text(claim: Any) -> str:
    from agent_assay.hashing import canonical_json

    return canonical_json({**claim, "rows": {}})


def test_only_the_store_that_wrote_a_run_from_its_first_block_vouches_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, store, run_id = _written(tmp_path, monkeypatch)
    assert store.written(run_id) is not None
    assert open_store(str(db)).written(run_id) is None  # another process, a resume
    store.append_generation(run_id, "again", [], [])  # an append it does not record
    store.append_event(run_id, "note", {})
    assert store.written(run_id) is None
