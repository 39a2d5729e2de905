"""Which schema version a store holds, read without changing anything, and the refusals
of a database that is not an agent-assay store or needs `migrate`."""

from __future__ import annotations

from sqlalchemy import Connection, inspect, select
from sqlalchemy.exc import DatabaseError

from agent_assay.errors import AssayError
from agent_assay.store.database import migrations, schema
from agent_assay.store.database.engine import Access, make_engine, release, shown, store_path
from agent_assay.store.database.postgres import is_server_url


def stored_version(db: str) -> int:
    """The schema version of the store at `db`: 0 for no file, an empty one or a database
    without tables. It is read through a read-only engine; a database that holds other
    tables, a schema_migrations table that is not agent-assay's, or a newer schema is
    refused in one line."""
    if not is_server_url(db):
        path = store_path(db)
        if not path.exists() or path.stat().st_size == 0:
            return 0
    engine = make_engine(db, Access.READ)
    try:
        with engine.connect() as conn:
            have = migrations_record(conn, db)
    except DatabaseError as exc:
        kind = "PostgreSQL" if is_server_url(db) else "SQLite"
        raise AssayError(
            f"--db {shown(db)} is not an agent-assay {kind} database: {exc.orig}"
        ) from exc
    finally:
        release(engine)
    if have > migrations.LATEST:
        raise AssayError(
            f"database {shown(db)} has schema version {have}, newer than this agent-assay "
            f"({migrations.LATEST}); upgrade agent-assay"
        )
    return have


def migrations_record(conn: Connection, db: str) -> int:
    """The highest version agent-assay's schema_migrations table records (0: no tables)."""
    tables = inspect(conn).get_table_names()
    if "schema_migrations" not in tables:
        if tables:
            raise not_a_store(db, "no schema_migrations table")
        return 0
    columns = {c["name"] for c in inspect(conn).get_columns("schema_migrations")}
    if columns != set(schema.schema_migrations.c.keys()):
        raise not_a_store(db, "its schema_migrations table is not agent-assay's")
    versions = conn.execute(select(schema.schema_migrations.c.version)).scalars().all()
    if not versions or not all(isinstance(v, int) for v in versions):
        raise not_a_store(db, "its schema_migrations table records no agent-assay migration")
    return int(max(versions))


def not_a_store(db: str, why: str) -> AssayError:
    return AssayError(
        f"--db {shown(db)} is not an agent-assay store ({why}); it was left untouched"
    )


def needs_migration(db: str, have: int) -> AssayError:
    return AssayError(
        f"database {shown(db)} has schema version {have}, this agent-assay needs "
        f"{migrations.LATEST}: run `agent-assay migrate --db {shown(db)}`"
    )
