"""Is the store's schema the one this version creates? And put back what was taken away.

The reference is built, once per process, by running every migration on an
empty in-memory database: a store that went through the same steps must hold
exactly the same tables, indexes and triggers, to the byte of their SQL. A
dropped trigger, an altered one, an extra trigger that could rewrite rows on
insert, or a missing index are findings; `repair` restores triggers and
indexes (never tables: a missing table means missing rows) and records what
it restored as a row of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.exc import IntegrityError

from agent_assay.findings import Finding
from agent_assay.hashing import canonical_json
from agent_assay.store import migrations, schema
from agent_assay.store.store import now

Objects = dict[tuple[str, str], tuple[str, str]]
"""(type, name) -> (table it belongs to, its SQL)."""

_REPAIRABLE = ("trigger", "index")


def _objects(conn: Connection) -> Objects:
    rows = conn.exec_driver_sql(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ).all()
    return {(r[0], r[1]): (r[2], r[3] or "") for r in rows}


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
    if conn.dialect.name != "sqlite":
        return []
    have = _objects(conn)
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
    want = reference_objects()
    restored: list[str] = []
    refused: list[str] = []
    with engine.begin() as conn:
        have = _objects(conn)
        for (kind, name), (_table, sql) in sorted(want.items()):
            if kind not in _REPAIRABLE:
                continue
            current = have.get((kind, name))
            if current is not None and " ".join(current[1].split()) == " ".join(sql.split()):
                continue
            try:
                with conn.begin_nested():
                    if current is not None:
                        conn.execute(text(f"DROP {kind.upper()} {name}"))
                    conn.execute(text(sql))
            except IntegrityError:
                refused.append(f"{kind} {name}")
                continue
            restored.append(f"{kind} {name}")
        for kind, name in sorted(have.keys() - want.keys()):
            if kind == "trigger":
                conn.execute(text(f"DROP TRIGGER {name}"))
                restored.append(f"removed trigger {name}")
        if restored or refused:
            conn.execute(
                schema.store_repairs.insert().values(
                    restored=canonical_json(restored),
                    detail=canonical_json({"schema": migrations.LATEST, "refused": refused}),
                    at=now(),
                )
            )
    return Repair(tuple(restored), tuple(refused))
