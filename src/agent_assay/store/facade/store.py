"""Reads and appends. There is no update or delete method, and the triggers refuse them anyway.

Every append to a run is one ledger block (see `chain`): the run's creation,
each event, each trajectory with its scores, a re-scoring, a control outcome,
a mutation pass. A trajectory and its scores are one block and one
transaction, so a crash never leaves a trajectory without its scores.

Scores come in generations. Generation 0 is written with the trajectories; a
re-scoring that changes anything records generation g+1 and writes a full set
of rows for it. The database refuses a second row for a (trajectory, scorer)
inside one generation and any row of a generation never recorded, and readers
take the run's current generation only: there is no "newest row wins".

Attempts are the one exception, and a recorded one: a crashed slot run again
(`run --resume --retry`) gets a second trajectory beside the first, numbered, whose
block names the crashed row it runs again. Every reader takes the newest attempt of
each slot (`_newest`); the earlier ones are read only when asked for by number.
"""

from __future__ import annotations

import functools
import itertools
import json
import sqlite3
import uuid
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, Table, exists, func, inspect, literal, select
from sqlalchemy.exc import DatabaseError, DBAPIError
from sqlalchemy.sql.expression import ColumnElement

from agent_assay.errors import AssayError
from agent_assay.exitcodes import ExitCode
from agent_assay.hashing import STATE, canonical_hash, canonical_json
from agent_assay.model import Config, CrashCause, Item, Run, Suite, Trajectory, crash_cause_in
from agent_assay.store.database import migrations, schema
from agent_assay.store.database.damage import quick_check
from agent_assay.store.database.engine import Access, make_engine, release, shown, store_path
from agent_assay.store.database.postgres import connect_reason, is_server_url
from agent_assay.store.encoding import chain, score_pack
from agent_assay.store.encoding.prepared import PreparedTrajectory, prepare
from agent_assay.store.encoding.score_columns import (
    ScoreColumns,
    StoredScore,
    StoredSets,
    score_columns,
)
from agent_assay.store.encoding.score_pack import PackedScores, pack_records
from agent_assay.store.encoding.state_blobs import BaseStates, StateEncoder, base_digests, expanded
from agent_assay.store.facade.run_ids import check_run_id, chosen_run_id
from agent_assay.store.records import (
    OPENING_EVENTS,
    SESSION_EVENTS,
    TERMINAL_EVENTS,
    Attempt,
    Head,
    LedgerEntry,
    RetriedSlot,
    RunEvent,
    ScoreRecord,
    StoredOutcome,
    StoredRows,
)


def now() -> str:
    return datetime.now(UTC).isoformat()


def decode_json(table: str, row_id: object, text: str | None) -> Any:
    """Decode a stored JSON column; a row that does not decode is named, not a traceback."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise AssayError(
            f"{table} row {row_id}: stored JSON does not decode ({exc})",
            exit_code=ExitCode.TAMPERED,
        ) from exc


def _score_set_content(
    run_id: str, item_id: str, repetition: int, generation: int, packed: PackedScores | None
) -> tuple[Any, ...] | None:
    """The content of one score set row, in `chain.CONTENT_COLUMNS` order; None when the
    trajectory has no score to store."""
    if packed is None:
        return None
    return (run_id, item_id, repetition, generation, packed.scorers, packed.packed_values,
            packed.details)


def _stored_outcome(row: Any) -> StoredOutcome:
    return StoredOutcome(
        run_id=row.run_id,
        suite_hash=row.suite_hash,
        config_hash=row.config_hash,
        payload=decode_json("control_outcomes", row.id, row.payload),
        created_at=row.created_at,
        row_id=row.id,
    )


_PINNED: weakref.WeakSet[Store] = weakref.WeakSet()
"""Pinned stores still open: `close_pinned` ends their snapshots."""


def close_pinned() -> None:
    """End every pinned store's read transaction (the CLI does at the end of a command):
    a snapshot held open keeps SQLite from checkpointing what writers append meanwhile."""
    for store in list(_PINNED):
        store.close()


class Store:
    """The only door to the database."""

    def __init__(self, engine: Engine, *, pinned: bool = False) -> None:
        self.engine = engine
        self._pinned = pinned
        self._pin: Connection | None = None
        """With `pinned`, the one connection every read goes through, inside one read
        transaction held until `close`: see `reading`."""
        self._unpin: weakref.finalize[[], Store] | None = None
        if pinned:
            _PINNED.add(self)
        self._writer: Connection | None = None
        self._states = StateEncoder()
        self._bases_written: set[str] = set()
        """Base states this store has seen committed (a digest each: memory stays small)."""

    def _writer_connection(self) -> Connection:
        """One long-lived connection for the per-trajectory hot path (no pool round trip)."""
        if self._writer is None or self._writer.closed:
            self._writer = self.engine.connect()
        return self._writer

    def close(self) -> None:
        if self._unpin is not None:
            self._unpin()  # closes the pinned connection, which rolls its transaction back
            self._unpin = None
            self._pin = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        release(self.engine)

    # ---- the chain ---------------------------------------------------------
    def head(self, run_id: str) -> Head | None:
        with self.reading() as conn:
            return _head(conn, run_id)

    @contextmanager
    def tolerant_connection(self, conn: Connection | None = None) -> Iterator[Connection]:
        """A connection (`conn` when given, else a new one) on which text that is not valid
        UTF-8 reads back (with surrogate escapes) instead of raising: checkers must see a
        damaged row to name it."""
        with self._reader(conn) as reader:
            raw = reader.connection.driver_connection
            if not isinstance(raw, sqlite3.Connection):
                yield reader
                return
            raw.text_factory = _tolerant_text
            try:
                yield reader
            finally:
                raw.text_factory = str

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection to read on: a pinned store's one snapshot, else a fresh connection.

        A store opened for a command that only reads (report, compare, verify, export) is
        pinned: its first read opens one read transaction and every later read, through
        any method, sees the state that transaction saw. A writer appending meanwhile can
        never make one check see a trajectory without its scores, a complete event without
        its slots, or a certificate without the rows it judged."""
        with self._reader(None) as conn:
            yield conn

    @contextmanager
    def _reader(self, conn: Connection | None) -> Iterator[Connection]:
        if conn is not None:
            yield conn
            return
        if self._pinned:
            if self._pin is None:
                self._pin = self._pinned_snapshot()
                # a store dropped without `close` still ends its snapshot when collected, and
                # lets its engine go (a reader leaves no side file behind: `release`)
                self._unpin = weakref.finalize(
                    self, functools.partial(_unpinned, self._pin, self.engine))
            yield self._pin
            return
        with self.engine.connect() as fresh:
            yield fresh

    @contextmanager
    def snapshot(self) -> Iterator[Connection | None]:
        """One read transaction: every read made on it sees the same committed state, so a
        check made while a writer appends never sees a block's rows without its entry (or
        the reverse). On PostgreSQL a REPEATABLE READ transaction, which the driver begins
        at the first read; on SQLite a deferred one (which `append_to_snapshot` may turn
        into a write). On a pinned store, the store's own snapshot."""
        if self._pinned:
            with self.reading() as pin:
                yield pin
            return
        if not self.embedded:
            with self.engine.connect() as server:
                yield server.execution_options(isolation_level="REPEATABLE READ")
            return
        with self.engine.connect() as conn:
            raw = conn.connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            raw.execute("BEGIN")
            try:
                yield conn
            finally:
                if raw.in_transaction:
                    raw.execute("ROLLBACK")

    def _pinned_snapshot(self) -> Connection:
        """The read transaction of a pinned store, begun as the engine begins one (a
        deferred BEGIN on a read-only SQLite engine), so reads through SQLAlchemy and
        through the raw cursor alike stay inside it."""
        conn = self.engine.connect()
        if not self.embedded:
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        conn.begin()
        return conn

    def ledger(
        self, run_id: str, after: int | None = None, conn: Connection | None = None
    ) -> list[LedgerEntry]:
        """The run's blocks in order (read on `conn` when given); only those after block
        `after` when it is given."""
        table = schema.ledger
        query = select(*(table.c[c] for c in _LEDGER_FIELDS)).where(table.c.run_id == run_id)
        if after is not None:
            query = query.where(table.c.seq > after)
        return [LedgerEntry(*row) for row in self.read_raw(query.order_by(table.c.seq), conn)]

    def first_block(
        self, run_id: str, kind: str, conn: Connection | None = None
    ) -> LedgerEntry | None:
        """The run's earliest block of `kind` (read on `conn` when given), or None."""
        table = schema.ledger
        query = (select(*(table.c[c] for c in _LEDGER_FIELDS))
                 .where(table.c.run_id == run_id, table.c.kind == kind)
                 .order_by(table.c.seq).limit(1))
        found = list(self.read_raw(query, conn))
        return LedgerEntry(*found[0]) if found else None

    def chained_rows(
        self, table: str, run_id: str, after: int | None = None, conn: Connection | None = None
    ) -> StoredRows:
        """Every stored row of `table` for `run_id` (only those joined to a block after
        `after`, or whose block column is not a number, when it is given), raw (no
        decoding), streamed in batches so a run of any size is re-hashed in bounded memory
        (on `conn` when given). Rows come in a fixed order: a table that grows with a run
        in its slot index's (no sort on the way), the rest by id or block."""
        t = schema.metadata.tables[table]
        content = chain.CONTENT_COLUMNS[table]
        rest = [c.name for c in t.columns if c.name not in (*content, "block", "digest")]
        columns = (*content, "block", "digest", *rest)
        order = _READ_ORDER.get(table, ("id",) if "id" in t.c else ("block",))
        query = select(*(t.c[c] for c in columns)).where(t.c.run_id == run_id)
        if after is not None:
            query = query.where(t.c.block > after)
        return StoredRows(columns, self.read_raw(query.order_by(*(t.c[c] for c in order)), conn))

    @property
    def embedded(self) -> bool:
        """An SQLite store (the stream a checkpoint digests is SQLite's; see `checkpoint`)."""
        return self.engine.dialect.name == "sqlite"

    def append_checkpoint(
        self, run_id: str, claim: Callable[[Connection, Head], Mapping[str, Any] | None]
    ) -> Head | None:
        """Append a checkpoint block whose detail `claim` makes, or nothing when it returns
        None. `claim` is handed the write transaction's connection and the head: what it
        reads on that connection cannot change before the block is in."""
        with self.engine.begin() as conn:
            head = _head(conn, run_id)
            detail = claim(conn, head) if head is not None else None
            if detail is None:
                return None
            return self._append_block(conn, run_id, "checkpoint", detail, [])

    def append_to_snapshot(
        self, snapshot: Connection, run_id: str, head: Head, kind: str, detail: Mapping[str, Any]
    ) -> Head | None:
        """Append a block with no rows after `head` on `snapshot` (a `snapshot()`'s
        connection) and commit it, or return None and write nothing.

        SQLite turns a read transaction into a write only while nothing was committed
        since it began, so a block appended here follows exactly the state read in the
        snapshot; when another connection wrote since, or is writing now, SQLite refuses
        at once and the caller decides what to do instead.
        """
        raw = snapshot.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        seq = head.seq + 1
        detail_json = canonical_json({**detail, "rows": {}})  # as `_append_block` words it
        digest = chain.block_digest(run_id, seq, kind, head.digest, detail_json, [])
        entry = (run_id, seq, kind, detail_json, head.digest, digest, now())
        try:
            raw.execute(_hot_path_sql("qmark").ledger, entry)
            raw.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                raise
            return None  # still the read transaction, which `snapshot` rolls back
        return Head(seq, digest)

    def read_raw(self, query: Any, conn: Connection | None = None) -> Iterator[tuple[Any, ...]]:
        """The rows of `query`, streamed, as the driver's tuples; on `conn` when it is given
        (inside its transaction). Text is decoded the fast way; should a value not be UTF-8
        (a damaged store), the query is read again with tolerant decoding from the row where
        the fast read stopped (on `conn` too), so checkers still see, and can name, the damaged
        row."""
        return itertools.chain.from_iterable(self._tolerant_batches(query, conn))

    def _tolerant_batches(
        self, query: Any, conn: Connection | None
    ) -> Iterator[Sequence[tuple[Any, ...]]]:
        done = 0  # a batch is fetched whole or raises: none of a failed one was handed out
        try:
            with self._reader(conn) as reader:
                for batch in self._batches(reader, query):
                    yield batch
                    done += len(batch)
            return
        except DBAPIError as exc:
            if not _undecodable(exc):
                raise
        with self.tolerant_connection(conn) as tolerant:
            for batch in self._batches(tolerant, query):
                if done >= len(batch):
                    done -= len(batch)
                    continue
                yield batch[done:]
                done = 0

    @staticmethod
    def _batches(conn: Connection, query: Any) -> Iterator[Sequence[tuple[Any, ...]]]:
        """The driver's own tuples in batches, read straight from its cursor: no row objects
        and no type processing (a boolean reads back as the 0 or 1 it is stored as, which the
        chain encodes alike). Driver errors are raised as SQLAlchemy's, as any other read's."""
        compiled = query.compile(dialect=conn.dialect)
        params = compiled.construct_params()
        args = tuple(params[name] for name in compiled.positiontup or ()) \
            if compiled.positional else params
        statement = str(compiled)
        cursor = conn.connection.cursor()
        try:
            cursor.execute(statement, args)
            while batch := cursor.fetchmany(_STREAM_BATCH):
                yield batch
        except conn.dialect.loaded_dbapi.Error as exc:
            raise DBAPIError.instance(statement, args, exc,
                                      conn.dialect.loaded_dbapi.Error) from exc
        finally:
            cursor.close()

    def _append_block(
        self,
        conn: Connection,
        run_id: str,
        kind: str,
        detail: Mapping[str, Any],
        rows: Sequence[tuple[Table, dict[str, Any]]],
    ) -> Head:
        """Append one block to `run_id`'s chain inside the caller's transaction.

        Each row is given its digest and block number, the block's digest covers them
        all and the previous block's digest, and the ledger entry goes in first so the
        database's guards see the block its rows join.
        """
        previous = _head(conn, run_id)
        seq = previous.seq + 1 if previous else 1
        prev = previous.digest if previous else chain.GENESIS
        digests: list[str] = []
        for table, values in rows:
            digest = chain.row_digest(table.name, chain.content_of(table.name, values))
            values["block"], values["digest"] = seq, digest
            digests.append(digest)
        counts = Counter(table.name for table, _ in rows)
        detail_json = canonical_json({**detail, "rows": dict(sorted(counts.items()))})
        digest = chain.block_digest(run_id, seq, kind, prev, detail_json, digests)
        conn.execute(
            schema.ledger.insert().values(
                run_id=run_id,
                seq=seq,
                kind=kind,
                detail=detail_json,
                prev_digest=prev,
                digest=digest,
                at=now(),
            )
        )
        for table in dict.fromkeys(table for table, _ in rows):
            conn.execute(table.insert(), [values for t, values in rows if t is table])
        return Head(seq, digest)

    # ---- suites, configs -------------------------------------------------
    def put_suite(self, suite: Suite) -> str:
        """Store a suite and its items unless that hash is already stored; return the hash."""
        suite_hash = suite.suite_hash
        with self.engine.begin() as conn:
            exists = conn.execute(
                select(schema.suites.c.suite_hash).where(schema.suites.c.suite_hash == suite_hash)
            ).first()
            if exists:
                return suite_hash
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
        return suite_hash

    def get_suite(self, suite_hash: str) -> Suite:
        with self.reading() as conn:
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
        items = tuple(_decoded(Item.from_json, "items", r.item_id, r.payload) for r in rows)
        suite = Suite(adapter=head.adapter, items=items, source=head.source)
        if suite.suite_hash != suite_hash:
            raise AssayError(
                f"suite {suite_hash} in the store no longer hashes to its hash: an item was "
                "edited after it was stored (`agent-assay verify` names it)"
            )
        return suite

    def put_config(self, config: Config) -> str:
        config_hash = config.config_hash
        with self.engine.begin() as conn:
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
        return config_hash

    def get_config(self, config_hash: str) -> Config:
        with self.reading() as conn:
            payload = conn.execute(
                select(schema.configs.c.payload).where(schema.configs.c.config_hash == config_hash)
            ).scalar()
        if payload is None:
            raise AssayError(f"unknown config hash: {config_hash}")
        config: Config = _decoded(_config_from_json, "configs", config_hash, payload)
        if config.config_hash != config_hash:
            raise AssayError(
                f"config {config_hash} in the store no longer hashes to its hash: it was "
                "edited after it was stored (`agent-assay verify` names it)"
            )
        return config

    # ---- runs ------------------------------------------------------------
    def create_run(
        self,
        *,
        adapter: str,
        suite_hash: str,
        config_hash: str,
        config_name: str,
        repeats: int,
        seed: int,
        item_ids: Sequence[str],
        env: Mapping[str, Any],
        affects_results: Iterable[str],
        started: Mapping[str, Any] | None = None,
        run_id: str | None = None,
    ) -> Run:
        """Create a run: its row, its environment and its `started` event, as block 1."""
        run_id = run_id or uuid.uuid4().hex
        created = now()
        affects = frozenset(affects_results)
        rows: list[tuple[Table, dict[str, Any]]] = [
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
            (schema.run_events, _event_row(run_id, "started", started or {})),
        ]
        with self.engine.begin() as conn:
            self._append_block(conn, run_id, "run", {}, rows)
        return self.get_run(run_id)

    def get_run(self, run_id: str) -> Run:
        """The run named by its id or by a unique prefix of it (`run_ids` has the rules);
        every run id a person types is resolved here."""
        check_run_id(run_id)
        runs = schema.runs
        with self.reading() as conn:
            row = conn.execute(select(runs).where(runs.c.run_id == run_id)).first()
            if row is None:
                starting = func.substr(runs.c.run_id, 1, len(run_id)) == run_id
                found = conn.execute(select(runs.c.run_id).where(starting)).scalars().all()
                run_id = chosen_run_id(run_id, found)
                row = conn.execute(select(runs).where(runs.c.run_id == run_id)).one()
            env_rows = conn.execute(
                select(schema.run_env).where(schema.run_env.c.run_id == run_id)
            ).all()
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

    def run_ids(self) -> list[str]:
        with self.reading() as conn:
            return list(
                conn.execute(select(schema.runs.c.run_id).order_by(schema.runs.c.created_at))
                .scalars()
                .all()
            )

    def list_runs(self) -> list[Run]:
        return [self.get_run(run_id) for run_id in self.run_ids()]

    def append_event(self, run_id: str, event: str, detail: Mapping[str, Any]) -> Head:
        """Append an event as its own block; a terminal event records the head it closes on."""
        with self.engine.begin() as conn:
            if event in TERMINAL_EVENTS:
                head = _head(conn, run_id)
                detail = {**detail, "head": head.to_json() if head else None}
            return self._append_block(
                conn,
                run_id,
                "event",
                {"event": event},
                [(schema.run_events, _event_row(run_id, event, detail))],
            )

    def claim_run(
        self, run_id: str, writer: Mapping[str, Any], busy: Callable[[object], str | None]
    ) -> Head:
        """Become `run_id`'s writer. In one write transaction: find the event that opened
        the newest writing session; unless `busy`, given its detail, names a writer still
        at work, append a `resumed` event naming `writer`. Two processes resuming one run
        are serialised by the transaction, so exactly one wins."""
        events = schema.run_events
        with self.engine.begin() as conn:
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
            row = _event_row(run_id, "resumed", {"writer": dict(writer)})
            return self._append_block(
                conn, run_id, "event", {"event": "resumed"}, [(events, row)]
            )

    def manifest(self, run_id: str) -> dict[str, Any]:
        """The run's manifest (its `started` event), with the scorer set of its current
        scoring generation: what the stored numbers mean now."""
        started = next((e.detail for e in self.events(run_id) if e.event == "started"), {})
        rescored = self.generation_scorers(run_id)
        return {**started, "scorers": rescored} if rescored is not None else dict(started)

    def events(self, run_id: str) -> list[RunEvent]:
        with self.reading() as conn:
            rows = conn.execute(
                select(schema.run_events)
                .where(schema.run_events.c.run_id == run_id)
                .order_by(schema.run_events.c.id)
            ).all()
        return [RunEvent(r.event, decode_json("run_events", r.id, r.detail), r.at) for r in rows]

    # ---- trajectories and scores ------------------------------------------
    def write_trajectory(
        self, run_id: str, trajectory: Trajectory, scores: Sequence[ScoreRecord]
    ) -> int:
        """Append a trajectory and its scores as one block, atomically; return its row id."""
        return self.write_trajectories(run_id, [(trajectory, scores)])[0]

    def write_trajectories(
        self,
        run_id: str,
        scored: Sequence[tuple[Trajectory, Sequence[ScoreRecord]]],
        attempts: Mapping[tuple[str, int], Attempt] | None = None,
    ) -> list[int]:
        """Append trajectories with their scores, each its own block, in one transaction
        (see `write_prepared_group`, and for `attempts` there); return their row ids.

        A row may name a base state an earlier row of the group brings: the encoder is
        told of each base as its row is prepared. If the group is refused, the encoder
        starts afresh, so no later row names a base that was rolled back.
        """
        group = []
        for trajectory, scores in scored:
            prepared, encoded = prepare(self._states, run_id, trajectory, scores)
            self._states.stored(run_id, encoded)
            group.append(prepared)
        try:
            return self.write_prepared_group(run_id, group, attempts)
        except BaseException:
            self._states = StateEncoder()
            raise

    def write_prepared_group(
        self,
        run_id: str,
        group: Sequence[PreparedTrajectory],
        attempts: Mapping[tuple[str, int], Attempt] | None = None,
    ) -> list[int]:
        """Append prepared trajectories, each with its scores as its own block, in one
        transaction; return their row ids. One commit serves the group, which is how the
        writer keeps up with several agent processes (a scoring process hands over a batch);
        each trajectory stays all-or-nothing, all are durable when this returns, and if one
        is refused none of the group is stored (its slots run again on resume).

        This is the hot path of every run, so it uses the driver's cursor inside the
        SQLAlchemy transaction with fixed statements (no per-call compilation). The
        scores join the run's current scoring generation, read inside the transaction.
        A base state this store has not written yet is stored with the row (see
        `_store_base`): no trajectory row names a base that is not stored. A slot that
        `attempts` names is stored as that attempt at it, the crashed one it runs again
        staying where it is.
        """
        conn = self._writer_connection()
        sql = _hot_path_sql(conn.dialect.paramstyle)
        again = attempts or {}
        with conn.begin():
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            ids = [self._append_prepared(cursor, sql, run_id, prepared,
                                         again.get((prepared.item_id, prepared.repetition)))
                   for prepared in group]
            cursor.close()
        self._bases_written.update(p.state for p in group if p.state is not None)
        return ids

    def _append_prepared(
        self,
        cursor: Any,
        sql: _HotPathSQL,
        run_id: str,
        prepared: PreparedTrajectory,
        attempt: Attempt | None,
    ) -> int:
        """One trajectory's block, rows and (first named) base, inside the caller's
        transaction; its row id. An `attempt` after the first is recorded in the block:
        its number, and the digest and crash cause of the row it runs again."""
        created = now()
        item_id, repetition = prepared.item_id, prepared.repetition
        t_content = (run_id, item_id, repetition, prepared.crashed, prepared.payload, created)
        t_digest = chain.row_digest("trajectories", t_content)
        cursor.execute(sql.head, (run_id, run_id))
        last, prev, generation = cursor.fetchone()
        seq, prev = (last + 1, prev) if last is not None else (1, chain.GENESIS)
        generation = generation or 0
        score_set = _score_set_content(run_id, item_id, repetition, generation,
                                       prepared.score_set)
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
        cursor.execute(sql.ledger, (run_id, seq, "trajectory", detail, prev, digest, created))
        if prepared.state is not None and prepared.state not in self._bases_written:
            self._store_base(cursor, sql, prepared)  # a repeat in one group is a no-op insert
        cursor.execute(sql.trajectory, (*t_content, seq, t_digest, number))
        trajectory_id = int(cursor.fetchone()[0])
        if score_set is not None:
            cursor.execute(sql.score_set, (trajectory_id, *score_set, seq, set_digest, number))
        return trajectory_id

    @staticmethod
    def _store_base(cursor: Any, sql: _HotPathSQL, prepared: PreparedTrajectory) -> None:
        """Store the base state `prepared` names, which this store has not written yet:
        from the row's own copy, once it hashes to its name, or else it must be there."""
        where = f"trajectory {prepared.item_id}/{prepared.repetition}"
        digest = str(prepared.state)
        if prepared.blob is not None:
            if prepared.blob[0] != digest or canonical_hash(STATE, prepared.blob[1]) != digest:
                raise AssayError(f"{where}: its base state does not hash to {digest[:16]}")
            cursor.execute(sql.state_blob, prepared.blob)
            return
        cursor.execute(sql.state_known, (digest,))
        if cursor.fetchone() is None:
            raise AssayError(f"{where} names base state {digest[:16]}, which is not stored")

    def trajectories(
        self,
        run_id: str,
        item_id: str | None = None,
        repetition: int | None = None,
        attempt: int | None = None,
    ) -> list[Trajectory]:
        """The run's trajectories in (item, repetition) order, the newest attempt of each
        slot; only `item_id`'s, only repetition `repetition` and that `attempt` if given."""
        return [t for _, group in self.trajectories_by_item(run_id, item_id, repetition,
                                                            attempt)
                for t in group]

    def trajectories_by_item(
        self,
        run_id: str,
        item_id: str | None = None,
        repetition: int | None = None,
        attempt: int | None = None,
    ) -> Iterator[tuple[str, list[Trajectory]]]:
        """The run's trajectories an item at a time, items in id order, each item's in
        repetition order: a caller walking a large run holds one item's. No connection
        stays open while the caller works on an item (it may write in between). The
        newest attempt of each slot, or with `attempt`, that attempt."""
        table = schema.trajectories
        where = [table.c.run_id == run_id]
        where.append(_newest(table) if attempt is None else table.c.attempt == attempt)
        if repetition is not None:
            where.append(table.c.repetition == repetition)
        if item_id is not None:
            items = [item_id]
        else:
            with self.reading() as conn:
                items = list(conn.execute(select(table.c.item_id).distinct().where(*where)
                                          .order_by(table.c.item_id)).scalars())
        bases = BaseStates(self.engine, keep=_BASES_HELD)
        for item in items:
            query = (select(table.c.id, table.c.payload).where(*where, table.c.item_id == item)
                     .order_by(table.c.run_id, table.c.item_id, table.c.repetition))
            with self.reading() as conn:
                decoded = [(row_id, decode_json("trajectories", row_id, payload))
                           for batch in self._batches(conn, query)
                           for row_id, payload in batch]
            if decoded:
                yield item, _rebuilt(decoded, bases)

    def trajectory_count(self, run_id: str) -> int:
        """How many slots of `run_id` hold a trajectory (counted in the slot index alone)."""
        t = schema.trajectories
        with self.reading() as conn:
            return int(conn.execute(select(func.count()).select_from(t)
                                    .where(t.c.run_id == run_id, _newest(t))).scalar_one())

    def trajectory_counts(self, run_id: str) -> tuple[int, int]:
        """How many slots of `run_id` hold a trajectory, and in how many the newest attempt
        crashed."""
        t = schema.trajectories
        with self.reading() as conn:
            row = conn.execute(
                select(func.count(), func.count().filter(t.c.crashed))
                .where(t.c.run_id == run_id, _newest(t))
            ).one()
        return int(row[0]), int(row[1])

    def retried_slots(self, run_id: str) -> dict[tuple[str, int], RetriedSlot]:
        """Every slot of `run_id` with more than one attempt: its newest attempt's number and
        whose crash each earlier one was (their payloads' meta is read, nothing else)."""
        t = schema.trajectories
        with self.reading() as conn:
            rows = conn.execute(
                select(t.c.id, t.c.item_id, t.c.repetition, t.c.attempt, t.c.payload)
                .where(t.c.run_id == run_id, ~_newest(t))
                .order_by(t.c.item_id, t.c.repetition, t.c.attempt)
            ).all()
        earlier: dict[tuple[str, int], list[CrashCause]] = {}
        newest: dict[tuple[str, int], int] = {}
        for row in rows:
            slot = (row.item_id, row.repetition)
            earlier.setdefault(slot, []).append(_cause_of(row.id, row.payload))
            newest[slot] = max(newest.get(slot, 0), row.attempt + 1)
        return {slot: RetriedSlot(newest[slot], tuple(causes))
                for slot, causes in earlier.items()}

    def newest_crashes(self, run_id: str) -> dict[tuple[str, int], Attempt]:
        """Each slot of `run_id` whose newest attempt crashed, as the attempt that would run
        it again: the next number, that row's digest and whose crash it was."""
        t = schema.trajectories
        content = [t.c[c] for c in chain.CONTENT_COLUMNS["trajectories"]]
        with self.reading() as conn:
            rows = conn.execute(
                select(t.c.id, t.c.attempt, *content)
                .where(t.c.run_id == run_id, t.c.crashed, _newest(t))
            ).mappings().all()
        # the digest of the row's content (a row sealed at migration has no digest column)
        return {(row["item_id"], row["repetition"]): Attempt(
                    row["attempt"] + 1,
                    chain.row_digest("trajectories", chain.content_of("trajectories", row)),
                    _cause_of(row["id"], row["payload"]))
                for row in rows}

    def attempt_count(self, run_id: str, item_id: str, repetition: int) -> int:
        """How many attempts the slot holds (0: none stored)."""
        t = schema.trajectories
        with self.reading() as conn:
            found = conn.execute(
                select(func.max(t.c.attempt)).where(
                    t.c.run_id == run_id, t.c.item_id == item_id, t.c.repetition == repetition)
            ).scalar()
        return int(found or 0)

    def crash_causes(self, run_id: str) -> dict[tuple[str, int], CrashCause]:
        """Each crashed slot of `run_id` and whose failure it was, as its payload records it
        (a payload that records none is the agent's: `model.crash_cause_in`)."""
        with self.reading() as conn:
            return _crash_causes(conn, run_id)

    def stored_per_item(self, run_id: str) -> dict[str, int]:
        """How many repetitions of each item of `run_id` hold a trajectory."""
        t = schema.trajectories
        with self.reading() as conn:
            rows = conn.execute(select(t.c.item_id, func.count())
                                .where(t.c.run_id == run_id, _newest(t))
                                .group_by(t.c.item_id)).all()
        return {str(item_id): int(n) for item_id, n in rows}

    def stored_slots(self, run_id: str) -> set[tuple[str, int]]:
        with self.reading() as conn:
            rows = conn.execute(
                select(schema.trajectories.c.item_id, schema.trajectories.c.repetition).where(
                    schema.trajectories.c.run_id == run_id
                )
            ).all()
        return {(r.item_id, r.repetition) for r in rows}

    def current_generation(self, run_id: str) -> int:
        with self.reading() as conn:
            return _current_generation(conn, run_id)

    def generation_scorers(self, run_id: str) -> list[dict[str, Any]] | None:
        """The scorer set (name, version, kind, definition) a re-scoring recorded; None at 0."""
        table = schema.score_generations
        with self.reading() as conn:
            row = conn.execute(
                select(table.c.generation, table.c.scorers)
                .where(table.c.run_id == run_id)
                .order_by(table.c.generation.desc())
                .limit(1)
            ).first()
        if row is None:
            return None
        return list(decode_json("score_generations", f"{run_id}/{row.generation}", row.scorers))

    def current_scores(
        self, run_id: str, item_id: str | None = None, attempt: int | None = None
    ) -> list[ScoreRecord]:
        """One record per (item, repetition, scorer) of the run's current scoring generation
        (only `item_id`'s if given), from its score sets and, for runs written before score
        sets, its score rows; in (item, repetition, scorer) order. The newest attempt's at
        each slot, or with `attempt` that attempt's (none when a re-scoring came after it:
        a re-scoring scores newest attempts only)."""
        with self.reading() as conn:
            generation = _current_generation(conn, run_id)
            records = _legacy_scores(conn, run_id, generation, item_id, attempt)
            sets = schema.score_sets
            which = _newest(sets) if attempt is None else sets.c.attempt == attempt
            where = [sets.c.run_id == run_id, sets.c.generation == generation, which]
            if item_id is not None:
                where.append(sets.c.item_id == item_id)
            rows = conn.execute(
                select(sets.c.id, sets.c.item_id, sets.c.repetition, sets.c.scorers,
                       sets.c.packed_values, sets.c.details).where(*where)
            ).all()
        for row in rows:
            records.extend(_unpacked(*row))
        records.sort(key=ScoreRecord.slot_key)
        return records

    def score_columns(self, run_id: str, *, crashes: bool = True) -> ScoreColumns:
        """The run's current scores as NumPy columns per metric, with the cause of each
        crashed slot: what a report aggregates, read without building an object per
        score. `crashes=False` is for a caller that has just counted none: finding the
        crashed slots walks every trajectory row of the run."""
        sets = schema.score_sets
        with self.reading() as conn:
            generation = _current_generation(conn, run_id)
            query = (select(sets.c.id, sets.c.item_id, sets.c.repetition, sets.c.scorers,
                            sets.c.packed_values)
                     .where(sets.c.run_id == run_id, sets.c.generation == generation,
                            _newest(sets)))
            stored = StoredSets.of_batches(self._batches(conn, query))
            legacy = _legacy_scores(conn, run_id, generation, None, None)
            # after the sets: every crashed slot they hold
            crashed = _crash_causes(conn, run_id) if crashes else {}
        return score_columns(
            stored,
            [StoredScore(r.item_id, r.repetition, r.scorer, r.scorer_version, r.value,
                         r.imported) for r in legacy],
            crashed,
        )

    def append_generation(
        self,
        run_id: str,
        reason: str,
        scorers: Sequence[Mapping[str, Any]],
        records: Sequence[ScoreRecord],
    ) -> int:
        """Record a new scoring generation and its full set of rows as one block; return it.
        The rows score each slot's newest attempt (the only one a figure reads)."""
        t = schema.trajectories
        with self.engine.begin() as conn:
            generation = _current_generation(conn, run_id) + 1
            slots = {
                (r.item_id, r.repetition): (r.id, r.attempt)
                for r in conn.execute(
                    select(t.c.id, t.c.item_id, t.c.repetition, t.c.attempt)
                    .where(t.c.run_id == run_id, _newest(t))
                )
            }
            rows: list[tuple[Table, dict[str, Any]]] = [
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
                content = _score_set_content(run_id, item_id, repetition, generation,
                                             pack_records(slot_records))
                assert content is not None  # a slot is listed only with a record
                trajectory_id, attempt = slots[(item_id, repetition)]
                rows.append((
                    schema.score_sets,
                    {"trajectory_id": trajectory_id, "attempt": attempt,
                     **dict(zip(chain.CONTENT_COLUMNS["score_sets"], content, strict=True))},
                ))
            self._append_block(conn, run_id, "rescore", {"generation": generation}, rows)
        return generation

    # ---- control outcomes -------------------------------------------------
    def put_control_outcome(
        self, run_id: str, suite_hash: str, config_hash: str, payload: Mapping[str, Any]
    ) -> Head:
        row = {
            "run_id": run_id,
            "kind": payload["kind"],
            "version": payload["version"],
            "status": payload["status"],
            "suite_hash": suite_hash,
            "config_hash": config_hash,
            "payload": canonical_json(dict(payload)),
            "created_at": now(),
        }
        with self.engine.begin() as conn:
            return self._append_block(
                conn, run_id, "control", {"kind": payload["kind"]}, [(schema.control_outcomes, row)]
            )

    def control_outcomes(self, run_id: str) -> dict[str, StoredOutcome]:
        """The newest stored outcome per control kind for `run_id`."""
        return self._latest_outcomes(schema.control_outcomes.c.run_id == run_id)

    def control_outcomes_for_config(self, config_hash: str, kind: str) -> list[StoredOutcome]:
        """Every stored outcome of `kind` for any run of this config, oldest first."""
        table = schema.control_outcomes
        with self.reading() as conn:
            rows = conn.execute(
                select(table)
                .where(table.c.config_hash == config_hash, table.c.kind == kind)
                .order_by(table.c.id)
            ).all()
        return [_stored_outcome(r) for r in rows]

    def _latest_outcomes(self, condition: Any) -> dict[str, StoredOutcome]:
        table = schema.control_outcomes
        with self.reading() as conn:
            rows = conn.execute(select(table).where(condition).order_by(table.c.id)).all()
        return {r.kind: _stored_outcome(r) for r in rows}

    # ---- mutation results -------------------------------------------------
    def put_mutation_rows(self, run_id: str, rows: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """Append one mutation pass (its operator rows and summary) as one block."""
        created = now()
        with self.engine.begin() as conn:
            self._append_block(
                conn,
                run_id,
                "mutation",
                {},
                [
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
                ],
            )

    def latest_mutation_pass(self, run_id: str) -> list[dict[str, Any]]:
        """The rows of the newest mutation pass over `run_id`, summary last; [] if none."""
        table = schema.mutation_results
        with self.reading() as conn:
            rows = conn.execute(
                select(table.c.id, table.c.payload).where(table.c.run_id == run_id).order_by(
                    table.c.id
                )
            ).all()
        payloads = [decode_json("mutation_results", r.id, r.payload) for r in rows]
        if not payloads:
            return []
        newest = payloads[-1]["pass_id"]
        return [p for p in payloads if p["pass_id"] == newest]

    def count_scores(self) -> int:
        """How many score values the store holds, in every generation of every run: a score
        row holds one, a score set one per scorer (16 hex digits each)."""
        sets = schema.score_sets
        with self.reading() as conn:
            packed = conn.execute(
                select(func.coalesce(func.sum(func.length(sets.c.packed_values)), 0))
            ).scalar_one()
        return self.count_rows("scores") + int(packed) // (2 * score_pack.VALUE_BYTES)

    def count_rows(self, table: str) -> int:
        with self.reading() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(schema.metadata.tables[table])
                ).scalar_one()
            )


def _unpinned(pin: Connection, engine: Engine) -> None:
    pin.close()
    release(engine)


def _tolerant_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _undecodable(exc: DBAPIError) -> bool:
    """sqlite3's complaint about stored text that is not UTF-8."""
    return isinstance(exc.orig, sqlite3.OperationalError) and "decode" in str(exc.orig)


def _event_row(run_id: str, event: str, detail: Mapping[str, Any]) -> dict[str, Any]:
    return {"run_id": run_id, "event": event, "detail": canonical_json(dict(detail)), "at": now()}


def _config_from_json(data: Mapping[str, Any]) -> Config:
    return Config(adapter=data["adapter"], name=data["name"], params=data["params"])


def _rebuilt(decoded: Sequence[tuple[int, Any]], bases: BaseStates) -> list[Trajectory]:
    """Decoded trajectory payloads as trajectories, each final state rebuilt on a fresh
    copy of its base."""
    bases.load(base_digests(data for _, data in decoded))

    def build(data: Any) -> Trajectory:
        return Trajectory.from_json(expanded(data, bases.fresh))

    return [_built(build, "trajectories", row_id, data) for row_id, data in decoded]


def _decoded(build: Any, table: str, row_id: object, text: str) -> Any:
    """Decode a stored payload into its model object, naming the row when it does not fit."""
    return _built(build, table, row_id, decode_json(table, row_id, text))


def _built(build: Any, table: str, row_id: object, data: Any) -> Any:
    try:
        return build(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AssayError(
            f"{table} row {row_id}: stored payload does not fit its shape "
            f"({type(exc).__name__}: {exc})",
            exit_code=ExitCode.TAMPERED,
        ) from exc


def _head(conn: Connection, run_id: str) -> Head | None:
    row = conn.execute(
        select(schema.ledger.c.seq, schema.ledger.c.digest)
        .where(schema.ledger.c.run_id == run_id)
        .order_by(schema.ledger.c.seq.desc())
        .limit(1)
    ).first()
    return Head(int(row.seq), str(row.digest)) if row else None


def _crash_causes(conn: Connection, run_id: str) -> dict[tuple[str, int], CrashCause]:
    """The cause of each slot of `run_id` whose newest attempt crashed: only crashed rows
    are decoded, and only their meta is read (a payload's final state may be stored as a
    delta; meta never is)."""
    t = schema.trajectories
    rows = conn.execute(select(t.c.id, t.c.item_id, t.c.repetition, t.c.payload)
                        .where(t.c.run_id == run_id, t.c.crashed, _newest(t))).all()
    return {(row.item_id, row.repetition): _cause_of(row.id, row.payload) for row in rows}


def _cause_of(row_id: int, payload: str) -> CrashCause:
    """Whose crash the stored trajectory records (the agent's when it records none)."""
    data = decode_json("trajectories", row_id, payload)
    meta = data.get("meta") if isinstance(data, dict) else None
    return crash_cause_in(meta if isinstance(meta, dict) else {})


def _newest(table: Table) -> ColumnElement[bool]:
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


def _legacy_scores(
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
    which = _newest(table) if attempt is None else literal(True)
    where = [table.c.run_id == run_id, table.c.generation == generation, which]
    if item_id is not None:
        where.append(table.c.item_id == item_id)
    newest = (
        select(func.max(table.c.id))
        .where(*where)
        .group_by(table.c.item_id, table.c.repetition, table.c.scorer)
    )
    c = table.c  # only what a ScoreRecord holds
    rows = conn.execute(
        select(c.id, c.item_id, c.repetition, c.scorer, c.scorer_version, c.value,
               c.detail, c.imported)
        .where(c.id.in_(newest))
    ).all()
    # unpacked by position: named access on 100,000s of rows costs a second
    return [
        ScoreRecord(item_id, repetition, scorer, version, value,
                    decode_json("scores", row_id, detail), bool(imported))
        for row_id, item_id, repetition, scorer, version, value, detail, imported in rows
    ]


def _unpacked(
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


def _current_generation(conn: Connection, run_id: str) -> int:
    table = schema.score_generations
    value = conn.execute(
        select(func.max(table.c.generation)).where(table.c.run_id == run_id)
    ).scalar()
    return int(value or 0)


_STREAM_BATCH = 2000
_BASES_HELD = 64
"""Base states a trajectory reader holds at once (see BaseStates)."""
_LEDGER_FIELDS = ("seq", "kind", "detail", "prev_digest", "digest", "at")
_READ_ORDER: Mapping[str, tuple[str, ...]] = {
    "trajectories": ("run_id", "item_id", "repetition", "attempt"),
    "score_sets": ("run_id", "item_id", "repetition", "generation", "attempt"),
}
"""Rows fetched at a time when a whole run is streamed (a server-side cursor on PostgreSQL)."""



@dataclass(frozen=True, slots=True)
class _HotPathSQL:
    """The writer's fixed statements in one driver's placeholder style (qmark for sqlite3,
    format for psycopg); the trajectory insert returns its id on both."""

    head: str
    ledger: str
    trajectory: str
    score_set: str
    state_blob: str
    state_known: str


@functools.cache
def _hot_path_sql(paramstyle: str) -> _HotPathSQL:
    mark = "?" if paramstyle == "qmark" else "%s"

    def marks(n: int) -> str:
        return "(" + ", ".join([mark] * n) + ")"

    def insert(table: str, columns: Sequence[str], returning: str = "") -> str:
        return f"INSERT INTO {table} ({', '.join(columns)}) VALUES {marks(len(columns))}{returning}"

    return _HotPathSQL(
        head=(
            "SELECT h.seq, h.digest, (SELECT MAX(generation) FROM score_generations WHERE "
            f"run_id = {mark}) FROM (SELECT 1 AS one) AS one LEFT JOIN (SELECT seq, digest "
            f"FROM ledger WHERE run_id = {mark} ORDER BY seq DESC LIMIT 1) AS h ON 1 = 1"
        ),
        ledger=insert(
            "ledger", ("run_id", "seq", "kind", "detail", "prev_digest", "digest", "at")
        ),
        trajectory=insert(
            "trajectories",
            (*chain.CONTENT_COLUMNS["trajectories"], "block", "digest", "attempt"),
            " RETURNING id",
        ),
        score_set=insert(
            "score_sets",
            ("trajectory_id", *chain.CONTENT_COLUMNS["score_sets"], "block", "digest",
             "attempt"),
        ),
        state_blob=insert("state_blobs", ("digest", "payload"), " ON CONFLICT DO NOTHING"),
        state_known=f"SELECT 1 FROM state_blobs WHERE digest = {mark}",
    )


def open_store(db: str, *, migrate: bool = False) -> Store:
    """Open (creating when empty) a store for writing; refuse an older schema unless
    `migrate` is set. What is there is looked at read-only first, so a file that is not an
    agent-assay store is refused before a writable connection could change it."""
    have = stored_version(db)
    engine = make_engine(db)
    if have == 0 or migrate:
        _migrate(engine, db)
    elif have < migrations.LATEST:
        engine.dispose()
        raise _needs_migration(db, have)
    return Store(engine)


def _migrate(engine: Engine, db: str) -> None:
    """Apply the migrations; on a server, a role that may not create tables is told who can."""
    try:
        migrations.apply(engine)
    except DBAPIError as exc:
        engine.dispose()
        if not is_server_url(db):
            raise
        raise AssayError(
            f"--db {shown(db)}: this role cannot create or upgrade the store "
            f"({connect_reason(exc)}); run `agent-assay store init` as the database's owner"
        ) from exc


def open_existing_store(db: str, *, read_only: bool = True, checked: bool = True) -> Store:
    """Open a store that must already exist, for commands that read (`read_only`: the
    database itself refuses every write) or build on stored runs. A path that does not
    exist is refused rather than created (a typo must not look like "no runs"); a database
    that is not an agent-assay store, or one that needs `migrate`, is refused untouched:
    nothing is migrated and the journal mode is left as it is. A reader's SQLite file must
    pass SQLite's quick_check (`damage.quick_check`) unless `checked` is off (`verify`, which
    runs the whole integrity_check and lists what it finds)."""
    if not is_server_url(db) and not store_path(db).exists():
        raise AssayError(f"no store at --db {db} (commands that read never create one)")
    have = stored_version(db)
    if have == 0:
        if is_server_url(db):
            raise AssayError(
                f"no store at --db {shown(db)}: the database holds no agent-assay tables "
                f"(create them with `agent-assay store init --db {shown(db)}`)"
            )
        raise _not_a_store(db, "no schema_migrations table")
    if have < migrations.LATEST:
        raise _needs_migration(db, have)
    if read_only and checked and not is_server_url(db):
        quick_check(db)
    return Store(make_engine(db, Access.READ if read_only else Access.WRITE), pinned=read_only)


def stored_version(db: str) -> int:
    """The schema version of the store at `db`: 0 for no file, an empty one or a database
    without tables. It is read through a read-only engine; a database that holds other
    tables, a schema_migrations table that is not agent-assay's, or a newer schema is
    refused in one line."""
    if not is_server_url(db):
        path = store_path(db)
        if not path.exists() or path.stat().st_size == 0:
            return 0
    engine = make_engine(db, Access.READ)
    try:
        with engine.connect() as conn:
            have = _migrations_record(conn, db)
    except DatabaseError as exc:
        kind = "PostgreSQL" if is_server_url(db) else "SQLite"
        raise AssayError(
            f"--db {shown(db)} is not an agent-assay {kind} database: {exc.orig}"
        ) from exc
    finally:
        release(engine)
    if have > migrations.LATEST:
        raise AssayError(
            f"database {shown(db)} has schema version {have}, newer than this agent-assay "
            f"({migrations.LATEST}); upgrade agent-assay"
        )
    return have


def _migrations_record(conn: Connection, db: str) -> int:
    """The highest version agent-assay's schema_migrations table records (0: no tables)."""
    tables = inspect(conn).get_table_names()
    if "schema_migrations" not in tables:
        if tables:
            raise _not_a_store(db, "no schema_migrations table")
        return 0
    columns = {c["name"] for c in inspect(conn).get_columns("schema_migrations")}
    if columns != set(schema.schema_migrations.c.keys()):
        raise _not_a_store(db, "its schema_migrations table is not agent-assay's")
    versions = conn.execute(select(schema.schema_migrations.c.version)).scalars().all()
    if not versions or not all(isinstance(v, int) for v in versions):
        raise _not_a_store(db, "its schema_migrations table records no agent-assay migration")
    return int(max(versions))


def _not_a_store(db: str, why: str) -> AssayError:
    return AssayError(
        f"--db {shown(db)} is not an agent-assay store ({why}); it was left untouched"
    )


def _needs_migration(db: str, have: int) -> AssayError:
    return AssayError(
        f"database {shown(db)} has schema version {have}, this agent-assay needs "
        f"{migrations.LATEST}: run `agent-assay migrate --db {shown(db)}`"
    )
