"""What `--db` may name: an SQLite file, given as a path or an sqlite:/// URL, and nothing else.

Every refusal is one line naming `--db`, with no traceback and nothing written: another
database's URL, a malformed URL, a name too long, a path SQLite would read as URI options,
a file that is not a regular one or not an agent-assay store, and a read-only store given
to a command that writes (commands that only read work on it).
"""

from __future__ import annotations

import gc
import hashlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.invoke import Invocation, invoke

WRITERS = [("suite", "build", "--adapter", "banking"), ("migrate",)]
READERS = [("runs", "list"), ("report", "RUN"), ("verify", "RUN")]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(done: Invocation) -> str:
    """The single error line of a refused command."""
    assert done.traceback is None, done.traceback
    assert done.code != 0
    lines = done.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.err
    return lines[0]


@pytest.mark.parametrize("command", WRITERS + READERS, ids=" ".join)
@pytest.mark.parametrize(
    "url, refusal",
    [
        ("mysql://u@h/db", "agent-assay stores are SQLite files or PostgreSQL databases, "
                           "mysql is refused"),
        ("postgresql+psycopg2://u:pw@h/d", "only the psycopg 3 driver is supported"),
    ],
)
def test_another_database_or_driver_is_refused_before_a_driver_loads(
    command: tuple[str, ...], url: str, refusal: str
) -> None:
    line = one_line(invoke(*command, "--db", url))
    assert line.startswith(f"error: --db {url.replace(':pw@', ':***@')}: {refusal}")


def test_a_malformed_url_is_one_line() -> None:
    line = one_line(invoke("suite", "build", "--adapter", "banking", "--db", "://nowhere"))
    assert line.startswith("error: --db ://nowhere is not a valid database URL")


def test_an_sqlite_url_gets_the_checks_of_a_path(tmp_path: Path) -> None:
    missing = one_line(invoke("suite", "build", "--adapter", "banking", "--db",
                              f"sqlite:///{tmp_path}/nodir/a.db"))
    assert f"database directory does not exist: {tmp_path}/nodir" in missing
    folder = one_line(invoke("runs", "list", "--db", f"sqlite:///{tmp_path}"))
    assert folder.endswith("is a directory, not a database file")
    options = one_line(invoke("runs", "list", "--db", f"sqlite:///{tmp_path}/a.db?mode=ro"))
    assert "URL options are not accepted" in options
    memory = one_line(invoke("runs", "list", "--db", "sqlite://"))
    assert memory == "error: --db sqlite:// names no file (an in-memory store would vanish)"
    assert list(tmp_path.iterdir()) == []
    url = f"sqlite:///{tmp_path}/a.db"
    assert invoke("suite", "build", "--adapter", "banking", "--db", url).code == 0
    listed = invoke("runs", "list", "--db", url)
    assert (listed.code, listed.err, listed.traceback) == (0, "", None)


def test_a_name_too_long_is_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / ("a" * 300))
    for command in WRITERS + READERS:
        line = one_line(invoke(*command, "--db", db))
        assert line == f"error: --db {db} cannot be used: File name too long"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["q?mode=ro", "q#x"])
def test_uri_characters_in_a_path_are_refused(tmp_path: Path, name: str) -> None:
    db = str(tmp_path / name)
    for command in WRITERS + READERS:
        line = one_line(invoke(*command, "--db", db))
        assert line.startswith(f"error: --db {db}: a database path may not contain '?' or '#'")
        assert line.endswith("commands that only read already open the store read-only")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", WRITERS + READERS, ids=" ".join)
def test_a_device_is_not_a_store(command: tuple[str, ...]) -> None:
    line = one_line(invoke(*command, "--db", "/dev/null"))
    assert line == "error: --db /dev/null is not a regular file, so it cannot hold a store"


def _make(path: Path, *statements: str) -> Path:
    with sqlite3.connect(path) as conn:
        for sql in statements:
            conn.execute(sql)
    return path


FOREIGN = {
    "no schema_migrations table": ("CREATE TABLE notes (body TEXT)",),
    "its schema_migrations table is not agent-assay's": (
        "CREATE TABLE schema_migrations (version INTEGER)",
        "INSERT INTO schema_migrations VALUES (1)",
    ),
    "its schema_migrations table records no agent-assay migration": (
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
        "description TEXT NOT NULL, applied_at TEXT NOT NULL)",
    ),
}


@pytest.mark.parametrize("command", WRITERS + READERS, ids=" ".join)
@pytest.mark.parametrize("why", FOREIGN)
def test_a_foreign_database_is_refused_untouched(
    tmp_path: Path, command: tuple[str, ...], why: str
) -> None:
    db = _make(tmp_path / "other.db", *FOREIGN[why])
    before = digest(db)
    line = one_line(invoke(*command, "--db", str(db)))
    assert line == f"error: --db {db} is not an agent-assay store ({why}); it was left untouched"
    assert digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


@pytest.mark.parametrize("command", WRITERS + READERS, ids=" ".join)
def test_a_file_that_is_not_a_database_is_left_byte_for_byte(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    db = tmp_path / "file.json"
    db.write_text('{"not": "a database"}\n')
    line = one_line(invoke(*command, "--db", str(db)))
    assert line == f"error: --db {db} is not an agent-assay SQLite database: file is not a database"
    assert db.read_text() == '{"not": "a database"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.json"]


def close_cleanly(db: Path) -> None:
    """Close every connection this process holds on `db`, then let a last writable one
    checkpoint the WAL and remove its side files, as a store is left after its writer ends."""
    gc.collect()
    conn = sqlite3.connect(db)
    conn.execute("SELECT count(*) FROM sqlite_master")  # opens the WAL, so closing folds it
    conn.close()
    assert not Path(f"{db}-wal").exists()


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A closed store holding a complete banking run of two items: (path, run id)."""
    db = tmp_path / "assay.db"
    made = invoke("run", "--adapter", "banking", "--config", "mock", "--limit", "2",
                  "--db", str(db))
    assert made.code == 0, made.err
    close_cleanly(db)
    yield db, made.out.split()[-1]
    for path in (tmp_path, *tmp_path.iterdir()):
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


def _read_only(db: Path, where: str) -> str:
    """Make the store read-only (the file, or its directory); the reason writers are given."""
    if where == "file":
        db.chmod(0o444)
        return "the file is not writable"
    db.parent.chmod(0o555)
    return f"its directory {db.parent} is not writable (SQLite's journal goes there)"


@pytest.mark.parametrize("where", ["file", "directory"])
def test_a_read_only_store_refuses_writers_and_serves_readers(
    stored: tuple[Path, str], where: str
) -> None:
    db, run_id = stored
    readers = [
        [*(run_id if word == "RUN" else word for word in command), "--db", str(db)]
        for command in READERS
    ]
    expected = [invoke(*command) for command in readers]
    close_cleanly(db)  # the readers' connections leave the WAL side files (they are ro)
    before = digest(db)
    reason = _read_only(db, where)
    # a writer is refused before any work, even when all it would write is stored already
    # (the suite is content-addressed): the answer must not depend on what the store holds
    writers = [*WRITERS, ("run", "--adapter", "banking", "--config", "mock", "--limit", "1"),
               ("run", "--resume", run_id)]
    for command in writers:
        line = one_line(invoke(*command, "--db", str(db)))
        assert line == f"error: --db {db} is read-only: {reason}", command
    for command, baseline in zip(readers, expected, strict=True):
        assert invoke(*command) == baseline, command
    assert digest(db) == before
    if where == "directory":  # read as immutable: nothing can be created beside it
        assert sorted(p.name for p in db.parent.iterdir()) == [db.name]


def test_writers_still_create_and_use_a_store(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    assert invoke("suite", "build", "--adapter", "banking", "--db", str(db)).code == 0
    assert invoke("migrate", "--db", str(db)).out.startswith("schema already at version")
    assert os.access(db, os.W_OK)
