"""Schema migrations: each one adds, none rewrites, and every row survives.

A migration is a version number, a description and the tables it creates.
Applying one creates its tables and their append-only triggers, then records
itself as a new row in `schema_migrations` (which is append-only too).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, Table, inspect, select, text

from agent_assay.errors import AssayError
from agent_assay.store import schema


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    tables: Sequence[Table]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "core loop: suites, items, configs, runs, run events, environment, trajectories, scores",
        (
            schema.schema_migrations,
            schema.suites,
            schema.items,
            schema.configs,
            schema.runs,
            schema.run_env,
            schema.run_events,
            schema.trajectories,
            schema.scores,
        ),
    ),
    Migration(
        2,
        "controls and mutation: control_outcomes, mutation_results",
        (schema.control_outcomes, schema.mutation_results),
    ),
)

LATEST = MIGRATIONS[-1].version


def append_only_triggers(table: str) -> list[str]:
    """SQLite triggers that abort any UPDATE or DELETE on `table`."""
    return [
        f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} refused'); END"
        for verb in ("UPDATE", "DELETE")
    ]


def current_version(conn: Connection) -> int:
    """The highest applied migration, or 0 for an empty database."""
    if not inspect(conn).has_table("schema_migrations"):
        return 0
    versions = conn.execute(select(schema.schema_migrations.c.version)).scalars().all()
    return max(versions, default=0)


def apply(engine: Engine, target: int = LATEST) -> list[int]:
    """Apply every migration above the current version up to `target`; return those applied."""
    if engine.dialect.name != "sqlite":
        raise AssayError(
            f"append-only triggers are implemented for SQLite only, not {engine.dialect.name}"
        )
    applied: list[int] = []
    with engine.begin() as conn:
        have = current_version(conn)
        if have > LATEST:
            raise AssayError(
                f"database schema version {have} is newer than this agent-assay ({LATEST})"
            )
        for migration in MIGRATIONS:
            if migration.version <= have or migration.version > target:
                continue
            for table in migration.tables:
                table.create(conn, checkfirst=True)
                for index in table.indexes:
                    index.create(conn, checkfirst=True)
                for ddl in append_only_triggers(table.name):
                    conn.execute(text(ddl))
            conn.execute(
                schema.schema_migrations.insert().values(
                    version=migration.version,
                    description=migration.description,
                    applied_at=datetime.now(UTC).isoformat(),
                )
            )
            applied.append(migration.version)
    return applied
