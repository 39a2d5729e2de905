"""PostgreSQL stores: `--db postgresql+psycopg://...` in, an engine out, failures in one line.

Only psycopg 3 is used (`postgresql://` means it too); another driver is refused
before anything loads. Every message names the URL with its password masked.

Writers serialise on one transaction-scoped advisory lock per database, taken
when a write transaction begins: the counterpart of SQLite's BEGIN IMMEDIATE.
So claiming a run, storing a suite once, and reading a chain's head then
appending to it keep the guarantees they have on SQLite when many processes on
many machines write one store. Readers take no lock and their transactions are
read-only, so PostgreSQL itself refuses a write from a command that only reads.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from agent_assay.errors import AssayError

WRITE_LOCK = 0x61612D73
"""The advisory lock key writers hold for the length of each transaction ('aa-s')."""
CONNECT_TIMEOUT_S = 10
DRIVERS = ("postgresql", "postgresql+psycopg")


def is_server_url(db: str) -> bool:
    """Whether `--db` names a PostgreSQL database rather than an SQLite file."""
    if "://" not in db:
        return False
    try:
        return make_url(db).get_backend_name() == "postgresql"
    except (ArgumentError, ValueError):
        return False


def masked(db: str) -> str:
    """`db` with any password replaced by ***, whether or not it parses as a URL."""
    try:
        return make_url(db).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", db)


def server_url(db: str) -> URL:
    """The psycopg URL `--db` names, refused in one line when it cannot be a store."""
    try:
        url = make_url(db)
    except (ArgumentError, ValueError) as exc:
        raise AssayError(f"--db {masked(db)} is not a valid database URL: {exc}") from exc
    if url.drivername not in DRIVERS:
        raise AssayError(
            f"--db {masked(db)}: only the psycopg 3 driver is supported; write "
            "postgresql+psycopg://USER@HOST:PORT/DATABASE"
        )
    if not url.database:
        raise AssayError(f"--db {masked(db)} names no database")
    return url.set(drivername="postgresql+psycopg")


def server_engine(db: str, *, read_only: bool) -> Engine:
    """An engine on the database `db` names, after one connection has shown it reachable.
    A missing driver, an unreachable server and refused credentials are each one line."""
    url = server_url(db)
    try:
        import psycopg  # noqa: F401  (only to say which extra is missing)
    except ImportError as exc:
        raise AssayError(
            f"--db {masked(db)}: the PostgreSQL driver is not installed "
            "(pip install 'agent-assay[postgres]')"
        ) from exc
    engine = create_engine(
        url,
        connect_args={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "agent-assay"},
    )
    _tune(engine, read_only)
    try:
        with engine.connect():
            pass
    except DBAPIError as exc:
        engine.dispose()
        raise AssayError(f"--db {masked(db)}: cannot connect: {connect_reason(exc)}") from exc
    return engine


def connect_reason(exc: DBAPIError) -> str:
    """psycopg's reason, one line: the server's FATAL message when there is one."""
    text = str(exc.orig) if exc.orig is not None else str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fatal = next((line for line in lines if "FATAL" in line), None)
    reason = fatal or (lines[0] if lines else type(exc).__name__)
    return re.sub(r"^connection failed:\s*", "", reason)


def _tune(engine: Engine, read_only: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        if read_only:
            dbapi_connection.read_only = True  # psycopg: every transaction READ ONLY

    if read_only:
        return

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
