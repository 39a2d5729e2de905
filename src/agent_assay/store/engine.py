"""Turn `--db` (a path or an SQLAlchemy URL) into an engine tuned for many writers.

WAL lets readers and one writer proceed together; BEGIN IMMEDIATE takes the
write lock up front so two processes never deadlock upgrading a read lock, and
the busy timeout makes the second writer wait instead of failing.
"""

import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event

from agent_assay.errors import AssayError

BUSY_TIMEOUT_MS = 30_000


def database_url(db: str) -> str:
    """Accept a URL as is; treat anything else as a file path whose directory must exist."""
    if "://" in db:
        return db
    path = Path(db)
    if not path.parent.exists():
        raise AssayError(f"database directory does not exist: {path.parent} (for --db {db})")
    if path.is_dir():
        raise AssayError(f"--db {db} is a directory, not a database file")
    return f"sqlite:///{path}"


def make_engine(db: str) -> Engine:
    url = database_url(db)
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        _tune_sqlite(engine)
    return engine


def _tune_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # switching the journal mode needs an exclusive lock; ask only when it is not WAL yet,
        # so a second process opening a busy database never contends for that lock
        if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            _switch_to_wal(cursor)
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


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
