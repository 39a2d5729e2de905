"""How the store reads its domain rows back: queries on the caller's connection, each row
decoded into its model object or record, a row that does not decode or fit named. The
`Store` facade chooses the connection (see `Store.reading`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table, exists, func, literal, select
from sqlalchemy.sql.expression import ColumnElement

from agent_assay.errors import AssayError
from agent_assay.exitcodes import ExitCode
from agent_assay.model import Config, CrashCause, Run, Trajectory, crash_cause_in
from agent_assay.store.database import schema
from agent_assay.store.database.base_states import BaseStates
from agent_assay.store.database.reads import batches
from agent_assay.store.encoding import chain, score_pack
from agent_assay.store.encoding.score_columns import (
    ScoreColumns,
    StoredScore,
    StoredSets,
    score_columns,
)
from agent_assay.store.encoding.state_blobs import base_digests, expanded
from agent_assay.store.encoding.text import decode_json
from agent_assay.store.records import Attempt, RetriedSlot, ScoreRecord, StoredOutcome

BASES_HELD = 64
"""Base states a trajectory reader holds at once (see BaseStates)."""


def run_of(row: Any, env_rows: Sequence[Any]) -> Run:
    """A run from its stored row and its environment's rows."""
    run_id = row.run_id
    return Run(
        run_id=row.run_id,
        adapter=row.adapter,
        suite_hash=row.suite_hash,
        config_hash=row.config_hash,
        config_name=row.config_name,
        repeats=row.repeats,
        seed=row.seed,
        item_ids=tuple(decode_json("runs", run_id, row.item_ids)),
        created_at=row.created_at,
        env={r.key: decode_json("run_env", f"{run_id}/{r.key}", r.value) for r in env_rows},
        affects_results=frozenset(r.key for r in env_rows if r.affects_results),
    )


def retried_slots(conn: Connection, run_id: str) -> dict[tuple[str, int], RetriedSlot]:
    t = schema.trajectories
    rows = conn.execute(
        select(t.c.id, t.c.item_id, t.c.repetition, t.c.attempt, t.c.payload)
        .where(t.c.run_id == run_id, ~newest(t))
        .order_by(t.c.item_id, t.c.repetition, t.c.attempt)
    ).all()
    earlier: dict[tuple[str, int], list[CrashCause]] = {}
    newest_at: dict[tuple[str, int], int] = {}
    for row in rows:
        slot = (row.item_id, row.repetition)
        earlier.setdefault(slot, []).append(cause_of(row.id, row.payload))
        newest_at[slot] = max(newest_at.get(slot, 0), row.attempt + 1)
    return {slot: RetriedSlot(newest_at[slot], tuple(causes))
            for slot, causes in earlier.items()}


def newest_crashes(conn: Connection, run_id: str) -> dict[tuple[str, int], Attempt]:
    t = schema.trajectories
    content = [t.c[c] for c in chain.CONTENT_COLUMNS["trajectories"]]
    rows = conn.execute(
        select(t.c.id, t.c.attempt, *content)
        .where(t.c.run_id == run_id, t.c.crashed, newest(t))
    ).mappings().all()
    # the digest of the row's content (a row sealed at migration has no digest column)
    return {(row["item_id"], row["repetition"]): Attempt(
                row["attempt"] + 1,
                chain.row_digest("trajectories", chain.content_of("trajectories", row)),
                cause_of(row["id"], row["payload"]))
            for row in rows}


def current_scores(
    conn: Connection, run_id: str, item_id: str | None, attempt: int | None
) -> list[ScoreRecord]:
    generation = current_generation(conn, run_id)
    records = legacy_scores(conn, run_id, generation, item_id, attempt)
    sets = schema.score_sets
    which = newest(sets) if attempt is None else sets.c.attempt == attempt
    where = [sets.c.run_id == run_id, sets.c.generation == generation, which]
    if item_id is not None:
        where.append(sets.c.item_id == item_id)
    rows = conn.execute(
        select(sets.c.id, sets.c.item_id, sets.c.repetition, sets.c.scorers,
               sets.c.packed_values, sets.c.details).where(*where)
    ).all()
    for row in rows:
        records.extend(unpacked(*row))
    records.sort(key=ScoreRecord.slot_key)
    return records


def stored_score_columns(conn: Connection, run_id: str, crashes: bool) -> ScoreColumns:
    sets = schema.score_sets
    generation = current_generation(conn, run_id)
    query = (select(sets.c.id, sets.c.item_id, sets.c.repetition, sets.c.scorers,
                    sets.c.packed_values)
             .where(sets.c.run_id == run_id, sets.c.generation == generation,
                    newest(sets)))
    stored = StoredSets.of_batches(batches(conn, query))
    legacy = legacy_scores(conn, run_id, generation, None, None)
    # after the sets: every crashed slot they hold
    crashed = crash_causes(conn, run_id) if crashes else {}
    return score_columns(
        stored,
        [StoredScore(r.item_id, r.repetition, r.scorer, r.scorer_version, r.value,
                     r.imported) for r in legacy],
        crashed,
    )


def stored_outcome(row: Any) -> StoredOutcome:
    return StoredOutcome(
        run_id=row.run_id,
        suite_hash=row.suite_hash,
        config_hash=row.config_hash,
        payload=decode_json("control_outcomes", row.id, row.payload),
        created_at=row.created_at,
        row_id=row.id,
    )


def config_from_json(data: Mapping[str, Any]) -> Config:
    return Config(adapter=data["adapter"], name=data["name"], params=data["params"])


def rebuilt(decoded: Sequence[tuple[int, Any]], bases: BaseStates) -> list[Trajectory]:
    """Decoded trajectory payloads as trajectories, each final state rebuilt on a fresh
    copy of its base."""
    bases.load(base_digests(data for _, data in decoded))

    def build(data: Any) -> Trajectory:
        return Trajectory.from_json(expanded(data, bases.fresh))

    return [built(build, "trajectories", row_id, data) for row_id, data in decoded]


def decoded(build: Any, table: str, row_id: object, text: str) -> Any:
    """Decode a stored payload into its model object, naming the row when it does not fit."""
    return built(build, table, row_id, decode_json(table, row_id, text))


def built(build: Any, table: str, row_id: object, data: Any) -> Any:
    try:
        return build(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AssayError(
            f"{table} row {row_id}: stored payload does not fit its shape "
            f"({type(exc).__name__}: {exc})",
            exit_code=ExitCode.TAMPERED,
        ) from exc


def crash_causes(conn: Connection, run_id: str) -> dict[tuple[str, int], CrashCause]:
    """The cause of each slot of `run_id` whose newest attempt crashed: only crashed rows
    are decoded, and only their meta is read (a payload's final state may be stored as a
    delta; meta never is)."""
    t = schema.trajectories
    rows = conn.execute(select(t.c.id, t.c.item_id, t.c.repetition, t.c.payload)
                        .where(t.c.run_id == run_id, t.c.crashed, newest(t))).all()
    return {(row.item_id, row.repetition): cause_of(row.id, row.payload) for row in rows}


def cause_of(row_id: int, payload: str) -> CrashCause:
    """Whose crash the stored trajectory records (the agent's when it records none)."""
    data = decode_json("trajectories", row_id, payload)
    meta = data.get("meta") if isinstance(data, dict) else None
    return crash_cause_in(meta if isinstance(meta, dict) else {})


def newest(table: Table) -> ColumnElement[bool]:
    """Rows of `table` (trajectories, score sets or score rows) of the newest attempt at
    their slot: no trajectory of the same slot has a later attempt. What every figure reads;
    a score row (stored before attempts were numbered) is of attempt 1. A probe of the slot
    index per row."""
    later = schema.trajectories.alias("later")
    attempt = table.c.attempt if "attempt" in table.c else literal(1)
    return ~exists().where(later.c.run_id == table.c.run_id,
                           later.c.item_id == table.c.item_id,
                           later.c.repetition == table.c.repetition,
                           later.c.attempt > attempt)


def legacy_scores(
    conn: Connection, run_id: str, generation: int, item_id: str | None, attempt: int | None
) -> list[ScoreRecord]:
    """The `generation` rows of a run stored a row per score (before schema 4): of the
    slots whose newest attempt they score, or with `attempt`, of that attempt (they all
    score a first attempt).

    Inside a generation the database allows one row per (trajectory, scorer); rows sealed
    from an older store may repeat, and there the newest sealed row counts.
    """
    table = schema.scores
    if attempt not in (None, 1):
        return []
    which = newest(table) if attempt is None else literal(True)
    where = [table.c.run_id == run_id, table.c.generation == generation, which]
    if item_id is not None:
        where.append(table.c.item_id == item_id)
    newest_ids = (
        select(func.max(table.c.id))
        .where(*where)
        .group_by(table.c.item_id, table.c.repetition, table.c.scorer)
    )
    c = table.c  # only what a ScoreRecord holds
    rows = conn.execute(
        select(c.id, c.item_id, c.repetition, c.scorer, c.scorer_version, c.value,
               c.detail, c.imported)
        .where(c.id.in_(newest_ids))
    ).all()
    # unpacked by position: named access on 100,000s of rows costs a second
    return [
        ScoreRecord(item_id, repetition, scorer, version, value,
                    decode_json("scores", row_id, detail), bool(imported))
        for row_id, item_id, repetition, scorer, version, value, detail, imported in rows
    ]


def unpacked(
    row_id: int, item_id: str, repetition: int, scorers: str, packed: str, details: str | None
) -> list[ScoreRecord]:
    """The records of one stored score set."""
    where = f"score_sets row {row_id}"
    columns = score_pack.scorer_columns(where, scorers)
    values = score_pack.values_of(where, packed, len(columns))
    notes = score_pack.details_of(where, details, len(columns))
    return [
        ScoreRecord(item_id, repetition, c.name, c.version, value, note, c.imported)
        for c, value, note in zip(columns, values, notes, strict=True)
    ]


def current_generation(conn: Connection, run_id: str) -> int:
    table = schema.score_generations
    value = conn.execute(
        select(func.max(table.c.generation)).where(table.c.run_id == run_id)
    ).scalar()
    return int(value or 0)
