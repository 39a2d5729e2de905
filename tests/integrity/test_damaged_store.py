"""A store damaged below the SQL level, or holding rows that do not decode, is one line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent_assay.store import open_store
from tests.support.invoke import invoke
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run


def toy_store(tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "assay.db"
    store = open_store(str(db))
    run = toy_run(store, ToyAdapter(), "good", repeats=2)
    store.close()
    return db, run.run_id


def test_a_damaged_index_page_is_one_line_naming_the_index(tmp_path: Path) -> None:
    db, run_id = toy_store(tmp_path)
    con = sqlite3.connect(db)
    (page_size,) = con.execute("PRAGMA page_size").fetchone()
    (root,) = con.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'ux_scores_slot'").fetchone()
    con.close()
    data = bytearray(db.read_bytes())
    data[(root - 1) * page_size] = 0xFF  # no b-tree page has this type
    db.write_bytes(bytes(data))
    # runs list reads no score, yet the file fails SQLite's quick_check: it is refused too
    for args in (("runs", "list"), ("report", run_id), ("verify", run_id)):
        result = invoke(*args, "--db", str(db))
        assert result.traceback is None, result.traceback
        assert result.code == 2, (args, result.out, result.err)
        if args[0] == "verify":
            assert "FINDING database: index ux_scores_slot (" in result.out
            continue
        lines = result.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: the store at {db} is damaged")
        assert "ux_scores_slot" in lines[0], lines[0]


def test_a_row_that_does_not_decode_is_named(tmp_path: Path) -> None:
    db, run_id = toy_store(tmp_path)
    con = sqlite3.connect(db)
    with con:
        con.execute("DROP TRIGGER run_env_no_update")
        con.execute("UPDATE run_env SET value = '{not json' WHERE key = 'world'")
    con.close()
    result = invoke("runs", "list", "--db", str(db))
    assert result.code == 2 and result.traceback is None
    assert result.err.strip() == (
        f"error: run_env row {run_id}/world: stored JSON does not decode "
        "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"
    )


def test_text_that_is_not_utf8_late_in_a_run_is_named_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows are read the fast way until one does not decode; the read then starts over with
    tolerant decoding where it stopped, so the damaged row (the last one read, batches of
    two rows: several were handed out before it) is the one finding, and no row is missed
    or counted twice."""
    from agent_assay.store import open_existing_store
    from agent_assay.store.database import reads
    from agent_assay.store.evidence import check_run_chain

    monkeypatch.setattr(reads, "STREAM_BATCH", 2)

    db, run_id = toy_store(tmp_path)
    con = sqlite3.connect(db)
    (total,) = con.execute("SELECT COUNT(*) FROM trajectories WHERE run_id = ?",
                           (run_id,)).fetchone()
    (last,) = con.execute("SELECT id FROM trajectories WHERE run_id = ? ORDER BY item_id DESC, "
                          "repetition DESC LIMIT 1", (run_id,)).fetchone()
    with con:
        con.execute("DROP TRIGGER trajectories_no_update")
        con.execute("UPDATE trajectories SET created_at = CAST(X'FF2D31' AS TEXT) "
                    "WHERE id = ?", (last,))
    con.close()
    store = open_existing_store(str(db))
    check = check_run_chain(store, run_id)
    store.close()
    assert [f.line() for f in check.findings] == [
        f"trajectories row {last} ({_slot(db, last)}): content does not match its "
        "digest (changed after it was written)"]
    assert check.evidence.trajectories.n == total and check.rows > total


def _slot(db: Path, row_id: int) -> str:
    con = sqlite3.connect(db)
    item, rep = con.execute("SELECT item_id, repetition FROM trajectories WHERE id = ?",
                            (row_id,)).fetchone()
    con.close()
    return f"{item}/{rep}"


def test_a_store_that_fails_quick_check_is_refused_by_every_reader(tmp_path: Path) -> None:
    """The header says five pages are free, the free list holds none: no row any command
    reads is touched, so report printed its figures and exited 0 on a file SQLite itself
    says is damaged. Every reader now refuses it in one line naming the damage (verify
    lists it as a finding), and the file is left as it was."""
    db, run_id = toy_store(tmp_path)
    data = bytearray(db.read_bytes())
    data[36:40] = (5).to_bytes(4, "big")  # the header's count of free pages
    db.write_bytes(bytes(data))
    for args in (("report", run_id), ("runs", "list"), ("compare", run_id, run_id),
                 ("runs", "show", run_id), ("export", run_id, str(tmp_path / "b.jsonl"))):
        done = invoke(*args, "--db", str(db))
        assert done.traceback is None, done.traceback
        assert done.code == 2 and done.out == "", (args, done.out)
        assert done.err.splitlines() == [
            f"error: the store at {db} is damaged: Main freelist: size is 0 but should be 5 "
            f"(SQLite's quick_check; `agent-assay verify --db {db}` lists what it can)"], args
    verify = invoke("verify", run_id, "--skip-rescore", "--db", str(db))
    assert verify.code == 2 and "FINDING database: " in verify.out, verify.out
    assert "Main freelist: size is 0 but should be 5" in verify.out
    assert db.read_bytes() == data and not (tmp_path / "b.jsonl").exists()
