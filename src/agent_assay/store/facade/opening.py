"""Opening a store: for writing (creating or migrating it) or, one that must exist, for
reading; what is there is looked at read-only first."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from agent_assay.errors import AssayError
from agent_assay.store.database import migrations
from agent_assay.store.database.damage import quick_check
from agent_assay.store.database.engine import Access, make_engine, shown, store_path
from agent_assay.store.database.postgres import connect_reason, is_server_url
from agent_assay.store.database.version import needs_migration, not_a_store, stored_version
from agent_assay.store.facade.store import Store


def open_store(db: str, *, migrate: bool = False) -> Store:
    """Open (creating when empty) a store for writing; refuse an older schema unless
    `migrate` is set. What is there is looked at read-only first, so a file that is not an
    agent-assay store is refused before a writable connection could change it."""
    have = stored_version(db)
    engine = make_engine(db)
    if have == 0 or migrate:
        _migrate(engine, db)
    elif have < migrations.LATEST:
        engine.dispose()
        raise needs_migration(db, have)
    return Store(engine)


def _migrate(engine: Engine, db: str) -> None:
    """Apply the migrations; on a server, a role that may not create tables is told who can."""
    try:
        migrations.apply(engine)
    except DBAPIError as exc:
        engine.dispose()
        if not is_server_url(db):
            raise
        raise AssayError(
            f"--db {shown(db)}: this role cannot create or upgrade the store "
            f"({connect_reason(exc)}); run `agent-assay store init` as the database's owner"
        ) from exc


def open_existing_store(db: str, *, read_only: bool = True, checked: bool = True) -> Store:
    """Open a store that must already exist, for commands that read (`read_only`: the
    database itself refuses every write) or build on stored runs. A path that does not
    exist is refused rather than created (a typo must not look like "no runs"); a database
    that is not an agent-assay store, or one that needs `migrate`, is refused untouched:
    nothing is migrated and the journal mode is left as it is. A reader's SQLite file must
    pass SQLite's quick_check (`damage.quick_check`) unless `checked` is off (`verify`, which
    runs the whole integrity_check and lists what it finds)."""
    if not is_server_url(db) and not store_path(db).exists():
        raise AssayError(f"no store at --db {db} (commands that read never create one)")
    have = stored_version(db)
    if have == 0:
        if is_server_url(db):
            raise AssayError(
                f"no store at --db {shown(db)}: the database holds no agent-assay tables "
                f"(create them with `agent-assay store init --db {shown(db)}`)"
            )
        raise not_a_store(db, "no schema_migrations table")
    if have < migrations.LATEST:
        raise needs_migration(db, have)
    if read_only and checked and not is_server_url(db):
        quick_check(db)
    return Store(make_engine(db, Access.READ if read_only else Access.WRITE), pinned=read_only)
