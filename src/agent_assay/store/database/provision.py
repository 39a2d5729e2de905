"""`store init`: create (or upgrade) a store's schema and, on PostgreSQL, the harness's role.

Run as the database's owner, once. The role it creates or adopts is the one the
harness then connects as: it may read and append and nothing else. A role that
is a superuser, owns a table, or is the owner itself is refused, since it could
switch the guards off (ALTER TABLE ... DISABLE TRIGGER, session_replication_role).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, text

from agent_assay.errors import AssayError
from agent_assay.store.database import migrations, postgres_ddl, schema
from agent_assay.store.database.engine import make_engine, shown
from agent_assay.store.database.postgres import is_server_url
from agent_assay.store.database.schema_check import schema_findings
from agent_assay.store.database.version import stored_version


@dataclass(frozen=True, slots=True)
class Provisioned:
    applied: tuple[int, ...]
    version: int
    role: str | None
    created_role: bool


def provision(db: str, role: str | None = None, password: str | None = None) -> Provisioned:
    """Migrate the store at `db` to the latest schema and, given `role`, make that role the
    harness's: it can connect, SELECT and INSERT, and cannot UPDATE, DELETE or TRUNCATE."""
    if role is not None and not is_server_url(db):
        raise AssayError(f"--role applies to PostgreSQL stores; --db {db} is an SQLite file")
    if password is not None and role is None:
        raise AssayError("a role password was given without --role")
    stored_version(db)  # what is not a store is refused before anything is created
    engine = make_engine(db)
    try:
        applied = migrations.apply(engine)
        with engine.connect() as conn:
            problems = schema_findings(conn)
        if problems:
            raise AssayError(
                f"--db {shown(db)}: the schema is not the one this version creates "
                f"({problems[0].line()}); run `agent-assay migrate --repair --db {shown(db)}`"
            )
        created = False
        if role is not None:
            with engine.begin() as conn:
                created = _grant_role(conn, role, password)
    finally:
        engine.dispose()
    return Provisioned(tuple(applied), migrations.LATEST, role, created)


def _grant_role(conn: Connection, role: str, password: str | None) -> bool:
    """Create `role` when absent (LOGIN, with `password` if given), refuse one that could
    disable the guards, and grant it exactly reading and appending; True when created."""
    me = conn.execute(text("SELECT current_user")).scalar_one()
    if role == me:
        raise AssayError(
            f"--role {role} is the role running `store init`, which owns the tables; "
            "the harness needs a role of its own that owns nothing"
        )
    found = conn.execute(
        text("SELECT rolsuper FROM pg_roles WHERE rolname = :role"), {"role": role}
    ).first()
    quoted = postgres_ddl.quote_identifier(role)
    if found is None:
        conn.exec_driver_sql(f"CREATE ROLE {quoted} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE")
    elif found[0]:
        raise AssayError(f"--role {role} is a superuser, which can switch every guard off")
    owned = conn.execute(
        text(
            "SELECT c.relname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner "
            "WHERE r.rolname = :role AND c.relnamespace = current_schema()::regnamespace "
            "AND c.relkind IN ('r', 'p', 'S') ORDER BY c.relkind DESC, c.relname LIMIT 1"
        ),
        {"role": role},
    ).scalar()
    if owned is not None:
        raise AssayError(
            f"--role {role} owns {owned}, and an owner can disable its triggers; "
            "the harness needs a role that owns nothing"
        )
    if password is not None:
        # a literal, not a parameter (utility statements take none), quoted so it cannot
        # end early; sent as is, so no character in it is read as a placeholder
        quoted_password = "'" + password.replace("'", "''") + "'"
        conn.exec_driver_sql(f"ALTER ROLE {quoted} PASSWORD {quoted_password}")
    database = conn.execute(text("SELECT current_database()")).scalar_one()
    for statement in postgres_ddl.role_grants(role, database, sorted(schema.metadata.tables)):
        conn.exec_driver_sql(statement)
    return found is None
