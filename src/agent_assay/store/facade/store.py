"""Reads and appends. There is no update or delete method, and the triggers refuse them anyway.

Every append to a run is one ledger block (see `encoding.chain`): the run's creation,
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
each slot (`reads.newest`); the earlier ones are read only when asked for by number.

`Store` is the facade: it owns the connections and transactions and offers the domain
operations; how a block is appended is `writes`, how rows are read back is `reads`, and
the evidence checks' raw reads are `evidence.raw.RawReader`'s.
"""

from __future__ import annotations

import functools
import sqlite3
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, select

from agent_assay.errors import AssayError
from agent_assay.model import Config, CrashCause, Run, Suite, Trajectory
from agent_assay.store.database import schema
from agent_assay.store.database.base_states import BaseStates
from agent_assay.store.database.engine import release
from agent_assay.store.encoding import score_pack
from agent_assay.store.encoding.prepared import PreparedTrajectory, prepare
from agent_assay.store.encoding.score_columns import ScoreColumns, StoredSets
from agent_assay.store.encoding.state_blobs import StateEncoder
from agent_assay.store.facade import reads, server_writes, writes
from agent_assay.store.facade.run_ids import check_run_id
from agent_assay.store.facade.written import TrajectoryBlock, Written, WrittenChain
from agent_assay.store.records import (
    TERMINAL_EVENTS,
    Attempt,
    Head,
    RetriedSlot,
    RunEvent,
    ScoreRecord,
    StoredOutcome,
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
        self._crashes: dict[str, dict[tuple[str, int], CrashCause]] = {}
        """A pinned store's crashed slots per run, read once per snapshot: a report asks for
        them (and for the counts they give) from several places, and each read walks every
        trajectory row of the run."""
        self._counts: dict[str, int] = {}
        """A pinned store's count of each run's slots holding a trajectory, likewise."""
        self._unretried: set[str] = set()
        """Runs a check from a checkpoint found no later attempt in (`lend_checked`)."""
        self._written: dict[str, WrittenChain] = {}
        """The runs this store created, with every block it appended to them since (see
        `written`): on SQLite only, where a checkpoint is written."""

    def _writer_connection(self) -> Connection:
        """One long-lived connection for the per-trajectory hot path (no pool round trip)."""
        if self._writer is None or self._writer.closed:
            self._writer = self.engine.connect()
        return self._writer

    def close(self) -> None:
        # a later read pins a new snapshot
        self._crashes.clear()
        self._counts.clear()
        self._unretried.clear()
        self._written.clear()
        if self._unpin is not None:
            self._unpin()  # closes the pinned connection, which rolls its transaction back
            self._unpin = None
            self._pin = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        release(self.engine)

    # ---- connections -------------------------------------------------------
    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection to read on: a pinned store's one snapshot, else a fresh connection.

        A store opened for a command that only reads (report, compare, verify, export) is
        pinned: its first read opens one read transaction and every later read, through
        any method, sees the state that transaction saw. A writer appending meanwhile can
        never make one check see a trajectory without its scores, a complete event without
        its slots, or a certificate without the rows it judged."""
        if not self._pinned:
            with self.engine.connect() as fresh:
                yield fresh
            return
        if self._pin is None:
            self._pin = self._pinned_snapshot()
            # a store dropped without `close` still ends its snapshot when collected, and
            # lets its engine go (a reader leaves no side file behind: `release`)
            self._unpin = weakref.finalize(
                self, functools.partial(_unpinned, self._pin, self.engine))
        yield self._pin

    @contextmanager
    def snapshot(self) -> Iterator[Connection | None]:
        """One read transaction: every read made on it sees the same committed state, so a
        check made while a writer appends never sees a block's rows without its entry (or
        the reverse). On PostgreSQL a REPEATABLE READ transaction, which the driver begins
        at the first read; on SQLite a deferred one (which `writes.append_to_snapshot` may
        turn into a write). On a pinned store, the store's own snapshot."""
        if self._pinned:
            with self.reading() as pin:
                yield pin
            return
        if self.engine.dialect.name != "sqlite":
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
        if self.engine.dialect.name != "sqlite":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        conn.begin()
        return conn

    # ---- the chain ---------------------------------------------------------
    def head(self, run_id: str) -> Head | None:
        with self.reading() as conn:
            return writes.head_of(conn, run_id)

    def append_checkpoint(
        self, run_id: str, claim: Callable[[Connection, Head], Mapping[str, Any] | None]
    ) -> Head | None:
        """Append a checkpoint block whose detail `claim` makes, or nothing when it returns
        None. `claim` is handed the write transaction's connection and the head: what it
        reads on that connection cannot change before the block is in."""
        with self.engine.begin() as conn:
            head = writes.head_of(conn, run_id)
            detail = claim(conn, head) if head is not None else None
            if detail is None:
                return None
            return writes.append_block(conn, run_id, "checkpoint", detail, [])

    # ---- suites, configs -------------------------------------------------
    def put_suite(self, suite: Suite) -> str:
        """Store a suite and its items unless that hash is already stored; return the hash."""
        suite_hash = suite.suite_hash
        with self.engine.begin() as conn:
            exists = conn.execute(
                select(schema.suites.c.suite_hash).where(schema.suites.c.suite_hash == suite_hash)
            ).first()
            if not exists:
                writes.insert_suite(conn, suite)
        return suite_hash

    def get_suite(self, suite_hash: str) -> Suite:
        """The suite stored under `suite_hash`, refused when it no longer hashes to it."""
        with self.reading() as conn:
            head, rows = reads.suite_rows(conn, suite_hash)
        return reads.suite_of(suite_hash, head, rows)

    def put_config(self, config: Config) -> str:
        """Store a config unless that hash is already stored; return the hash."""
        with self.engine.begin() as conn:
            writes.put_config(conn, config)
        return config.config_hash

    def get_config(self, config_hash: str) -> Config:
        """The config stored under `config_hash`, refused when it no longer hashes to it."""
        with self.reading() as conn:
            payload = reads.config_payload(conn, config_hash)
        return reads.config_of(config_hash, payload)

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
        rows = writes.run_rows(
            run_id=run_id, adapter=adapter, suite_hash=suite_hash, config_hash=config_hash,
            config_name=config_name, repeats=repeats, seed=seed, item_ids=item_ids, env=env,
            affects_results=affects_results, started=started,
        )
        kept: list[Written] | None = [] if self.engine.dialect.name == "sqlite" else None
        with self.engine.begin() as conn:
            writes.append_block(conn, run_id, "run", {}, rows, kept)
        if kept is not None:
            self._written[run_id] = WrittenChain(run_id)
            self._keep(run_id, kept)
        return self.get_run(run_id)

    def _keep(self, run_id: str, kept: Sequence[Written] | None) -> None:
        """Record blocks a committed transaction appended to `run_id` (see `written`)."""
        chain = self._written.get(run_id)
        if chain is not None and kept is not None:
            chain.add(kept)

    def written(self, run_id: str) -> WrittenChain | None:
        """Every block this store appended to `run_id` since it created the run, as the
        checkpoint's stream should read them back, or None when it did not create the run
        or something else appended to it meanwhile (`written.WrittenChain`)."""
        chain = self._written.get(run_id)
        return chain if chain is not None and chain.usable else None

    def forget_written(self, run_id: str) -> None:
        self._written.pop(run_id, None)

    def get_run(self, run_id: str) -> Run:
        """The run named by its id or by a unique prefix of it (`run_ids` has the rules);
        every run id a person types is resolved here."""
        check_run_id(run_id)
        with self.reading() as conn:
            row, env_rows = reads.run_rows(conn, run_id)
        return reads.run_of(row, env_rows)

    def run_ids(self) -> list[str]:
        """Every stored run's id, oldest first."""
        with self.reading() as conn:
            return reads.run_ids(conn)

    def list_runs(self) -> list[Run]:
        return [self.get_run(run_id) for run_id in self.run_ids()]

    def append_event(self, run_id: str, event: str, detail: Mapping[str, Any]) -> Head:
        """Append an event as its own block; a terminal event records the head it closes on."""
        kept: list[Written] | None = [] if run_id in self._written else None
        with self.engine.begin() as conn:
            if event in TERMINAL_EVENTS:
                head = writes.head_of(conn, run_id)
                detail = {**detail, "head": head.to_json() if head else None}
            row = writes.event_row(run_id, event, detail)
            appended = writes.append_block(
                conn, run_id, "event", {"event": event}, [(schema.run_events, row)], kept)
        self._keep(run_id, kept)
        return appended

    def claim_run(
        self, run_id: str, writer: Mapping[str, Any], busy: Callable[[object], str | None]
    ) -> Head:
        """Become `run_id`'s writer. In one write transaction: find the event that opened
        the newest writing session; unless `busy`, given its detail, names a writer still
        at work, append a `resumed` event naming `writer`. Two processes resuming one run
        are serialised by the transaction, so exactly one wins."""
        with self.engine.begin() as conn:
            return writes.claim_run(conn, run_id, writer, busy)

    def manifest(
        self, run_id: str, events: Sequence[RunEvent] | None = None
    ) -> dict[str, Any]:
        """The run's manifest (its `started` event), with the scorer set of its current
        scoring generation: what the stored numbers mean now. `events`: the run's events,
        if already read."""
        events = self.events(run_id) if events is None else events
        started = next((e.detail for e in events if e.event == "started"), {})
        rescored = self.generation_scorers(run_id)
        return {**started, "scorers": rescored} if rescored is not None else dict(started)

    def events(self, run_id: str) -> list[RunEvent]:
        """The run's events in the order they were appended."""
        with self.reading() as conn:
            return reads.events(conn, run_id)

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
        SQLAlchemy transaction with fixed statements (no per-call compilation): on SQLite
        one per row, on PostgreSQL one per table for the whole group (`server_writes`:
        there each statement is a round trip to the server). The
        scores join the run's current scoring generation, read inside the transaction.
        A base state this store has not written yet is stored with the row (see
        `writes.store_base`): no trajectory row names a base that is not stored. A slot that
        `attempts` names is stored as that attempt at it, the crashed one it runs again
        staying where it is.
        """
        conn = self._writer_connection()
        sql = writes.hot_path_sql(conn.dialect.paramstyle)
        again = attempts or {}
        kept: list[TrajectoryBlock] | None = [] if run_id in self._written else None
        with conn.begin():
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            if conn.dialect.name == "sqlite":
                ids = writes.append_group(
                    cursor, sql, run_id, group, again, self._bases_written, kept)
            else:
                ids = server_writes.append_group(
                    cursor, sql, run_id, group, again, self._bases_written)
            cursor.close()
        self._bases_written.update(p.state for p in group if p.state is not None)
        chain = self._written.get(run_id)
        if chain is not None and kept is not None:
            chain.add_trajectories(kept)
        return ids

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
        where = reads.trajectory_filter(run_id, repetition, attempt)
        if item_id is not None:
            items = [item_id]
        else:
            with self.reading() as conn:
                items = reads.items_with_trajectories(conn, where)
        bases = BaseStates(self.engine, keep=reads.BASES_HELD)
        for item in items:
            with self.reading() as conn:
                decoded = reads.item_payloads(conn, where, item)
            if decoded:
                yield item, reads.rebuilt(decoded, bases)

    def trajectory_count(self, run_id: str) -> int:
        """How many slots of `run_id` hold a trajectory (counted in the slot index alone)."""
        with self.reading() as conn:
            return self._count(conn, run_id)

    def _count(self, conn: Connection, run_id: str) -> int:
        """`trajectory_count`, read once per snapshot on a pinned store."""
        if not self._pinned:
            return reads.trajectory_count(conn, run_id)
        if run_id not in self._counts:
            self._counts[run_id] = reads.trajectory_count(conn, run_id)
        return self._counts[run_id]

    def trajectory_counts(self, run_id: str) -> tuple[int, int]:
        """How many slots of `run_id` hold a trajectory, and in how many the newest attempt
        crashed."""
        if self._pinned:  # one snapshot: the crashed slots read once say how many
            with self.reading() as conn:
                return self._count(conn, run_id), len(self._crashed(conn, run_id))
        with self.reading() as conn:
            return reads.trajectory_counts(conn, run_id)

    def retried_slots(self, run_id: str) -> dict[tuple[str, int], RetriedSlot]:
        """Every slot of `run_id` with more than one attempt: its newest attempt's number and
        whose crash each earlier one was (their payloads' meta is read, nothing else)."""
        if self._pinned and run_id in self._unretried:
            return {}
        with self.reading() as conn:
            return reads.retried_slots(conn, run_id)

    def newest_crashes(self, run_id: str) -> dict[tuple[str, int], Attempt]:
        """Each slot of `run_id` whose newest attempt crashed, as the attempt that would run
        it again: the next number, that row's digest and whose crash it was."""
        with self.reading() as conn:
            return reads.newest_crashes(conn, run_id)

    def attempt_count(self, run_id: str, item_id: str, repetition: int) -> int:
        """How many attempts the slot holds (0: none stored)."""
        with self.reading() as conn:
            return reads.attempt_count(conn, run_id, item_id, repetition)

    def crash_causes(self, run_id: str) -> dict[tuple[str, int], CrashCause]:
        """Each crashed slot of `run_id` and whose failure it was, as its payload records it
        (a payload that records none is the agent's: `model.crash_cause_in`)."""
        with self.reading() as conn:
            return dict(self._crashed(conn, run_id))

    def lend_checked(
        self, run_id: str, slots: Sequence[tuple[Any, Any]],
        payloads: Mapping[tuple[Any, Any], str],
    ) -> None:
        """What a check from `run_id`'s checkpoint read in this store's snapshot, every
        trajectory row's slot and each crashed one's payload, with no slot holding a later
        attempt (`ChainCheck.slots`, `ChainCheck.crashed`): on a pinned store the slot
        count, the crash causes and the retried slots (none) are taken from them instead
        of walking every trajectory row again. No cause is kept from a payload that does
        not decode (a reader names its row)."""
        if not self._pinned:
            return
        self._counts.setdefault(run_id, len(set(slots)))
        self._unretried.add(run_id)
        if run_id in self._crashes:
            return
        try:
            self._crashes[run_id] = {slot: reads.cause_of(-1, payload)
                                     for slot, payload in payloads.items()}
        except AssayError:
            return

    def _crashed(self, conn: Connection, run_id: str) -> dict[tuple[str, int], CrashCause]:
        """`crash_causes`, read once per snapshot on a pinned store (do not change it)."""
        if not self._pinned:
            return reads.crash_causes(conn, run_id)
        if run_id not in self._crashes:
            self._crashes[run_id] = reads.crash_causes(conn, run_id)
        return self._crashes[run_id]

    def stored_per_item(self, run_id: str) -> dict[str, int]:
        """How many repetitions of each item of `run_id` hold a trajectory."""
        with self.reading() as conn:
            return reads.stored_per_item(conn, run_id)

    def stored_slots(self, run_id: str) -> set[tuple[str, int]]:
        """Every (item, repetition) of `run_id` that holds a trajectory, any attempt."""
        with self.reading() as conn:
            return reads.stored_slots(conn, run_id)

    def current_generation(self, run_id: str) -> int:
        with self.reading() as conn:
            return reads.current_generation(conn, run_id)

    def generation_scorers(self, run_id: str) -> list[dict[str, Any]] | None:
        """The scorer set (name, version, kind, definition) a re-scoring recorded; None at 0."""
        with self.reading() as conn:
            return reads.generation_scorers(conn, run_id)

    def current_scores(
        self, run_id: str, item_id: str | None = None, attempt: int | None = None
    ) -> list[ScoreRecord]:
        """One record per (item, repetition, scorer) of the run's current scoring generation
        (only `item_id`'s if given), from its score sets and, for runs written before score
        sets, its score rows; in (item, repetition, scorer) order. The newest attempt's at
        each slot, or with `attempt` that attempt's (none when a re-scoring came after it:
        a re-scoring scores newest attempts only)."""
        with self.reading() as conn:
            return reads.current_scores(conn, run_id, item_id, attempt)

    def score_columns(
        self, run_id: str, *, crashes: bool = True, sets: Mapping[int, StoredSets] | None = None
    ) -> ScoreColumns:
        """The run's current scores as NumPy columns per metric, with the cause of each
        crashed slot: what a report aggregates, read without building an object per
        score. `crashes=False` is for a caller that has just counted none: finding the
        crashed slots walks every trajectory row of the run. `sets`, the run's score sets
        by generation as the integrity check read them in this store's snapshot
        (`ChainCheck.sets`), are used instead of reading them again on a pinned store;
        should one not fit its shape, they are read again, to name its row."""
        lent = sets if self._pinned else None
        with self.reading() as conn:
            crashed = (lambda: self._crashed(conn, run_id)) if crashes else None
            if lent is not None:
                try:
                    return reads.stored_score_columns(conn, run_id, crashed, lent)
                except AssayError:
                    pass
            return reads.stored_score_columns(conn, run_id, crashed)

    def append_generation(
        self,
        run_id: str,
        reason: str,
        scorers: Sequence[Mapping[str, Any]],
        records: Sequence[ScoreRecord],
    ) -> int:
        """Record a new scoring generation and its full set of rows as one block; return it.
        The rows score each slot's newest attempt (the only one a figure reads)."""
        with self.engine.begin() as conn:
            generation = reads.current_generation(conn, run_id) + 1
            slots = reads.newest_slots(conn, run_id)
            rows = writes.generation_rows(slots, run_id, generation, reason, scorers, records)
            writes.append_block(conn, run_id, "rescore", {"generation": generation}, rows)
        return generation

    # ---- control outcomes -------------------------------------------------
    def put_control_outcome(
        self, run_id: str, suite_hash: str, config_hash: str, payload: Mapping[str, Any]
    ) -> Head:
        row = writes.control_outcome_row(run_id, suite_hash, config_hash, payload)
        with self.engine.begin() as conn:
            return writes.append_block(
                conn, run_id, "control", {"kind": payload["kind"]}, [(schema.control_outcomes, row)]
            )

    def control_outcomes(self, run_id: str) -> dict[str, StoredOutcome]:
        """The newest stored outcome per control kind for `run_id`."""
        table = schema.control_outcomes
        with self.reading() as conn:
            rows = reads.outcome_rows(conn, table.c.run_id == run_id)
        return {r.kind: reads.stored_outcome(r) for r in rows}

    def control_outcomes_for_config(self, config_hash: str, kind: str) -> list[StoredOutcome]:
        """Every stored outcome of `kind` for any run of this config, oldest first."""
        table = schema.control_outcomes
        with self.reading() as conn:
            rows = reads.outcome_rows(conn, table.c.config_hash == config_hash,
                                      table.c.kind == kind)
        return [reads.stored_outcome(r) for r in rows]

    # ---- mutation results -------------------------------------------------
    def put_mutation_rows(self, run_id: str, rows: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """Append one mutation pass (its operator rows and summary) as one block."""
        block = writes.mutation_rows(run_id, rows)
        with self.engine.begin() as conn:
            writes.append_block(conn, run_id, "mutation", {}, block)

    def latest_mutation_pass(self, run_id: str) -> list[dict[str, Any]]:
        """The rows of the newest mutation pass over `run_id`, summary last; [] if none."""
        with self.reading() as conn:
            payloads = reads.mutation_payloads(conn, run_id)
        if not payloads:
            return []
        newest = payloads[-1]["pass_id"]
        return [p for p in payloads if p["pass_id"] == newest]

    # ---- counts -------------------------------------------------------------
    def count_scores(self) -> int:
        """How many score values the store holds, in every generation of every run: a score
        row holds one, a score set one per scorer (16 hex digits each)."""
        with self.reading() as conn:
            packed = reads.packed_length(conn)
        return self.count_rows("scores") + packed // (2 * score_pack.VALUE_BYTES)

    def count_rows(self, table: str) -> int:
        """How many rows `table` holds, every run's."""
        with self.reading() as conn:
            return reads.count_rows(conn, table)


def _unpinned(pin: Connection, engine: Engine) -> None:
    pin.close()
    release(engine)
