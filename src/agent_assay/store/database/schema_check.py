"""Is the store's schema the one this version creates? And put back what was taken away.

The reference is built, once per process, by running every migration on an
empty in-memory database: a store that went through the same steps must hold
exactly the same tables, indexes and triggers, to the byte of their SQL. A
dropped trigger, an altered one, an extra trigger that could rewrite rows on
insert, or a missing index are findings; `repair` restores triggers and
indexes (never tables: a missing table means missing rows) and records what
it restored as a row of its own. A PostgreSQL store is checked from its
catalog instead (`postgres_schema`), with the same findings and the same record.

Building the reference costs about a tenth of a second, which every reading command
would pay: a store whose objects digest to `REFERENCE_DIGEST` holds the reference
exactly (SHA-256), so it is built only when they do not, to name what differs. A test
holds the digest to the migrations.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.exc import IntegrityError

from agent_assay.findings import Finding
from agent_assay.hashing import canonical_json
from agent_assay.store.database import migrations, schema
from agent_assay.store.encoding.text import now

Objects = dict[tuple[str, str], tuple[str, str]]
"""(type, name) -> (table it belongs to, its SQL)."""

_REPAIRABLE = ("trigger", "index")


def _objects(conn: Connection) -> Objects:
    rows = conn.exec_driver_sql(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ).all()
    return {(r[0], r[1]): (r[2], r[3] or "") for r in rows}


REFERENCE_DIGEST = "eaee14eb9a6089aa32c1bacb0bb4946e1fdf620aa027fd62e5fcdc884ba055f6"
"""`fingerprint(reference_objects())`: see the module."""


def fingerprint(objects: Objects) -> str:
    """The SHA-256 of `objects`, every (type, name, table, SQL) in sorted order."""
    listed = sorted([kind, name, table, sql] for (kind, name), (table, sql) in objects.items())
    return hashlib.sha256(canonical_json(listed).encode()).hexdigest()


@cache
def reference_objects() -> Objects:
    engine = create_engine("sqlite://")
    migrations.apply(engine)
    with engine.connect() as conn:
        found = _objects(conn)
    engine.dispose()
    return found


def schema_findings(conn: Connection) -> list[Finding]:
    """Every table, index and trigger that is missing, altered or unexpected."""
    if conn.dialect.name == "postgresql":
        from agent_assay.store.database import postgres_schema

        return postgres_schema.schema_findings(conn)
    have = _objects(conn)
    if fingerprint(have) == REFERENCE_DIGEST:
        return []  # the reference itself: nothing is missing, altered or unexpected
    want = reference_objects()
    found: list[Finding] = []
    for key in sorted(want.keys() | have.keys()):
        kind, name = key
        if key not in have:
            found.append(Finding(f"{kind} {name}", "is missing (`agent-assay migrate --repair`)"
                                 if kind in _REPAIRABLE else "is missing"))
        elif key not in want:
            if kind in ("trigger", "table", "view"):
                found.append(Finding(f"{kind} {name}", "is not part of the agent-assay schema"))
        elif " ".join(have[key][1].split()) != " ".join(want[key][1].split()):
            found.append(Finding(f"{kind} {name}", "differs from the one this version creates"))
    return found


@dataclass(frozen=True)
class Repair:
    restored: tuple[str, ...]
    refused: tuple[str, ...]
    """Indexes that could not be rebuilt over the rows the table now holds."""


def repair(engine: Engine) -> Repair:
    """Recreate every missing or altered trigger and index; record and return what was done.

    An index that cannot be rebuilt because the table now holds rows it forbids (a
    duplicate score slipped in while it was gone) stays missing and is said so: those
    rows are evidence of the tampering, and `verify` names them.
    """
    restored: list[str] = []
    refused: list[str] = []
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            from agent_assay.store.database import postgres_schema

            restored += postgres_schema.repair(conn)
            for index in postgres_schema.missing_indexes(conn):
                _rebuild(conn, f"index {index.name}", [], [index.create], restored, refused)
        else:
            _repair_sqlite(conn, restored, refused)
        if restored or refused:
            conn.execute(
                schema.store_repairs.insert().values(
                    restored=canonical_json(restored),
                    detail=canonical_json({"schema": migrations.LATEST, "refused": refused}),
                    at=now(),
                )
            )
    return Repair(tuple(restored), tuple(refused))


def _repair_sqlite(conn: Connection, restored: list[str], refused: list[str]) -> None:
    have = _objects(conn)
    for (kind, name), (_table, sql) in sorted(reference_objects().items()):
        if kind not in _REPAIRABLE:
            continue
        current = have.get((kind, name))
        if current is not None and " ".join(current[1].split()) == " ".join(sql.split()):
            continue
        drop = [f"DROP {kind.upper()} {name}"] if current is not None else []
        _rebuild(conn, f"{kind} {name}", drop, [_runs(sql)], restored, refused)
    for kind, name in sorted(have.keys() - reference_objects().keys()):
        if kind == "trigger":
            conn.execute(text(f"DROP TRIGGER {name}"))
            restored.append(f"removed trigger {name}")


def _runs(sql: str) -> Callable[[Connection], object]:
    return lambda conn: conn.execute(text(sql))


def _rebuild(
    conn: Connection,
    label: str,
    drops: list[str],
    creates: list[Callable[[Connection], object]],
    restored: list[str],
    refused: list[str],
) -> None:
    """Drop and recreate one object in a savepoint; an index the rows now forbid stays
    missing and is listed as refused (those rows are the evidence)."""
    try:
        with conn.begin_nested():
            for sql in drops:
                conn.execute(text(sql))
            for create in creates:
                create(conn)
    except IntegrityError:
        refused.append(label)
        return
    restored.append(label)
