"""Build a store as an older agent-assay left it, to test that migrations keep every row.

The rows are real: a current store is filled through the normal API (runs,
controls), then each table's rows are copied, with only the columns that
existed at `version`, into a database migrated to `version` and no further.
Either store may be an SQLite file or a PostgreSQL database (given as its owner).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import MetaData, func, select, text

from agent_assay.store import migrations, schema
from agent_assay.store.engine import Access, make_engine


def copy_as_version(current_db: str | Path, legacy_db: str | Path, version: int) -> None:
    """Copy `current_db`'s rows into a new store at schema `version` (its columns only)."""
    target = make_engine(str(legacy_db))
    migrations.apply(target, target=version)
    source = make_engine(str(current_db), Access.READ)
    era = schema.define(MetaData(), version)
    with source.connect() as src, target.begin() as dst:
        for table in era.sorted_tables:
            if table.name == "schema_migrations":
                continue
            current = schema.metadata.tables[table.name]
            query = select(*(current.c[column.name] for column in table.columns))
            rows = [dict(row) for row in src.execute(query).mappings()]
            if rows:
                dst.execute(table.insert(), rows)
            if dst.dialect.name == "postgresql" and "id" in table.c:
                # explicit ids do not advance a serial: the next append must not reuse one
                dst.execute(text(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                    f"COALESCE((SELECT MAX(id) FROM {table.name}), 0) + 1, false)"
                ))
    source.dispose()
    target.dispose()


def schema_version(db: str | Path) -> int:
    engine = make_engine(str(db), Access.READ)
    with engine.connect() as conn:
        version = conn.execute(select(func.max(schema.schema_migrations.c.version))).scalar()
    engine.dispose()
    return int(version or 0)
