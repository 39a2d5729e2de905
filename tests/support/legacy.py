"""Build a store as an older agent-assay left it, to test that migrations keep every row.

The rows are real: a current store is filled through the normal API (runs,
controls), then each table's rows are copied, with only the columns that
existed at `version`, into a database migrated to `version` and no further.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_assay.store import migrations
from agent_assay.store.engine import make_engine


def columns(con: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in con.execute(f"PRAGMA table_info({table})")]


def copy_as_version(current_db: Path, legacy_db: Path, version: int) -> None:
    """Copy `current_db`'s rows into a new store at schema `version` (its columns only)."""
    engine = make_engine(str(legacy_db))
    migrations.apply(engine, target=version)
    engine.dispose()
    source = sqlite3.connect(current_db)
    target = sqlite3.connect(legacy_db)
    with target:
        for (table,) in target.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
            "AND name != 'schema_migrations'"
        ).fetchall():
            cols = columns(target, table)
            rows = source.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()
            marks = ", ".join("?" * len(cols))
            target.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})", rows)
    source.close()
    target.close()


def schema_version(db: Path) -> int:
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0])
