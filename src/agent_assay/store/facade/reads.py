"""How the store reads its domain rows back: queries on the caller's connection, each row
decoded into its model object or record, a row that does not decode or fit named. The
`Store` facade chooses the connection (see `Store.reading`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table, exists, func, literal, select
from sqlalchemy.sql.expression import ColumnElement

from agent_assay.errors import AssayError, TamperedEvidence
from agent_assay.model import Config, CrashCause, Item, Run, Suite, Trajectory, crash_cause_in
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
from agent_assay.store.facade.run_ids import chosen_run_id
from agent_assay.store.records import Attempt, RetriedSlot, RunEvent, ScoreRecord, StoredOutcome

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


def suite_rows(conn: Connection, suite_hash: str) -> tuple[Any, list[Any]]:
    """The suite's row and its items' rows in position order; refused when not stored."""
    head = conn.execute(
        select(schema.suites).where(schema.suites.c.suite_hash == suite_hash)
    ).first()
    if head is None:
        raise AssayError(f"unknown suite hash: {suite_hash}")
    rows = conn.execute(
        select(schema.items.c.item_id, schema.items.c.payload)
        .where(schema.items.c.suite_hash == suite_hash)
        .order_by(schema.items.c.position)
    ).all()
    return head, list(rows)


def suite_of(suite_hash: str, head: Any, rows: Sequence[Any]) -> Suite:
    items = tuple(decoded(Item.from_json, "items", r.item_id, r.payload) for r in rows)
    suite = Suite(adapter=head.adapter, items=items, source=head.source)
    if suite.suite_hash != suite_hash:
        raise AssayError(
            f"suite {suite_hash} in the store no longer hashes to its hash: an item was "
            "edited after it was stored (`agent-assay verify` names it)"
        )
    return suite


def config_payload(conn: Connection, config_hash: str) -> Any:
    return conn.execute(
        select(schema.configs.c.payload).where(schema.configs.c.config_hash == config_hash)
    ).scalar()


def config_of(config_hash: str, payload: Any) -> Config:
    if payload is None:
        raise AssayError(f"unknown config hash: {config_hash}")
    config: Config = decoded(config_from_json, "configs", config_hash, payload)
    if config.config_hash != config_hash:
        raise AssayError(
            f"config {config_hash} in the store no longer hashes to its hash: it was "
            "edited after it was stored (`agent-assay verify` names it)"
        )
    return config


def run_rows(conn: Connection, run_id: str) -> tuple[Any, list[Any]]:
    """The row of the run `run_id` names (its id or a unique prefix, `run_ids` has the
    rules) and its environment's rows."""
    runs = schema.runs
    row = conn.execute(select(runs).where(runs.c.run_id == run_id)).first()
    if row is None:
        starting = func.substr(runs.c.run_id, 1, len(run_id)) == run_id
        found = conn.execute(select(runs.c.run_id).where(starting)).scalars().all()
        run_id = chosen_run_id(run_id, found)
        row = conn.execute(select(runs).where(runs.c.run_id == run_id)).one()
    env_rows = conn.execute(
        select(schema.run_env).where(schema.run_env.c.run_id == run_id)
    ).all()
    return row, list(env_rows)


def run_ids(conn: Connection) -> list[str]:
    return list(
        conn.execute(select(schema.runs.c.run_id).order_by(schema.runs.c.created_at))
        .scalars()
        .all()
    )


def events(conn: Connection, run_id: str) -> list[RunEvent]:
    rows = conn.execute(
        select(schema.run_events)
        .where(schema.run_events.c.run_id == run_id)
        .order_by(schema.run_events.c.id)
    ).all()
    return [RunEvent(r.event, decode_json("run_events", r.id, r.detail), r.at) for r in rows]


def trajectory_filter(
    run_id: str, repetition: int | None, attempt: int | None
) -> list[ColumnElement[bool]]:
    """Which trajectory rows a reader takes: the run's, the newest attempt of each slot (or
    that `attempt`), only repetition `repetition` if given."""
    table = schema.trajectories
    where = [table.c.run_id == run_id]
    where.append(newest(table) if attempt is None else table.c.attempt == attempt)
    if repetition is not None:
        where.append(table.c.repetition == repetition)
    return where


def items_with_trajectories(conn: Connection, where: Sequence[ColumnElement[bool]]) -> list[str]:
    table = schema.trajectories
    return list(conn.execute(select(table.c.item_id).distinct().where(*where)
                             .order_by(table.c.item_id)).scalars())


def item_payloads(
    conn: Connection, where: Sequence[ColumnElement[bool]], item: str
) -> list[tuple[int, Any]]:
    """The decoded payloads of `item`'s trajectory rows `where` takes, in repetition order,
    each with its row id."""
    table = schema.trajectories
    query = (select(table.c.id, table.c.payload).where(*where, table.c.item_id == item)
             .order_by(table.c.run_id, table.c.item_id, table.c.repetition))
    return [(row_id, decode_json("trajectories", row_id, payload))
            for batch in batches(conn, query)
            for row_id, payload in batch]


def trajectory_count(conn: Connection, run_id: str) -> int:
    t = schema.trajectories
    return int(conn.execute(select(func.count()).select_from(t)
                            .where(t.c.run_id == run_id, newest(t))).scalar_one())


def trajectory_counts(conn: Connection, run_id: str) -> tuple[int, int]:
    t = schema.trajectories
    row = conn.execute(
        select(func.count(), func.count().filter(t.c.crashed))
        .where(t.c.run_id == run_id, newest(t))
    ).one()
    return int(row[0]), int(row[1])


def attempt_count(conn: Connection, run_id: str, item_id: str, repetition: int) -> int:
    t = schema.trajectories
    found = conn.execute(
        select(func.max(t.c.attempt)).where(
            t.c.run_id == run_id, t.c.item_id == item_id, t.c.repetition == repetition)
    ).scalar()
    return int(found or 0)


def stored_per_item(conn: Connection, run_id: str) -> dict[str, int]:
    t = schema.trajectories
    rows = conn.execute(select(t.c.item_id, func.count())
                        .where(t.c.run_id == run_id, newest(t))
                        .group_by(t.c.item_id)).all()
    return {str(item_id): int(n) for item_id, n in rows}


def stored_slots(conn: Connection, run_id: str) -> set[tuple[str, int]]:
    rows = conn.execute(
        select(schema.trajectories.c.item_id, schema.trajectories.c.repetition).where(
            schema.trajectories.c.run_id == run_id
        )
    ).all()
    return {(r.item_id, r.repetition) for r in rows}


def newest_slots(conn: Connection, run_id: str) -> dict[tuple[str, int], tuple[int, int]]:
    """Each slot's newest attempt: its trajectory row id and attempt number."""
    t = schema.trajectories
    return {
        (r.item_id, r.repetition): (r.id, r.attempt)
        for r in conn.execute(
            select(t.c.id, t.c.item_id, t.c.repetition, t.c.attempt)
            .where(t.c.run_id == run_id, newest(t))
        )
    }


def generation_scorers(conn: Connection, run_id: str) -> list[dict[str, Any]] | None:
    table = schema.score_generations
    row = conn.execute(
        select(table.c.generation, table.c.scorers)
        .where(table.c.run_id == run_id)
        .order_by(table.c.generation.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    return list(decode_json("score_generations", f"{run_id}/{row.generation}", row.scorers))


def outcome_rows(conn: Connection, *where: ColumnElement[bool]) -> list[Any]:
    table = schema.control_outcomes
    return list(conn.execute(select(table).where(*where).order_by(table.c.id)).all())


def mutation_payloads(conn: Connection, run_id: str) -> list[Any]:
    table = schema.mutation_results
    rows = conn.execute(
        select(table.c.id, table.c.payload).where(table.c.run_id == run_id).order_by(
            table.c.id
        )
    ).all()
    return [decode_json("mutation_results", r.id, r.payload) for r in rows]


def packed_length(conn: Connection) -> int:
    """The length of every score set's packed values, summed over the store."""
    sets = schema.score_sets
    return int(conn.execute(
        select(func.coalesce(func.sum(func.length(sets.c.packed_values)), 0))
    ).scalar_one())


def count_rows(conn: Connection, table: str) -> int:
    return int(
        conn.execute(
            select(func.count()).select_from(schema.metadata.tables[table])
        ).scalar_one()
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


def stored_score_columns(
    conn: Connection, run_id: str,
    crashed: Callable[[], Mapping[tuple[str, int], CrashCause]] | None,
    read: Mapping[int, StoredSets] | None = None,
) -> ScoreColumns:
    """The run's current scores as columns, with the crashed slots and their causes that
    `crashed` reads (`crash_causes`, or none when it is None). `read`: the run's score
    sets by generation, already read in this snapshot with no slot holding a later
    attempt (`ChainCheck.sets`), instead of reading the current generation's again."""
    sets = schema.score_sets
    generation = current_generation(conn, run_id)
    query = (select(sets.c.id, sets.c.item_id, sets.c.repetition, sets.c.scorers,
                    sets.c.packed_values)
             .where(sets.c.run_id == run_id, sets.c.generation == generation,
                    newest(sets)))
    stored = (StoredSets.of_batches(batches(conn, query)) if read is None
              else read.get(generation, StoredSets([], [], [], [], [])))
    legacy = legacy_scores(conn, run_id, generation, None, None)
    # after the sets: every crashed slot they hold
    crashes = crashed() if crashed is not None else {}
    return score_columns(
        stored,
        [StoredScore(r.item_id, r.repetition, r.scorer, r.scorer_version, r.value,
                     r.imported) for r in legacy],
        crashes,
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
        raise TamperedEvidence(
            f"{table} row {row_id}: stored payload does not fit its shape "
            f"({type(exc).__name__}: {exc})"
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
