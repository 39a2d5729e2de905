"""Commands that only read never create a store and never touch a file that is not one."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from agent_assay.store import Store
from tests.support.invoke import invoke
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run

READERS = [
    ("report", "RUN"),
    ("runs", "list"),
    ("controls", "show", "RUN"),
    ("mutation", "show", "RUN", "--item", "x", "--operator", "y"),
    ("compare", "RUN", "OTHER"),
    ("plan", "--run", "RUN", "--effect", "0.1"),
    ("verify", "RUN"),
    ("run", "--resume", "RUN"),
]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", READERS, ids=[" ".join(c[:2]) for c in READERS])
def test_a_mistyped_path_is_refused_and_not_created(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    typo = tmp_path / "typo.db"
    done = invoke(*command, "--db", str(typo))
    assert done.traceback is None, done.traceback
    assert done.code != 0
    assert done.err.splitlines() == [
        f"error: no store at --db {typo} (commands that read never create one)"]
    assert not typo.exists()


@pytest.mark.parametrize("command", READERS, ids=[" ".join(c[:2]) for c in READERS])
def test_a_foreign_sqlite_file_is_refused_untouched(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    other = tmp_path / "other_app.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('keep me')")
    before = digest(other)
    done = invoke(*command, "--db", str(other))
    assert done.traceback is None, done.traceback
    assert done.code != 0
    assert done.err.splitlines() == [
        f"error: --db {other} is not an agent-assay store (no schema_migrations table); "
        "it was left untouched"]
    assert digest(other) == before
    with sqlite3.connect(other) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    assert names == ["notes"]
    assert not Path(f"{other}-wal").exists()


def test_mutation_show_names_an_unknown_item(store: Store) -> None:
    run = toy_run(store, ToyAdapter(), "good")
    db = str(store.engine.url.database)
    done = invoke("mutation", "show", run.run_id, "--item", "nosuch", "--operator",
                  "drop_tool_call", "--db", db)
    assert done.traceback is None and done.code == 1
    assert done.err.splitlines() == [f"error: unknown item nosuch in run {run.run_id}"]
