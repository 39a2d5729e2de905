"""Commands that only read never create a store, never touch a file that is not one, and
never write to the store they read: no byte, no journal switch, no migration."""

from __future__ import annotations

import gc
import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from agent_assay.store import Store
from agent_assay.store.database import migrations
from tests.support.invoke import invoke
from tests.support.legacy import copy_as_version, schema_version
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
    ("runs", "show", "RUN"),
    ("trajectories", "show", "RUN", "x"),
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


# ---- reading never writes: not a byte, not a journal switch, not a migration -------------
ONLY_READING = [
    ("report", "RUN"),
    ("runs", "list"),
    ("controls", "show", "RUN"),
    ("mutation", "score", "RUN"),
    ("mutation", "show", "RUN", "--item", "x", "--operator", "y"),
    ("compare", "RUN", "RUN"),
    ("plan", "--run", "RUN", "--effect", "0.1"),
    ("verify", "RUN"),
    ("export", "RUN", "BUNDLE"),
    ("runs", "show", "RUN"),
    ("trajectories", "show", "RUN", "x"),
]
SIDE_FILES = ("-wal", "-shm", "-journal")


@pytest.fixture(scope="module")
def banking_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A cleanly closed WAL store with a complete banking run of two items: (path, run id)."""
    db = tmp_path_factory.mktemp("banking") / "assay.db"
    made = invoke("run", "--adapter", "banking", "--config", "mock", "--limit", "2",
                  "--db", str(db))
    assert made.code == 0, made.err
    fold_wal(db)
    return db, made.out.split()[-1]


def fold_wal(db: Path) -> None:
    """Close this process's connections to `db`; a last writable one folds the WAL back
    into the file and removes the side files, as a store is left when its writer ends."""
    gc.collect()
    conn = sqlite3.connect(db)
    conn.execute("SELECT count(*) FROM sqlite_master")
    conn.close()


def copy_store(banking_db: tuple[Path, str], directory: Path) -> Path:
    directory.mkdir()
    db = directory / "assay.db"
    shutil.copyfile(banking_db[0], db)
    return db


def reading(command: tuple[str, ...], run_id: str, db: Path, out: Path) -> list[str]:
    words = {"RUN": run_id, "BUNDLE": str(out / "bundle.jsonl")}
    return [*(words.get(word, word) for word in command), "--db", str(db)]


def state(db: Path) -> tuple[str, int, list[str]]:
    """The file's bytes and mtime, and what lies beside it."""
    return digest(db), db.stat().st_mtime_ns, sorted(p.name for p in db.parent.iterdir())


@pytest.mark.parametrize("command", ONLY_READING, ids=[" ".join(c[:2]) for c in ONLY_READING])
def test_a_reader_leaves_a_rollback_journal_store_exactly_as_it_was(
    banking_db: tuple[Path, str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A store in rollback-journal mode: no reader switches it to WAL, writes a byte, moves
    its mtime or leaves a file beside it."""
    db = copy_store(banking_db, tmp_path / "store")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
    read_leaving_it_as_it_was(db, banking_db[1], command, tmp_path)
    assert not any(Path(f"{db}{side}").exists() for side in SIDE_FILES)


@pytest.mark.parametrize("command", ONLY_READING, ids=[" ".join(c[:2]) for c in ONLY_READING])
def test_a_reader_works_on_a_read_only_wal_store(
    banking_db: tuple[Path, str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Same answer from a read-only file as from the writable one, and the file's bytes and
    mtime unchanged. A reader opened read-only by SQLite may leave the WAL's -wal and -shm
    side files it needed to read alongside a writer (it cannot remove them: that is a
    checkpoint, a write); they hold no data, and the next writer takes them over."""
    db = copy_store(banking_db, tmp_path / "store")
    (tmp_path / "out").mkdir()
    args = reading(command, banking_db[1], db, tmp_path / "out")
    expected = invoke(*args)
    fold_wal(db)
    before = state(db)
    db.chmod(0o444)
    try:
        assert invoke(*args) == expected
        gc.collect()
        assert state(db) == before  # no writer can be at work: read as immutable, no side file
    finally:
        db.chmod(0o644)


@pytest.mark.parametrize("command", ONLY_READING, ids=[" ".join(c[:2]) for c in ONLY_READING])
def test_a_reader_leaves_no_side_file_beside_a_writable_wal_store(
    banking_db: tuple[Path, str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A WAL store its last writer closed has no -wal or -shm. A read-only connection
    creates both (it reads through the WAL index) and cannot remove them; immutable would
    create none, but a writer may start while the store is read. So the read is an ordinary
    read-only one, and the side files it created are removed once it is done, as the last
    connection would: the directory is left as it was, and the file's bytes and mtime."""
    db = copy_store(banking_db, tmp_path / "store")
    read_leaving_it_as_it_was(db, banking_db[1], command, tmp_path)


def read_leaving_it_as_it_was(db: Path, run_id: str, command: tuple[str, ...],
                              tmp_path: Path) -> None:
    """Run `command` on `db`; the file, its mtime and its directory are as they were."""
    (tmp_path / "out").mkdir()
    before = state(db)
    done = invoke(*reading(command, run_id, db, tmp_path / "out"))
    assert done.traceback is None, done.traceback
    gc.collect()
    assert state(db) == before


def test_readers_do_not_wait_for_a_live_writer(
    banking_db: tuple[Path, str], tmp_path: Path
) -> None:
    """A writer in the middle of a transaction (held by this thread, so it cannot end while
    a command runs): commands that open the store read-only still print what they printed
    before, where waiting for the lock would end in "database is locked", and change
    nothing."""
    db = copy_store(banking_db, tmp_path / "store")
    run_id = banking_db[1]
    commands = [("runs", "list"), ("verify", run_id, "--skip-rescore")]
    expected = [invoke(*command, "--db", str(db)) for command in commands]
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("CREATE TABLE scratch (x)")
    before = digest(db)
    try:
        for command, baseline in zip(commands, expected, strict=True):
            assert invoke(*command, "--db", str(db)) == baseline
        assert digest(db) == before
        assert all(Path(f"{db}{side}").exists() for side in ("-wal", "-shm"))  # the writer's
    finally:
        writer.execute("ROLLBACK")
        writer.close()


@pytest.mark.parametrize("command", [("report", "RUN"), ("runs", "list"), ("verify", "RUN")],
                         ids=["report", "runs list", "verify"])
def test_a_reader_never_migrates(
    banking_db: tuple[Path, str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    old = tmp_path / "old.db"
    copy_as_version(banking_db[0], old, 2)
    before = digest(old)
    done = invoke(*reading(command, banking_db[1], old, tmp_path))
    assert done.traceback is None and done.code != 0
    assert done.err.splitlines() == [
        f"error: database {old} has schema version 2, this agent-assay needs {migrations.LATEST}: "
        f"run `agent-assay migrate --db {old}`"]
    gc.collect()
    assert digest(old) == before
    assert schema_version(old) == 2


@pytest.mark.parametrize("made", ["missing", "empty"])
def test_migrate_never_creates_a_store(tmp_path: Path, made: str) -> None:
    """migrate upgrades a store; on a mistyped --db it used to create a new, empty one."""
    db = tmp_path / "typo.db"
    if made == "empty":
        db.touch()
    done = invoke("migrate", "--db", str(db))
    assert done.traceback is None and done.code == 1
    assert done.err.splitlines() == [
        f"error: no store at --db {db} to migrate: migrate upgrades an existing store and "
        "never creates one"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ([db.name] if made == "empty" else [])
    assert made == "missing" or db.stat().st_size == 0
