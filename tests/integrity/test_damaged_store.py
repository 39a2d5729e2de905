"""A store damaged below the SQL level, or holding rows that do not decode, is one line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

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
    assert invoke("runs", "list", "--db", str(db)).code == 0  # it reads no score
    for args in (("report", run_id), ("verify", run_id)):
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
