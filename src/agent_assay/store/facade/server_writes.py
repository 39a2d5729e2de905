"""The writer's hot path on a database server (PostgreSQL): a group's blocks in one
statement per table instead of one statement per row.

On SQLite a statement costs a function call and `writes.append_group` runs one per row; on
a server each statement is a round trip, so a group of forty trajectories cost some 120
of them. Here the rows are made exactly as `writes.trajectory_block` makes them for SQLite
(the same values, digests and blocks) and inserted table by table, each table's rows sent
as one array per column (binary) to one fixed statement, which the server prepares: every
ledger entry first, then the base states, then the trajectory rows (their ids returned),
then the score sets naming them. Within a table the rows go in the order the per-row path
inserts them, so each gets the same id from its sequence, and each row-level guard still
fires once per row and sees the rows before it in the same statement (PostgreSQL runs a
BEFORE ROW trigger's queries with the statement's earlier rows visible): a ledger entry is
still checked to extend the one before it. All of it stays inside the caller's
transaction, so the group is stored whole or not at all.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.store.database import schema
from agent_assay.store.encoding.prepared import PreparedTrajectory
from agent_assay.store.facade import writes
from agent_assay.store.records import Attempt

KNOWN_BASES = "SELECT digest FROM state_blobs WHERE digest = ANY(%s)"


def append_group(
    cursor: Any,
    sql: writes.HotPathSQL,
    run_id: str,
    group: Sequence[PreparedTrajectory],
    attempts: Mapping[tuple[str, int], Attempt],
    bases_written: set[str],
) -> list[int]:
    """`writes.append_group` on a psycopg cursor, the same rows in a few statements; the
    trajectories' row ids in the group's order."""
    head, generation = writes.read_head(cursor, sql, run_id)
    entries, trajectories, sets = [], [], []
    for prepared in group:
        entry, trajectory, score_set, head = writes.trajectory_block(
            run_id, prepared, attempts.get((prepared.item_id, prepared.repetition)), head,
            generation)
        entries.append(entry)
        trajectories.append(trajectory)
        sets.append(score_set)
    insert(cursor, "ledger", writes.LEDGER_COLUMNS, entries)
    store_bases(cursor, group, bases_written)
    ids = insert_trajectories(cursor, trajectories)
    insert(cursor, "score_sets", writes.SCORE_SET_COLUMNS,
           [(ids[at], *score_set) for at, score_set in enumerate(sets) if score_set is not None])
    return ids


def insert_trajectories(cursor: Any, rows: Sequence[tuple[Any, ...]]) -> list[int]:
    """Insert the trajectory rows; their ids, in `rows`' order (each found by its block,
    which is the row's own: one trajectory per block)."""
    if not rows:
        return []
    cursor.execute(statement("trajectories", writes.TRAJECTORY_COLUMNS, " RETURNING block, id"),
                   by_column(rows))
    by_block = {int(b): int(i) for b, i in cursor.fetchall()}
    block = writes.TRAJECTORY_COLUMNS.index("block")
    return [by_block[row[block]] for row in rows]


def store_bases(cursor: Any, group: Sequence[PreparedTrajectory], bases_written: set[str]) -> None:
    """The base states the group names that this writer has not seen committed, as
    `writes.store_base` stores them row by row: a row's own copy once it hashes to its
    name (a repeat stored once), else the base must have been stored before the group or
    brought by an earlier row of it. The first row at fault is the one refused."""
    blobs: dict[str, tuple[str, str]] = {}
    named: list[PreparedTrajectory] = []
    """Rows naming a base no earlier row brings: it must be stored already."""
    for prepared in group:
        state = prepared.state
        if state is None or state in bases_written:
            continue
        if prepared.blob is None:
            if state not in blobs:
                named.append(prepared)
            continue
        try:
            writes.check_blob(prepared)
        except AssayError:
            require_stored(cursor, named)  # an earlier row at fault is refused first
            raise
        blobs.setdefault(state, prepared.blob)
    require_stored(cursor, named)  # before this group's own copies go in
    insert(cursor, "state_blobs", ("digest", "payload"), list(blobs.values()),
           " ON CONFLICT DO NOTHING")


def require_stored(cursor: Any, named: Sequence[PreparedTrajectory]) -> None:
    """Refuse the first of `named` whose base state is not stored."""
    if not named:
        return
    cursor.execute(KNOWN_BASES, (sorted({str(p.state) for p in named}),))
    stored = {row[0] for row in cursor.fetchall()}
    for prepared in named:
        if prepared.state not in stored:
            raise writes.missing_base(prepared)


def insert(
    cursor: Any, table: str, columns: tuple[str, ...], rows: Sequence[tuple[Any, ...]],
    tail: str = "",
) -> None:
    if rows:
        cursor.execute(statement(table, columns, tail), by_column(rows))


def by_column(rows: Sequence[tuple[Any, ...]]) -> list[list[Any]]:
    """`rows` as one list per column: the arrays `statement` takes."""
    return [list(column) for column in zip(*rows, strict=True)]


_ARRAY_TYPES = {"TEXT": "text", "INTEGER": "integer", "BIGINT": "bigint",
                "BOOLEAN": "boolean", "FLOAT": "double precision"}


@functools.cache
def statement(table: str, columns: tuple[str, ...], tail: str = "") -> str:
    """One INSERT of any number of rows into `table`, given as one array per column, the
    rows inserted in the arrays' order. Its text is fixed, so psycopg converts it once and
    the server prepares it. Each array is of the column's type on PostgreSQL."""
    from sqlalchemy.dialects import postgresql  # loaded already on this path, never on SQLite's

    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    types = [_ARRAY_TYPES[schema.metadata.tables[table].c[name].type.compile(dialect=dialect)]
             for name in columns]
    listed = ", ".join(columns)
    arrays = ", ".join(f"%b::{kind}[]" for kind in types)
    return (f"INSERT INTO {table} ({listed}) SELECT {listed} FROM unnest({arrays}) "
            f"WITH ORDINALITY AS given({listed}, given_order) ORDER BY given_order{tail}")
