"""Schema migrations: each one adds, none rewrites, and every row survives.

A migration is a version, a description and a step. A fresh store runs every
step from 1, exactly as an old store being upgraded does, so both end with
the same schema. Migration 3 chains the run-scoped tables: it adds the chain
columns, the ledger and the scoring generations, the triggers that refuse
unchained rows, broken links and unrecorded generations, and it *seals* every
run that already exists: one ledger block per run records the digests of its
rows as they stood at the upgrade (rows cannot be rewritten, so they keep a
NULL block and are checked against the seal). Migration 4 adds score sets, with
the same guards; the rows of runs written before stay where they are. Migration
5 adds state blobs (see `state_blobs`); trajectories already stored keep their
whole states, since their digests cover the payload as written. Migration 6 numbers
the attempts at a slot (see `schema.attempt_columns`): every row stored so far is
attempt 1, and a slot may hold a later attempt beside it. SQLite cannot change a
table's constraint in place, so there the trajectories are copied whole into the new
shape, row ids and all (every row and digest is as it was; foreign keys are off for
the copy, as SQLite's own procedure for it asks).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, MetaData, Table, inspect, select, text
from sqlalchemy.schema import CreateColumn, CreateIndex, CreateTable, DropIndex

from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay.store.database import schema
from agent_assay.store.encoding import chain


@functools.cache
def _era(era: int) -> MetaData:
    """The tables as they stood after migration `era` (built once: read, never changed)."""
    return schema.define(MetaData(), era)


def append_only_triggers(table: str) -> dict[str, str]:
    """SQLite triggers that abort any UPDATE or DELETE on `table`."""
    return {
        f"{table}_no_{verb.lower()}": (
            f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} refused'); END"
        )
        for verb in ("UPDATE", "DELETE")
    }


def chain_tables(era: int) -> tuple[str, ...]:
    """The chained tables that exist at schema `era`."""
    return tuple(t for t in chain.CHAINED_TABLES if t in _era(era).tables)


def chain_triggers(era: int = schema.LATEST_ERA) -> dict[str, str]:
    """The chain's insert guards at schema `era` (3 or later): a chained row carries its
    block and digest (which block it may join is the chain check's to judge, at no cost to
    the writer); a block extends its run's chain; a score generation above 0 must have been
    recorded before its scores."""
    tables = chain_tables(era)
    guards = {
        f"{table}_chained": (
            f"CREATE TRIGGER {table}_chained BEFORE INSERT ON {table} "
            "WHEN NEW.block IS NULL OR NEW.digest IS NULL "
            f"BEGIN SELECT RAISE(ABORT, '{table}: a row must carry its ledger block and its "
            "digest'); END"
        )
        for table in tables
    }
    guards["ledger_links"] = (
        "CREATE TRIGGER ledger_links BEFORE INSERT ON ledger "
        "WHEN NEW.seq IS NOT 1 + COALESCE((SELECT MAX(seq) FROM ledger WHERE run_id = "
        "NEW.run_id), 0) OR NEW.prev_digest IS NOT COALESCE((SELECT digest FROM ledger "
        f"WHERE run_id = NEW.run_id AND seq = NEW.seq - 1), '{chain.GENESIS}') "
        "BEGIN SELECT RAISE(ABORT, 'ledger: a block must extend its run''s chain'); END"
    )
    for table in chain.SCORE_TABLES:
        if table in tables:
            guards[f"{table}_generation_recorded"] = (
                f"CREATE TRIGGER {table}_generation_recorded BEFORE INSERT ON {table} "
                "WHEN NEW.generation > 0 AND NOT EXISTS (SELECT 1 FROM score_generations g "
                "WHERE g.run_id = NEW.run_id AND g.generation = NEW.generation) "
                f"BEGIN SELECT RAISE(ABORT, '{table}: a re-scoring generation must be "
                "recorded before its rows'); END"
            )
    return guards


def expected_triggers() -> dict[str, str]:
    """Every trigger the current schema has on SQLite, by name."""
    found: dict[str, str] = {}
    for table in schema.metadata.tables:
        found.update(append_only_triggers(table))
    found.update(chain_triggers())
    return found


def _on_postgresql(conn: Connection) -> bool:
    return conn.dialect.name == "postgresql"


def _guard_ddl(conn: Connection, table: str) -> list[str]:
    """The append-only guards of `table` in the connection's own dialect."""
    if _on_postgresql(conn):
        from agent_assay.store.database import postgres_ddl

        return [trigger.ddl() for trigger in postgres_ddl.append_only_triggers(table)]
    return list(append_only_triggers(table).values())


def _chain_guard_ddl(conn: Connection, era: int) -> list[str]:
    """The chain guards that schema `era` adds to the one before it."""
    if _on_postgresql(conn):
        from agent_assay.store.database import postgres_ddl

        had = postgres_ddl.chain_triggers(chain_tables(era - 1)) if era > 3 else []
        older = {t.name for t in had}
        return [t.ddl() for t in postgres_ddl.chain_triggers(chain_tables(era))
                if t.name not in older]
    older = set(chain_triggers(era - 1)) if era > 3 else set()
    return [ddl for name, ddl in chain_triggers(era).items() if name not in older]


def _create_tables(conn: Connection, era: int) -> None:
    """Create the tables new in `era` (with their indexes and append-only triggers)."""
    if _on_postgresql(conn):  # the guards' functions, before any trigger calls them
        from agent_assay.store.database import postgres_ddl

        for name in postgres_ddl.FUNCTION_BODIES:
            conn.execute(text(postgres_ddl.function_ddl(name)))
    before = set(_era(era - 1).tables) if era > 1 else set()
    for table in _era(era).sorted_tables:
        if table.name in before:
            continue
        table.create(conn, checkfirst=True)
        for index in table.indexes:
            index.create(conn, checkfirst=True)
        for ddl in _guard_ddl(conn, table.name):
            conn.execute(text(ddl))


def _add_columns(conn: Connection, old: Table, new: Table) -> None:
    have = {c["name"] for c in inspect(conn).get_columns(old.name)}
    for column in new.columns:
        if column.name not in have:
            ddl = CreateColumn(column).compile(dialect=conn.dialect)
            conn.execute(text(f"ALTER TABLE {new.name} ADD COLUMN {ddl}"))
    old_indexes = {i.name for i in old.indexes}
    new_indexes = {i.name for i in new.indexes}
    for index in old.indexes:
        if index.name not in new_indexes:
            index.drop(conn, checkfirst=True)
    for index in new.indexes:
        if index.name not in old_indexes:
            index.create(conn, checkfirst=True)


def _step_1(conn: Connection) -> None:
    _create_tables(conn, 1)


def _step_2(conn: Connection) -> None:
    _create_tables(conn, 2)


def _step_3(conn: Connection) -> None:
    old, new = _era(2), _era(3)
    for name, table in old.tables.items():
        _add_columns(conn, table, new.tables[name])
    _create_tables(conn, 3)
    for ddl in _chain_guard_ddl(conn, 3):
        conn.execute(text(ddl))
    for run_id in conn.execute(select(schema.runs.c.run_id)).scalars().all():
        seal_run(conn, run_id)


def _step_4(conn: Connection) -> None:
    _create_tables(conn, 4)
    for ddl in _chain_guard_ddl(conn, 4):
        conn.execute(text(ddl))


def _step_5(conn: Connection) -> None:
    _create_tables(conn, 5)


def _step_6(conn: Connection) -> None:
    old, new = _era(5), _era(6)
    trajectories = new.tables["trajectories"]
    if _on_postgresql(conn):
        _add_columns(conn, old.tables["trajectories"], trajectories)
        conn.execute(text("ALTER TABLE trajectories DROP CONSTRAINT uq_trajectory_slot"))
        conn.execute(text("ALTER TABLE trajectories ADD CONSTRAINT uq_trajectory_slot "
                          "UNIQUE (run_id, item_id, repetition, attempt)"))
    else:
        _rebuild_sqlite(conn, old.tables["trajectories"], trajectories)
    _add_columns(conn, old.tables["score_sets"], new.tables["score_sets"])
    for index in old.tables["score_sets"].indexes:  # same name, one more column
        conn.execute(DropIndex(index))
    for index in new.tables["score_sets"].indexes:
        conn.execute(CreateIndex(index))


def _rebuild_sqlite(conn: Connection, old: Table, new: Table) -> None:
    """`old` copied into the shape of `new` (same name), every row with its id, and its
    guards put back: the new table is created beside it, filled, and renamed over it."""
    rebuilt = f"{new.name}_rebuilt"
    # the table's own DDL under the other name (a copied Table could list its constraints
    # in another order, and the schema check compares the SQL to the byte)
    ddl = str(CreateTable(new).compile(dialect=conn.dialect))
    renamed = ddl.replace(f"CREATE TABLE {new.name} (", f"CREATE TABLE {rebuilt} (", 1)
    assert renamed != ddl
    conn.execute(text(renamed))
    kept = ", ".join(c.name for c in old.columns)
    conn.execute(text(f"INSERT INTO {rebuilt} ({kept}) SELECT {kept} FROM {old.name}"))
    conn.execute(text(f"DROP TABLE {old.name}"))  # its triggers go with it
    conn.execute(text(f"ALTER TABLE {rebuilt} RENAME TO {new.name}"))
    guards = {**append_only_triggers(new.name), **chain_triggers(6)}
    for name, ddl in guards.items():
        if name.startswith(f"{new.name}_"):
            conn.execute(text(ddl))


def seal_run(conn: Connection, run_id: str) -> None:
    """Record, as block 1 of `run_id`'s chain, the digests of its rows as they stand now."""
    sealed: dict[str, dict[str, object]] = {}
    for name in chain_tables(3):  # the tables a store had when it was sealed
        table = _era(3).tables[name]  # the columns they had then
        rows = conn.execute(select(table).where(table.c.run_id == run_id)).mappings()
        digests = [chain.row_digest(name, chain.content_of(name, r)) for r in rows]
        if digests:
            sealed[name] = {"rows": len(digests), "digest": chain.set_digest(digests)}
    detail = canonical_json({"sealed": sealed, "schema": 3})
    digest = chain.block_digest(run_id, 1, "seal", chain.GENESIS, detail, ())
    conn.execute(
        schema.ledger.insert().values(
            run_id=run_id,
            seq=1,
            kind="seal",
            detail=detail,
            prev_digest=chain.GENESIS,
            digest=digest,
            at=datetime.now(UTC).isoformat(),
        )
    )


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    step: Callable[[Connection], None]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "core loop: suites, items, configs, runs, run events, environment, trajectories, scores",
        _step_1,
    ),
    Migration(2, "controls and mutation: control_outcomes, mutation_results", _step_2),
    Migration(
        3,
        "evidence chain: a ledger per run, row digests, scoring generations; older runs sealed",
        _step_3,
    ),
    Migration(
        4,
        "score sets: a trajectory's scores in one row; runs written before keep theirs",
        _step_4,
    ),
    Migration(
        5,
        "state blobs: large final states stored once, trajectories holding edits from them",
        _step_5,
    ),
    Migration(
        6,
        "attempts: a crashed slot run again keeps its earlier attempts beside the new one",
        _step_6,
    ),
)

LATEST = MIGRATIONS[-1].version
assert LATEST == schema.LATEST_ERA


@contextmanager
def _foreign_keys_off(conn: Connection) -> Iterator[None]:
    """On SQLite, foreign keys unenforced for the migrations (set before their transaction,
    the only place SQLite takes the setting), then as they were: a table rebuilt in its
    new shape is dropped and renamed over while rows still refer to it."""
    raw = conn.connection.driver_connection if conn.dialect.name == "sqlite" else None
    if not isinstance(raw, sqlite3.Connection):
        yield
        return
    was = raw.execute("PRAGMA foreign_keys").fetchone()[0]
    raw.execute("PRAGMA foreign_keys = OFF")
    try:
        yield
    finally:
        raw.execute(f"PRAGMA foreign_keys = {'ON' if was else 'OFF'}")


def current_version(conn: Connection) -> int:
    """The highest applied migration, or 0 for an empty database."""
    if not inspect(conn).has_table("schema_migrations"):
        return 0
    versions = conn.execute(select(schema.schema_migrations.c.version)).scalars().all()
    return max(versions, default=0)


def apply(engine: Engine, target: int = LATEST) -> list[int]:
    """Apply every migration above the current version up to `target`; return those applied."""
    if engine.dialect.name not in ("sqlite", "postgresql"):
        raise AssayError(
            f"append-only triggers exist for SQLite and PostgreSQL only, not {engine.dialect.name}"
        )
    applied: list[int] = []
    with engine.connect() as conn, _foreign_keys_off(conn), conn.begin():
        have = current_version(conn)
        if have > LATEST:
            raise AssayError(
                f"database schema version {have} is newer than this agent-assay ({LATEST})"
            )
        for migration in MIGRATIONS:
            if migration.version <= have or migration.version > target:
                continue
            migration.step(conn)
            conn.execute(
                schema.schema_migrations.insert().values(
                    version=migration.version,
                    description=migration.description,
                    applied_at=datetime.now(UTC).isoformat(),
                )
            )
            applied.append(migration.version)
    return applied

