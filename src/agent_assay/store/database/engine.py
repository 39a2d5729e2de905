"""Turn `--db` (a file path, an sqlite:/// URL or a PostgreSQL URL) into an engine, for
writing or for reading.

`--db` is checked before anything is opened: SQLite files and PostgreSQL databases are
accepted (the two backends whose append-only guards agent-assay creates; PostgreSQL is
`postgres`'s to open), a plain path is a file name taken literally, and each failure is
one line naming `--db`. Writers get WAL, which lets readers and one writer proceed
together; BEGIN IMMEDIATE takes the write lock up front so two processes never deadlock
upgrading a read lock, and the busy timeout makes the second writer wait instead of
failing. Readers get a connection SQLite itself keeps from writing, and leave no file
behind that was not there (`reader_uri`, `release`).
"""

import functools
import os
import sqlite3
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from agent_assay.errors import AssayError
from agent_assay.store.database import postgres

BUSY_TIMEOUT_MS = 30_000


class Access(Enum):
    """What an engine may do to the file; the value is SQLite's URI `mode`."""

    CREATE = "rwc"
    """Writers: create the file when missing, migrate it, switch a new database to WAL."""
    WRITE = "rw"
    """Commands that build on stored runs: the file must exist; its journal mode is kept."""
    READ = "ro"
    """Commands that only read: no write lock, no journal switch, and SQLite refuses writes."""


def store_path(db: str) -> Path:
    """The database file `--db` names, refused in one line when it cannot be one."""
    path = _url_path(db) if "://" in db else _plain_path(db)
    try:
        if not path.parent.is_dir():
            if path.parent.exists():
                raise AssayError(f"--db {db}: {path.parent} is not a directory")
            raise AssayError(f"database directory does not exist: {path.parent} (for --db {db})")
        if path.is_dir():
            raise AssayError(f"--db {db} is a directory, not a database file")
        if path.exists() and not path.is_file():
            raise AssayError(f"--db {db} is not a regular file, so it cannot hold a store")
    except OSError as exc:  # a name longer than the file system allows, a loop of links
        raise AssayError(f"--db {db} cannot be used: {exc.strerror}") from exc
    return path


def _url_path(db: str) -> Path:
    """The file of an sqlite:/// URL. Another database is refused before a driver is
    loaded: without SQLite's triggers its rows would not be append-only."""
    try:
        url = make_url(db)
    except (ArgumentError, ValueError) as exc:
        raise AssayError(f"--db {db} is not a valid database URL: {exc}") from exc
    backend = url.get_backend_name()
    if backend == "postgresql":
        raise AssayError(f"--db {postgres.masked(db)} is a PostgreSQL database, not a file")
    if backend != "sqlite":
        raise AssayError(
            f"--db {db}: agent-assay stores are SQLite files or PostgreSQL databases, "
            f"{backend} is refused (the append-only guards exist for those two only)"
        )
    if url.query:
        raise AssayError(
            f"--db {db}: URL options are not accepted; give the file alone "
            "(commands that only read already open the store read-only)"
        )
    if not url.database or url.database == ":memory:":
        raise AssayError(f"--db {db} names no file (an in-memory store would vanish)")
    return Path(url.database)


def _plain_path(db: str) -> Path:
    """A plain path is a file name: '?' and '#' would start URI options in SQLite."""
    if "?" in db or "#" in db:
        raise AssayError(
            f"--db {db}: a database path may not contain '?' or '#' (SQLite would read what "
            "follows as options); commands that only read already open the store read-only"
        )
    return Path(db)


def shown(db: str) -> str:
    """`--db` as messages may print it: a server URL's password masked."""
    return postgres.masked(db) if postgres.is_server_url(db) else db


def database_url(db: str) -> str:
    """`--db` as a URL: an sqlite:/// one after the checks of `store_path`, or the
    PostgreSQL one with its password masked."""
    if postgres.is_server_url(db):
        return postgres.server_url(db).render_as_string(hide_password=True)
    return URL.create("sqlite", database=str(store_path(db))).render_as_string()


def sqlite_uri(path: Path, mode: str) -> str:
    """An SQLite URI for `path` in `mode` (rwc, rw or ro), every special character quoted."""
    return f"{path.resolve().as_uri()}?mode={mode}"


def read_only_reason(path: Path) -> str | None:
    """Why `path` must not be written, or None. Permission bits count even for root, who
    could write anyway: a store marked read-only stays so."""
    places = (
        (path, "the file is not writable"),
        (path.parent, f"its directory {path.parent} is not writable (SQLite's journal goes there)"),
    )
    return next((reason for place, reason in places if not _writable(place)), None)


def _writable(place: Path) -> bool:
    return not place.exists() or (os.access(place, os.W_OK) and place.stat().st_mode & 0o222 != 0)


def make_engine(db: str, access: Access = Access.CREATE) -> Engine:
    """An engine on the file `--db` names. A writer is refused a read-only file in one line
    before any work, even when all it would write is stored already (a suite is content-
    addressed): whether it succeeds must not depend on what the store happens to hold. A
    command that builds on stored runs opens a read-only file read-only, and fails in one
    line only if it then writes."""
    if postgres.is_server_url(db):
        return postgres.server_engine(db, read_only=access is Access.READ)
    path = store_path(db)
    blocked = read_only_reason(path)
    if blocked and access is Access.CREATE:
        raise AssayError(f"--db {db} is read-only: {blocked}")
    if access is Access.READ:
        blocked = "it was opened by a command that only reads"
    tidy = False
    if blocked:
        tidy = not _sides(path)
        uri, access = reader_uri(path), Access.READ
    else:
        uri = sqlite_uri(path, access.value)
    connect = functools.partial(sqlite3.connect, uri, uri=True, check_same_thread=False)
    engine = create_engine(URL.create("sqlite", database=str(path)), creator=connect)
    _tune_sqlite(engine, access, db, blocked)
    if tidy and "immutable=1" not in uri:
        _TIDY[engine] = path
    return engine


def reader_uri(path: Path) -> str:
    """Read-only. A WAL database needs its -shm and -wal files, which a read-only connection
    creates when missing. Where no writer can be at work without them (the file or its
    directory is not writable: a writer would need both) the file is read as immutable,
    which creates nothing and takes no lock. Anywhere else a writer may start while the file
    is read, and an immutable reader would not see it checkpoint pages under its feet; so
    the read is an ordinary read-only one, and `release` removes what it created."""
    uri = sqlite_uri(path, Access.READ.value)
    if read_only_reason(path) and not _sides(path):
        uri += "&immutable=1"
    return uri


def _sides(path: Path) -> bool:
    """Whether a WAL side file (-wal, -shm) lies beside `path`."""
    return any(Path(f"{path}{side}").exists() for side in ("-wal", "-shm"))


_TIDY: weakref.WeakKeyDictionary[Engine, Path] = weakref.WeakKeyDictionary()
"""Reader engines opened on a store without side files: `release` removes those they made."""


def release(engine: Engine) -> None:
    """Close `engine`'s connections; a reader leaves behind no side file it created."""
    engine.dispose()
    path = _TIDY.pop(engine, None)
    if path is not None:
        remove_sides(path)


def remove_sides(path: Path) -> None:
    """Remove the -wal and -shm a read-only connection created beside a WAL store that had
    none, the way SQLite itself does when the last connection closes: a connection that may
    write, opened and closed, checkpoints and deletes them, but only when it is the last one
    (it takes the exclusive lock a reader or writer still at work holds it out of) and its
    WAL holds no frame, so nothing is written to the database file. When another connection
    is open, a writer's frames arrived meanwhile, or the file cannot be written, they stay
    (they hold no data the store lacks, and the next writer takes them over)."""
    wal = Path(f"{path}-wal")
    try:
        if not wal.exists() or wal.stat().st_size:
            return
        conn = sqlite3.connect(sqlite_uri(path, Access.WRITE.value), uri=True, timeout=0)
        try:
            conn.execute("PRAGMA query_only = ON")
            conn.execute("PRAGMA schema_version").fetchone()  # the header page: joins the WAL
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return


@contextmanager
def read_only_sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    """A raw read-only connection to `path`, for checks below SQLAlchemy, that leaves no
    side file behind it did not find."""
    had_sides = _sides(path)
    uri = reader_uri(path)
    conn = sqlite3.connect(uri, uri=True)
    try:
        yield conn
    finally:
        conn.close()
        if not had_sides and "immutable=1" not in uri:
            remove_sides(path)


def _tune_sqlite(engine: Engine, access: Access, db: str, reason: str | None) -> None:
    """Per connection: the busy timeout, WAL for a new store, query_only for a reader; per
    transaction: the write lock up front, except for a reader; a write SQLite refuses as
    read-only becomes one line with `reason` (SQLite's own when there is none)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # switching the journal mode needs an exclusive lock; ask only when it is not WAL yet,
        # so a second process opening a busy database never contends for that lock
        if access is Access.CREATE and _journal_mode(cursor) != "wal":
            _switch_to_wal(cursor)
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        if access is Access.READ:
            cursor.execute("PRAGMA query_only = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN" if access is Access.READ else "BEGIN IMMEDIATE")

    @event.listens_for(engine, "handle_error")
    def _on_error(context: Any) -> None:
        code = getattr(context.original_exception, "sqlite_errorcode", 0)
        if code & 0xFF == sqlite3.SQLITE_READONLY:
            error = context.original_exception
            raise AssayError(f"--db {db} is read-only: {reason or error}") from error


def _journal_mode(cursor: Any) -> str:
    return str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower()


WAL_ATTEMPTS = 100
WAL_RETRY_S = 0.05


def _switch_to_wal(cursor: Any) -> None:
    """Switch a new database to WAL, waiting out another process that is creating it too.

    The switch needs an exclusive lock and SQLite can refuse it at once, busy timeout or
    not, while a second process runs the first migration; a bounded retry absorbs that.
    """
    for attempt in range(WAL_ATTEMPTS):
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == WAL_ATTEMPTS - 1:
                raise
            time.sleep(WAL_RETRY_S)
