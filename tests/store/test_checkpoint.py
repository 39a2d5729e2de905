"""The checkpoint a completed run gets, and the quick check that starts from it.

The quick check must say exactly what the full walk says about an intact run, and must go
red on every edit the full walk would catch, plus the edits a forger makes to look clean
to it (a changed byte the row digests do not cover, a second checkpoint vouching for an
edited row).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_assay.store import Store, open_store
from agent_assay.store.evidence import (
    ChainCheck,
    RawReader,
    check_run,
    check_run_chain,
    covered_stream,
    run_check,
    write_checkpoint,
)
from agent_assay.store.evidence import checkpoint as checkpoints
from agent_assay.store.evidence.checkpoint import CHANGED, KIND
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run

FIELDS = ("findings", "evidence", "blocks", "rows", "paths", "digests", "states")


def _same(a: ChainCheck, b: ChainCheck) -> None:
    for name in FIELDS:
        assert getattr(a, name) == getattr(b, name), name


def _edit(db: Path, trigger: str, statement: str, params: tuple[Any, ...] = ()) -> None:
    """An edit past the database's guards, which are put back afterwards (as a careful
    forger would: the schema check then finds nothing)."""
    con = sqlite3.connect(db)
    (ddl,) = con.execute("SELECT sql FROM sqlite_master WHERE name = ?", (trigger,)).fetchone()
    con.execute(f"DROP TRIGGER {trigger}")
    con.execute(statement, params)
    con.execute(ddl)
    con.commit()
    con.close()


def _kinds(store: Store, run_id: str) -> list[str]:
    return [entry.kind for entry in RawReader(store).ledger(run_id)]


@pytest.fixture
def made(tmp_path: Path) -> tuple[Path, Store, str]:
    db = tmp_path / "assay.db"
    store = open_store(str(db))
    run = toy_run(store, ToyAdapter(), "good", repeats=2)
    return db, store, run.run_id


def _no_full_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("the quick check walked the whole chain")

    monkeypatch.setattr(run_check, "check_run_chain", refuse)


def test_a_completed_run_ends_with_one_checkpoint_and_checks_alike_from_it(
    made: tuple[Path, Store, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, store, run_id = made
    kinds = _kinds(store, run_id)
    assert kinds[-2:] == ["event", KIND] and kinds.count(KIND) == 1
    full = check_run_chain(store, run_id)
    _no_full_walk(monkeypatch)
    quick = check_run(store, run_id)
    assert quick.intact and quick.paths
    _same(full, quick)
    assert len(quick.ledger) == 1  # only the checkpoint was read whole


def test_blocks_after_the_checkpoint_are_walked_in_full(
    made: tuple[Path, Store, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, store, run_id = made
    store.append_event(run_id, "note", {"said": "after the checkpoint"})
    _same(check_run_chain(store, run_id), check_run(store, run_id))
    _edit(db, "run_events_no_update",
          "UPDATE run_events SET detail = '{\"said\":\"edited\"}' WHERE event = 'note'")
    _no_full_walk(monkeypatch)
    found = [f.line() for f in check_run(store, run_id).findings]
    assert any("content does not match its digest" in line for line in found), found


def test_an_edited_covered_row_is_tampered(made: tuple[Path, Store, str]) -> None:
    db, store, run_id = made
    _edit(db, "trajectories_no_update",
          "UPDATE trajectories SET payload = replace(payload, 'false', 'true') "
          "WHERE id = (SELECT min(id) FROM trajectories)")
    quick = check_run(store, run_id)
    assert quick.findings and quick.findings == check_run_chain(store, run_id).findings


def test_a_changed_byte_no_row_digest_covers_is_named_by_the_checkpoint(
    made: tuple[Path, Store, str],
) -> None:
    """A ledger entry's time is stored but not hashed into its block: the full walk cannot
    see it change, the checkpoint's stream can."""
    db, store, run_id = made
    _edit(db, "ledger_no_update", "UPDATE ledger SET at = 'yesterday' WHERE run_id = ? AND seq = 2",
          (run_id,))
    assert check_run_chain(store, run_id).intact
    quick = check_run(store, run_id)
    assert [f.problem for f in quick.findings] == [CHANGED]
    assert quick.findings[0].where.endswith(f"({KIND})")


def test_a_second_checkpoint_cannot_vouch_for_an_edited_row(
    made: tuple[Path, Store, str],
) -> None:
    """A forger edits a row written after the first checkpoint, then appends a checkpoint
    whose stream includes the edit: only the first one is trusted, so the edit is found."""
    db, store, run_id = made
    store.append_event(run_id, "note", {"said": "honest"})
    _edit(db, "run_events_no_update",
          "UPDATE run_events SET detail = '{\"said\":\"forged\"}' WHERE event = 'note'")
    blessed = dataclasses.replace(check_run_chain(store, run_id), findings=())
    store.append_checkpoint(
        run_id,
        lambda conn, head: checkpoints.claim_of(
            dataclasses.replace(blessed, evidence=dataclasses.replace(blessed.evidence, head=head)),
            covered_stream(store, run_id, head.seq, conn),
        ),
    )
    assert _kinds(store, run_id).count(KIND) == 2
    assert not check_run(store, run_id).intact


@pytest.mark.parametrize("table", ["trajectories", "score_sets"])
def test_evidence_rows_after_the_checkpoint_send_the_check_to_the_full_walk(
    made: tuple[Path, Store, str], table: str
) -> None:
    db, store, run_id = made
    last = max(entry.seq for entry in RawReader(store).ledger(run_id))
    _edit(db, f"{table}_no_update", f"UPDATE {table} SET block = ? WHERE id = (SELECT min(id) "
          f"FROM {table})", (last + 5,))
    assert table in checkpoints.EVIDENCE_TABLES
    quick = check_run(store, run_id)
    assert quick.findings and quick.findings == check_run_chain(store, run_id).findings


def test_a_checkpoint_is_written_once_and_covers_the_block_before_it(
    made: tuple[Path, Store, str],
) -> None:
    _, store, run_id = made
    assert write_checkpoint(store, run_id) is None  # it has one already
    assert _kinds(store, run_id).count(KIND) == 1
    first = RawReader(store).first_block(run_id, KIND)
    assert first is not None
    assert json.loads(first.detail)["through"] == first.seq - 1


CHECKS = ["walked", "vouched"]
"""How `write_checkpoint` checks the chain before vouching for it: a store that did not
write the run walks it in full; the store that wrote every block of it holds the stream
read back against what it wrote (`checkpoint._vouched`)."""


def _checking(db: Path, writer: Store, how: str, monkeypatch: pytest.MonkeyPatch,
              after: Any) -> Store:
    """The store that writes the checkpoint, `how` it checks the chain, calling `after`
    right after its check has read the chain (in its snapshot)."""
    if how == "walked":
        real_walk = checkpoints.check_run_chain

        def walk_then(s: Store, rid: str, snapshot: Any = None) -> ChainCheck:
            found = real_walk(s, rid, snapshot)
            after()
            return found

        monkeypatch.setattr(checkpoints, "check_run_chain", walk_then)
        return open_store(str(db))
    real_vouch = checkpoints._vouched

    def vouch_then(*args: Any) -> Any:
        found = real_vouch(*args)
        assert found is not None  # nothing differed from what was written
        after()
        return found

    monkeypatch.setattr(checkpoints, "_vouched", vouch_then)
    return writer


@pytest.mark.parametrize("how", CHECKS)
def test_no_checkpoint_is_written_for_a_run_edited_during_its_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """The check and the stream share a snapshot, and the block goes in on it only if
    nothing was committed since; else the stream is taken again under the write lock. An
    edit made while the check ran (after it read the row) leaves no checkpoint behind."""
    db = tmp_path / "assay.db"
    store = open_store(str(db))
    monkeypatch.setattr("agent_assay.runner.write_checkpoint", lambda *_: None)
    run_id = toy_run(store, ToyAdapter(), "good").run_id
    checking = _checking(db, store, how, monkeypatch, lambda: _edit(
        db, "ledger_no_update", "UPDATE ledger SET at = 'later' WHERE seq = 1"))
    assert write_checkpoint(checking, run_id) is None
    assert RawReader(store).first_block(run_id, KIND) is None


def _streams_taken(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    taken: list[int] = []
    real = checkpoints.covered_stream

    def counted(*args: Any) -> checkpoints.Stream:
        taken.append(1)
        return real(*args)

    monkeypatch.setattr(checkpoints, "covered_stream", counted)
    return taken


TAKEN_AFTER_THE_CHECK = {"walked": 1, "vouched": 0}
"""The streams `covered_stream` takes in the check's snapshot (a vouching check takes its
own as it reads the chain back)."""


@pytest.mark.parametrize("how", CHECKS)
def test_a_quiet_store_appends_the_checkpoint_on_the_walks_own_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    db = tmp_path / "assay.db"
    store = open_store(str(db))
    monkeypatch.setattr("agent_assay.runner.write_checkpoint", lambda *_: None)
    run_id = toy_run(store, ToyAdapter(), "good", repeats=2).run_id
    checking = _checking(db, store, how, monkeypatch, lambda: None)
    taken = _streams_taken(monkeypatch)
    head = write_checkpoint(checking, run_id)
    assert head is not None and store.head(run_id) == head
    assert len(taken) == TAKEN_AFTER_THE_CHECK[how]  # nobody wrote since: no second stream
    monkeypatch.undo()
    _same(check_run(store, run_id), check_run_chain(store, run_id))


@pytest.mark.parametrize("how", CHECKS)
def test_a_write_elsewhere_during_the_walk_still_leaves_a_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Another run written into the same store while the check runs makes SQLite refuse the
    snapshot's write; the stream taken again under the write lock is unchanged, so the
    checkpoint goes in all the same."""
    db = tmp_path / "assay.db"
    store = open_store(str(db))
    monkeypatch.setattr("agent_assay.runner.write_checkpoint", lambda *_: None)
    run_id = toy_run(store, ToyAdapter(), "good", repeats=2).run_id
    neighbour = open_store(str(db))
    checking = _checking(db, store, how, monkeypatch,
                         lambda: toy_run(neighbour, ToyAdapter(), "good"))
    taken = _streams_taken(monkeypatch)
    head = write_checkpoint(checking, run_id)
    assert head is not None and store.head(run_id) == head
    # the snapshot was refused its write: streamed again, unchanged
    assert len(taken) == TAKEN_AFTER_THE_CHECK[how] + 1
    monkeypatch.undo()
    _same(check_run(store, run_id), check_run_chain(store, run_id))


@pytest.mark.parametrize("how", CHECKS)
def test_a_damaged_run_gets_no_checkpoint_that_vouches_for_the_damage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A store that did not write the run walks it, finds the damage and writes no
    checkpoint; the store that wrote it vouches for what it wrote, which the damaged rows
    no longer stream to, so every check from the checkpoint, and verify, name them."""
    from agent_assay.integrity.verify import verify_run

    db = tmp_path / "assay.db"
    store = open_store(str(db))
    monkeypatch.setattr("agent_assay.runner.write_checkpoint", lambda *_: None)
    run_id = toy_run(store, ToyAdapter(), "good").run_id
    _edit(db, "trajectories_no_update", "UPDATE trajectories SET created_at = 'then'")
    checking = _checking(db, store, how, monkeypatch, lambda: None)
    if how == "walked":
        assert write_checkpoint(checking, run_id) is None
        assert RawReader(store).first_block(run_id, KIND) is None
        return
    assert write_checkpoint(checking, run_id) is not None
    monkeypatch.undo()
    for check in (check_run(store, run_id), verify_run(store, run_id, None)):
        named = [f.problem for f in check.findings]
        assert any("does not match its digest" in problem for problem in named), named


@pytest.mark.parametrize(
    "detail",
    [{"through": "all"}, {}, "wrong through"],
)
def test_a_malformed_checkpoint_is_walked_past_and_named_by_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, detail: Any
) -> None:
    """A checkpoint block chained properly but saying nothing usable: the check walks the
    whole chain (which is intact), and verify names the block."""
    from agent_assay.integrity.verify import verify_run

    store = open_store(str(tmp_path / "assay.db"))
    monkeypatch.setattr("agent_assay.runner.write_checkpoint", lambda *_: None)
    run_id = toy_run(store, ToyAdapter(), "good").run_id

    def claim(conn: Any, head: Any) -> Any:
        if detail != "wrong through":
            return detail
        check = check_run_chain(store, run_id)
        made = checkpoints.claim_of(check, covered_stream(store, run_id, head.seq, conn))
        return {**made, "through": head.seq - 1} if made else None

    head = store.append_checkpoint(run_id, claim)
    assert head is not None
    full = check_run_chain(store, run_id)
    assert full.intact
    _same(full, check_run(store, run_id))
    named = [f.line() for f in verify_run(store, run_id, None).findings]
    assert any(line.startswith(f"ledger block {head.seq} ({KIND})") for line in named), named


def test_verify_names_a_checkpoint_whose_rows_changed(made: tuple[Path, Store, str]) -> None:
    from agent_assay.integrity.verify import verify_run

    db, store, run_id = made
    _edit(db, "ledger_no_update", "UPDATE ledger SET at = 'yesterday' WHERE run_id = ? AND seq = 1",
          (run_id,))
    named = [f.problem for f in verify_run(store, run_id, None).findings]
    assert CHANGED in named


EDITS = [
    ("trajectories", "payload = CAST(payload AS BLOB)"),  # the same bytes, stored as a blob
    ("trajectories", "payload = payload || ' '"),
    ("trajectories", "created_at = created_at || 'Z'"),
    ("trajectories", "crashed = 1 - crashed"),
    ("score_sets", "packed_values = CAST(packed_values AS BLOB)"),
    ("score_sets", "details = NULL"),
    ("score_sets", "trajectory_id = (SELECT max(id) FROM trajectories)"),
    ("run_events", "detail = CAST(detail AS BLOB)"),
    ("runs", "seed = seed + 1"),
    ("run_env", "value = value || '.'"),
    ("ledger", "detail = CAST(detail AS BLOB)"),
    ("ledger", "prev_digest = 'f' || substr(prev_digest, 2)"),
]


@pytest.mark.parametrize(("table", "change"), EDITS)
def test_any_change_to_a_covered_value_changes_the_stream(
    made: tuple[Path, Store, str], table: str, change: str
) -> None:
    """Each edit, whatever the row digests make of it, leaves the covered rows streaming to
    another digest than the checkpoint's."""
    db, store, run_id = made
    first = RawReader(store).first_block(run_id, KIND)
    assert first is not None
    recorded = json.loads(first.detail)["stream"]
    assert covered_stream(store, run_id, first.seq - 1).digest == recorded
    _edit(db, f"{table}_no_update", f"UPDATE {table} SET {change} WHERE rowid = "
          f"(SELECT min(rowid) FROM {table} WHERE run_id = ?)", (run_id,))
    assert covered_stream(store, run_id, first.seq - 1).digest != recorded
    assert not check_run(store, run_id).intact
