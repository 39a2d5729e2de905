"""How the store appends: one ledger block per append (see `encoding.chain`), each row
given its digest and block, and the writer's hot path on the driver's cursor with fixed
statements. Functions on the caller's connection or cursor, inside its transaction; the
`Store` facade owns the transactions."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, select

from agent_assay.errors import AssayError
from agent_assay.hashing import STATE, canonical_hash, canonical_json
from agent_assay.model import Config, Suite
from agent_assay.store.database import schema
from agent_assay.store.encoding import chain
from agent_assay.store.encoding.prepared import PreparedTrajectory
from agent_assay.store.encoding.score_pack import PackedScores, pack_records
from agent_assay.store.encoding.text import decode_json, now
from agent_assay.store.facade.written import TrajectoryBlock, Written
from agent_assay.store.records import (
    OPENING_EVENTS,
    SESSION_EVENTS,
    TERMINAL_EVENTS,
    Attempt,
    Head,
    ScoreRecord,
)

Rows = list[tuple[Table, dict[str, Any]]]
"""A block's rows: each table with the values of one row."""


def head_of(conn: Connection, run_id: str) -> Head | None:
    row = conn.execute(
        select(schema.ledger.c.seq, schema.ledger.c.digest)
        .where(schema.ledger.c.run_id == run_id)
        .order_by(schema.ledger.c.seq.desc())
        .limit(1)
    ).first()
    return Head(int(row.seq), str(row.digest)) if row else None


def append_block(
    conn: Connection,
    run_id: str,
    kind: str,
    detail: Mapping[str, Any],
    rows: Sequence[tuple[Table, dict[str, Any]]],
    kept: list[Written] | None = None,
) -> Head:
    """Append one block to `run_id`'s chain inside the caller's transaction.

    Each row is given its digest and block number, the block's digest covers them
    all and the previous block's digest, and the ledger entry goes in first so the
    database's guards see the block its rows join. The block as written is added to
    `kept` when given (see `written`).
    """
    previous = head_of(conn, run_id)
    seq = previous.seq + 1 if previous else 1
    prev = previous.digest if previous else chain.GENESIS
    digests: list[str] = []
    contents: list[tuple[str, Sequence[Any], str, int]] = []
    for table, values in rows:
        content = chain.content_of(table.name, values)
        digest = chain.row_digest(table.name, content)
        values["block"], values["digest"] = seq, digest
        digests.append(digest)
        contents.append((table.name, content, digest, values.get("attempt", 1)))
    counts = Counter(table.name for table, _ in rows)
    detail_json = canonical_json({**detail, "rows": dict(sorted(counts.items()))})
    digest = chain.block_digest(run_id, seq, kind, prev, detail_json, digests)
    at = now()
    conn.execute(
        schema.ledger.insert().values(
            run_id=run_id,
            seq=seq,
            kind=kind,
            detail=detail_json,
            prev_digest=prev,
            digest=digest,
            at=at,
        )
    )
    for table in dict.fromkeys(table for table, _ in rows):
        conn.execute(table.insert(), [values for t, values in rows if t is table])
    if kept is not None:
        terminal = [json.loads(values["detail"]) for table, values in rows
                    if table is schema.run_events and values["event"] in TERMINAL_EVENTS]
        kept.append((seq, kind, detail_json, prev, digest, at, contents, None, None,
                     terminal[0] if terminal else None))
    return Head(seq, digest)


def append_to_snapshot(
    snapshot: Connection, run_id: str, head: Head, kind: str, detail: Mapping[str, Any]
) -> Head | None:
    """Append a block with no rows after `head` on `snapshot` (a `Store.snapshot()`'s
    connection) and commit it, or return None and write nothing.

    SQLite turns a read transaction into a write only while nothing was committed
    since it began, so a block appended here follows exactly the state read in the
    snapshot; when another connection wrote since, or is writing now, SQLite refuses
    at once and the caller decides what to do instead.
    """
    raw = snapshot.connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    seq = head.seq + 1
    detail_json = canonical_json({**detail, "rows": {}})  # as `append_block` words it
    digest = chain.block_digest(run_id, seq, kind, head.digest, detail_json, [])
    entry = (run_id, seq, kind, detail_json, head.digest, digest, now())
    try:
        raw.execute(hot_path_sql("qmark").ledger, entry)
        raw.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
            raise
        return None  # still the read transaction, which `snapshot` rolls back
    return Head(seq, digest)


def insert_suite(conn: Connection, suite: Suite) -> None:
    """The suite's row and its items' (the caller knows its hash is not stored yet)."""
    suite_hash = suite.suite_hash
    conn.execute(
        schema.suites.insert().values(
            suite_hash=suite_hash,
            adapter=suite.adapter,
            source=suite.source,
            n_items=len(suite.items),
            created_at=now(),
        )
    )
    conn.execute(
        schema.items.insert(),
        [
            {
                "suite_hash": suite_hash,
                "item_id": item.item_id,
                "position": position,
                "item_hash": item.content_hash,
                "payload": canonical_json(item.to_json()),
            }
            for position, item in enumerate(suite.items)
        ],
    )


def put_config(conn: Connection, config: Config) -> None:
    """The config's row, unless its hash is stored already."""
    config_hash = config.config_hash
    exists = conn.execute(
        select(schema.configs.c.config_hash).where(
            schema.configs.c.config_hash == config_hash
        )
    ).first()
    if not exists:
        conn.execute(
            schema.configs.insert().values(
                config_hash=config_hash,
                adapter=config.adapter,
                name=config.name,
                payload=canonical_json(config.to_json()),
            )
        )


def claim_run(
    conn: Connection, run_id: str, writer: Mapping[str, Any],
    busy: Callable[[object], str | None],
) -> Head:
    """`Store.claim_run` inside the caller's write transaction."""
    events = schema.run_events
    last = conn.execute(
        select(events.c.event, events.c.detail)
        .where(events.c.run_id == run_id, events.c.event.in_(SESSION_EVENTS))
        .order_by(events.c.id.desc())
        .limit(1)
    ).first()
    if last is not None and last.event in OPENING_EVENTS:
        holder = busy(decode_json("run_events", run_id, last.detail))
        if holder is not None:
            raise AssayError(
                f"run {run_id} is being written by another process ({holder}); "
                "wait for it to finish, or stop it and resume again"
            )
    row = event_row(run_id, "resumed", {"writer": dict(writer)})
    return append_block(
        conn, run_id, "event", {"event": "resumed"}, [(events, row)]
    )


def run_rows(
    *,
    run_id: str,
    adapter: str,
    suite_hash: str,
    config_hash: str,
    config_name: str,
    repeats: int,
    seed: int,
    item_ids: Sequence[str],
    env: Mapping[str, Any],
    affects_results: Iterable[str],
    started: Mapping[str, Any] | None,
) -> Rows:
    """A new run's first block: its row, its environment and its `started` event."""
    created = now()
    affects = frozenset(affects_results)
    return [
        (
            schema.runs,
            {
                "run_id": run_id,
                "adapter": adapter,
                "suite_hash": suite_hash,
                "config_hash": config_hash,
                "config_name": config_name,
                "repeats": repeats,
                "seed": seed,
                "item_ids": canonical_json(list(item_ids)),
                "created_at": created,
            },
        ),
        *(
            (
                schema.run_env,
                {
                    "run_id": run_id,
                    "key": key,
                    "value": canonical_json(value),
                    "affects_results": key in affects,
                },
            )
            for key, value in sorted(env.items())
        ),
        (schema.run_events, event_row(run_id, "started", started or {})),
    ]


def event_row(run_id: str, event: str, detail: Mapping[str, Any]) -> dict[str, Any]:
    return {"run_id": run_id, "event": event, "detail": canonical_json(dict(detail)), "at": now()}


def generation_rows(
    slots: Mapping[tuple[str, int], tuple[int, int]],
    run_id: str,
    generation: int,
    reason: str,
    scorers: Sequence[Mapping[str, Any]],
    records: Sequence[ScoreRecord],
) -> Rows:
    """A re-scoring's block: its generation row and a score set per slot, each scoring the
    newest attempt at its slot (`slots`: each slot's trajectory row id and attempt)."""
    rows: Rows = [
        (
            schema.score_generations,
            {
                "run_id": run_id,
                "generation": generation,
                "reason": reason,
                "scorers": canonical_json([dict(s) for s in scorers]),
                "at": now(),
            },
        )
    ]
    by_slot: dict[tuple[str, int], list[ScoreRecord]] = {}
    for r in records:
        if (r.item_id, r.repetition) not in slots:
            raise AssayError(
                f"run {run_id} has no trajectory {r.item_id}/{r.repetition} to re-score"
            )
        by_slot.setdefault((r.item_id, r.repetition), []).append(r)
    for (item_id, repetition), slot_records in by_slot.items():
        content = score_set_content(run_id, item_id, repetition, generation,
                                    pack_records(slot_records))
        assert content is not None  # a slot is listed only with a record
        trajectory_id, attempt = slots[(item_id, repetition)]
        rows.append((
            schema.score_sets,
            {"trajectory_id": trajectory_id, "attempt": attempt,
             **dict(zip(chain.CONTENT_COLUMNS["score_sets"], content, strict=True))},
        ))
    return rows


def control_outcome_row(
    run_id: str, suite_hash: str, config_hash: str, payload: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "kind": payload["kind"],
        "version": payload["version"],
        "status": payload["status"],
        "suite_hash": suite_hash,
        "config_hash": config_hash,
        "payload": canonical_json(dict(payload)),
        "created_at": now(),
    }


def mutation_rows(run_id: str, rows: Sequence[tuple[str, Mapping[str, Any]]]) -> Rows:
    """One mutation pass: its operator rows and summary."""
    created = now()
    return [
        (
            schema.mutation_results,
            {
                "run_id": run_id,
                "operator": operator,
                "payload": canonical_json(dict(payload)),
                "created_at": created,
            },
        )
        for operator, payload in rows
    ]


def score_set_content(
    run_id: str, item_id: str, repetition: int, generation: int, packed: PackedScores | None
) -> tuple[Any, ...] | None:
    """The content of one score set row, in `chain.CONTENT_COLUMNS` order; None when the
    trajectory has no score to store."""
    if packed is None:
        return None
    return (run_id, item_id, repetition, generation, packed.scorers, packed.packed_values,
            packed.details)


# ---- the hot path ----------------------------------------------------------------
Block = tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...] | None, Head]
"""One trajectory's block as `trajectory_block` makes it: its ledger entry, its trajectory
row and its score set row (None: no score to store; either row without the trajectory
id), in the order the hot path's statements take them, and the head after it."""


def append_group(
    cursor: Any,
    sql: HotPathSQL,
    run_id: str,
    group: Sequence[PreparedTrajectory],
    attempts: Mapping[tuple[str, int], Attempt],
    bases_written: set[str],
    kept: list[TrajectoryBlock] | None = None,
) -> list[int]:
    """Each trajectory of `group` as its own block, in order, inside the caller's write
    transaction; their row ids (each block as written added to `kept` when given). The
    run's head and scoring generation are read once, at the start: the transaction holds
    the write lock (SQLite's BEGIN IMMEDIATE), so nothing else appends to the run before
    it commits, and each block follows the one before it (elsewhere, an append by another
    writer meanwhile takes the same sequence number, which the ledger's key refuses, and
    the group is rolled back)."""
    head, generation = read_head(cursor, sql, run_id)
    ids = []
    for prepared in group:
        trajectory_id, head = append_prepared(
            cursor, sql, run_id, prepared, attempts.get((prepared.item_id, prepared.repetition)),
            bases_written, head, generation, kept)
        ids.append(trajectory_id)
    return ids


def read_head(cursor: Any, sql: HotPathSQL, run_id: str) -> tuple[Head | None, int]:
    """The run's head (None for none) and current scoring generation, on the hot path."""
    cursor.execute(sql.head, (run_id, run_id))
    last, prev, generation = cursor.fetchone()
    return (Head(int(last), str(prev)) if last is not None else None), generation or 0


def append_prepared(
    cursor: Any,
    sql: HotPathSQL,
    run_id: str,
    prepared: PreparedTrajectory,
    attempt: Attempt | None,
    bases_written: set[str],
    head: Head | None,
    generation: int,
    kept: list[TrajectoryBlock] | None = None,
) -> tuple[int, Head]:
    """One trajectory's block after `head` (the run's, None for none), its rows scored in
    `generation`, and its (first named) base, inside the caller's transaction; its row id
    and the new head. An `attempt` after the first is recorded in the block: its number,
    and the digest and crash cause of the row it runs again. A base in `bases_written`
    (seen committed by this writer) is not stored again."""
    entry, trajectory, score_set, head = trajectory_block(
        run_id, prepared, attempt, head, generation)
    if kept is not None:
        kept.append((entry, trajectory, score_set, prepared.path, prepared.state))
    cursor.execute(sql.ledger, entry)
    if prepared.state is not None and prepared.state not in bases_written:
        store_base(cursor, sql, prepared)  # a repeat in one group is a no-op insert
    cursor.execute(sql.trajectory, trajectory)
    trajectory_id = int(cursor.fetchone()[0])
    if score_set is not None:
        cursor.execute(sql.score_set, (trajectory_id, *score_set))
    return trajectory_id, head


def trajectory_block(
    run_id: str,
    prepared: PreparedTrajectory,
    attempt: Attempt | None,
    head: Head | None,
    generation: int,
) -> Block:
    """The rows of `prepared`'s block after `head`, scored in `generation` (see `Block`);
    `append_prepared` has the rules."""
    created = now()
    item_id, repetition = prepared.item_id, prepared.repetition
    t_content = (run_id, item_id, repetition, prepared.crashed, prepared.payload, created)
    t_digest = chain.row_digest("trajectories", t_content)
    seq, prev = (head.seq + 1, head.digest) if head is not None else (1, chain.GENESIS)
    score_set = score_set_content(run_id, item_id, repetition, generation, prepared.score_set)
    digests = [t_digest]
    if score_set is not None:
        set_digest = chain.row_digest("score_sets", score_set)
        digests.append(set_digest)
    recorded: dict[str, Any] = {
        "rows": {"score_sets": 1, "trajectories": 1} if score_set is not None
        else {"trajectories": 1},
        "slot": [item_id, repetition],
        "steps": prepared.steps,
        "path": prepared.path,  # the block records it: a report reads no payload
    }
    if prepared.state is not None:  # the chain check finds the bases without payloads
        recorded["state"] = prepared.state
    if attempt is not None:
        recorded |= {"attempt": attempt.number, "retries": attempt.retries,
                     "cause": attempt.cause}
    number = 1 if attempt is None else attempt.number
    detail = canonical_json(recorded)
    digest = chain.block_digest(run_id, seq, "trajectory", prev, detail, digests)
    return (
        (run_id, seq, "trajectory", detail, prev, digest, created),
        (*t_content, seq, t_digest, number),
        None if score_set is None else (*score_set, seq, set_digest, number),
        Head(seq, digest),
    )


def store_base(cursor: Any, sql: HotPathSQL, prepared: PreparedTrajectory) -> None:
    """Store the base state `prepared` names, which this store has not written yet:
    from the row's own copy, once it hashes to its name, or else it must be there."""
    digest = str(prepared.state)
    if prepared.blob is not None:
        check_blob(prepared)
        cursor.execute(sql.state_blob, prepared.blob)
        return
    cursor.execute(sql.state_known, (digest,))
    if cursor.fetchone() is None:
        raise missing_base(prepared)


def check_blob(prepared: PreparedTrajectory) -> None:
    """Refuse a row's copy of its base state that does not hash to the name it carries."""
    digest = str(prepared.state)
    assert prepared.blob is not None
    if prepared.blob[0] != digest or canonical_hash(STATE, prepared.blob[1]) != digest:
        raise AssayError(f"trajectory {prepared.item_id}/{prepared.repetition}: its base "
                         f"state does not hash to {digest[:16]}")


def missing_base(prepared: PreparedTrajectory) -> AssayError:
    return AssayError(f"trajectory {prepared.item_id}/{prepared.repetition} names base state "
                      f"{str(prepared.state)[:16]}, which is not stored")


@dataclass(frozen=True, slots=True)
class HotPathSQL:
    """The writer's fixed statements in one driver's placeholder style (qmark for sqlite3,
    format for psycopg); the trajectory insert returns its id on both."""

    head: str
    ledger: str
    trajectory: str
    score_set: str
    state_blob: str
    state_known: str


LEDGER_COLUMNS: tuple[str, ...] = (
    "run_id", "seq", "kind", "detail", "prev_digest", "digest", "at")
TRAJECTORY_COLUMNS: tuple[str, ...] = (
    *chain.CONTENT_COLUMNS["trajectories"], "block", "digest", "attempt")
SCORE_SET_COLUMNS: tuple[str, ...] = (
    "trajectory_id", *chain.CONTENT_COLUMNS["score_sets"], "block", "digest", "attempt")
"""The hot path's rows, column by column: a `Block`'s in its order (a score set's with the
trajectory id first)."""


@functools.cache
def hot_path_sql(paramstyle: str) -> HotPathSQL:
    mark = "?" if paramstyle == "qmark" else "%s"

    def marks(n: int) -> str:
        return "(" + ", ".join([mark] * n) + ")"

    def insert(table: str, columns: Sequence[str], returning: str = "") -> str:
        return f"INSERT INTO {table} ({', '.join(columns)}) VALUES {marks(len(columns))}{returning}"

    return HotPathSQL(
        head=(
            "SELECT h.seq, h.digest, (SELECT MAX(generation) FROM score_generations WHERE "
            f"run_id = {mark}) FROM (SELECT 1 AS one) AS one LEFT JOIN (SELECT seq, digest "
            f"FROM ledger WHERE run_id = {mark} ORDER BY seq DESC LIMIT 1) AS h ON 1 = 1"
        ),
        ledger=insert("ledger", LEDGER_COLUMNS),
        trajectory=insert("trajectories", TRAJECTORY_COLUMNS, " RETURNING id"),
        score_set=insert("score_sets", SCORE_SET_COLUMNS),
        state_blob=insert("state_blobs", ("digest", "payload"), " ON CONFLICT DO NOTHING"),
        state_known=f"SELECT 1 FROM state_blobs WHERE digest = {mark}",
    )
