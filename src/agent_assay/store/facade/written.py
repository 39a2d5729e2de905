"""What this process appended to a run's chain, kept so that the run's checkpoint can
vouch for it without walking the chain again (`evidence.checkpoint.write_checkpoint`).

The writer computes every row's digest and every block's from the values it inserts, so
it knows, without reading anything back, that what it wrote is a chain whose every digest
holds. A `WrittenChain` keeps, for every block a store appended to a run it created, what
the checkpoint's stream covers of each row: its small values as the driver returns them
(a bool as 0 or 1), and each long text's bytes (`whole`); past `HELD_BYTES` of them, only
a SHA-256 of each. With the bytes, the checkpoint's stream is made from them, so it
vouches for exactly what the writer wrote: a row changed in the database since (by a
process that is not the writer) no longer streams to the digest the checkpoint records,
which every later check from it, and `verify`, report. With digests only, the stream is
read back from the database and held against them, value for value (in type as well)
and text for text, and anything that differs is walked in full, as before. Either way the
blocks after the writer's last (someone else's append) and the base states (outside the
stream) are read back and checked; a run this store did not write from its first block,
a later attempt, a re-scoring, and the checkpoint walks the chain in full.

Recorded only after the transaction that wrote the block committed, and only while
every block of the run, from its first, came from this store in order: an append that
does not follow the last recorded block ends the record for good.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Text

from agent_assay.store.database import schema
from agent_assay.store.encoding import chain
from agent_assay.store.records import Head

Written = tuple[int, str, str, str, str, str, Sequence[tuple[str, Sequence[Any], str, int]],
                str | None, str | None, Mapping[str, Any] | None]
"""One block as an append made it: seq, kind, detail (its canonical JSON), previous and own
digest, time; its rows (table, content values in `chain.CONTENT_COLUMNS` order, digest,
attempt); for a trajectory block the path digest and base state its detail records; for a
terminal event its detail (whose recorded head is checked)."""


TrajectoryBlock = tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...] | None, str,
                        str | None]
"""One block of the writer's hot path as it was appended: its ledger entry, trajectory row
and score set row (without the trajectory id), as `writes.trajectory_block` makes them, and
the path digest and base state its detail records."""


@functools.cache
def long_columns(table: str) -> tuple[str, ...]:
    """The content columns of `table` the checkpoint's stream reads as bytes: its long text."""
    t = schema.metadata.tables[table]
    return tuple(c for c in chain.CONTENT_COLUMNS[table] if isinstance(t.c[c].type, Text))


@functools.cache
def _long_at(table: str) -> tuple[int, ...]:
    return tuple(chain.CONTENT_COLUMNS[table].index(c) for c in long_columns(table))


HELD_BYTES = 128 * 2**20
"""The long texts a `WrittenChain` holds whole, in bytes: past this, a digest of each."""


def text_bytes(value: object) -> bytes | None:
    """What a `WrittenChain` keeps of a long text while `whole`: its bytes (None for NULL)."""
    if value is None:
        return None
    if type(value) is not str:
        raise TypeError(f"a long column given a {type(value).__name__}")
    return value.encode("utf-8", "surrogatepass")


def text_digest(value: object) -> bytes | None:
    """What a `WrittenChain` keeps of a long text once not `whole`: a SHA-256 of its bytes
    (None for NULL)."""
    held = text_bytes(value)
    return None if held is None else hashlib.sha256(held).digest()


_GENERATION_AT = {t: chain.CONTENT_COLUMNS[t].index("generation") for t in chain.SCORE_TABLES}


class WrittenChain:
    """The blocks one store appended to one run, from its first (see the module)."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.head: Head | None = None
        self.usable = True
        self.ledger: list[tuple[Any, ...]] = []
        """Per block, its entry as the stream reads it: seq, kind, previous and own digest,
        time, and the detail's `text_digest` (its type is text)."""
        self.rows: dict[str, list[tuple[Any, ...]]] = {t: [] for t in chain.CHAINED_TABLES}
        """Per table, each row's content values as written (a long text as its
        `text_digest`), then its block and digest, in the order written."""
        self.trajectories: list[str] = []
        self.scores: list[str] = []
        self.paths: dict[tuple[str, int], str] = {}
        self.states: set[str] = set()
        self._scorers: tuple[str | None, bytes | None] = (None, None)
        """The last score set's list of scorers and what is kept of it."""
        self.whole = True
        """Long texts kept as their bytes (`text_bytes`), else as digests (`text_digest`)."""
        self.held = 0
        """The bytes of long text held (while `whole`)."""

    def add(self, blocks: Sequence[Written]) -> None:
        """Record `blocks`, appended in this order in a transaction that committed."""
        for block in blocks:
            if not self.usable:
                return
            self._add(block)
        if not self.usable:
            self.drop()

    def add_trajectories(self, blocks: Sequence[TrajectoryBlock]) -> None:
        """Record the writer's hot path's blocks (each a trajectory and its score set, as
        `writes.trajectory_block` makes them), appended in this order in a transaction that
        committed: what `add` records of them, taken straight from their rows' layout (this
        runs for every trajectory)."""
        if not self.usable:
            return
        ledger, kept, sets = self.ledger, self.rows["trajectories"], self.rows["score_sets"]
        trajectories, scores = self.trajectories, self.scores
        paths, states = self.paths, self.states
        head = self.head
        for entry, trajectory, score_set, path, state in blocks:
            _, seq, kind, detail, prev, digest, at = entry
            run_id, item, rep, crashed, payload, created, block, row_digest, attempt = trajectory
            if head is None or seq != head.seq + 1 or prev != head.digest or attempt != 1 or (
                    score_set is not None and (score_set[3] != 0 or score_set[9] != 1)):
                self.drop()  # a later attempt, a re-scoring, a block by someone else
                return
            keep = text_bytes if self.whole else text_digest
            ledger.append((seq, kind, prev, digest, at, keep(detail)))
            kept.append((run_id, item, rep, crashed, keep(payload), created, block, row_digest))
            trajectories.append(row_digest)
            held = len(detail) + len(payload)
            if score_set is not None:
                s_run, s_item, s_rep, generation, scorers, packed, details, s_block, s_digest, _ = (
                    score_set)
                if scorers is not self._scorers[0]:  # a run stores one list of scorers
                    self._scorers = (scorers, keep(scorers))
                    held += len(scorers)
                sets.append((s_run, s_item, s_rep, generation, self._scorers[1], keep(packed),
                             keep(details), s_block, s_digest))
                held += len(packed) + len(details or "")
                scores.append(s_digest)
            paths[(item, rep)] = path
            if state is not None:
                states.add(state)
            head = Head(seq, digest)
            self._held(held)
        self.head = head

    def _held(self, more: int) -> None:
        """Count `more` bytes of long text held; past `HELD_BYTES`, keep digests instead
        (of what is held too: the lists are changed in place)."""
        if not self.whole:
            return
        self.held += more
        if self.held <= HELD_BYTES:
            return
        self.whole, self.held = False, 0
        digest = hashlib.sha256
        scorers = self._scorers
        self._scorers = (scorers[0], None if scorers[1] is None else digest(scorers[1]).digest())
        self.ledger[:] = [(*entry[:5], digest(entry[5]).digest()) for entry in self.ledger]
        for table, rows in self.rows.items():
            long_at = _long_at(table)
            for n, row in enumerate(rows):
                values = list(row)
                for i in long_at:
                    values[i] = None if values[i] is None else digest(values[i]).digest()
                rows[n] = tuple(values)

    def drop(self) -> None:
        """Nothing more is recorded, and what was is let go (the checkpoint walks instead)."""
        self.usable = False
        self.ledger, self.trajectories, self.scores = [], [], []
        self.rows = {t: [] for t in chain.CHAINED_TABLES}
        self.paths, self.states = {}, set()

    def _add(self, block: Written) -> None:
        seq, kind, detail, prev, digest, at, rows, path, state, terminal = block
        head = self.head
        follows = (seq == 1 and prev == chain.GENESIS and kind == "run") if head is None else (
            seq == head.seq + 1 and prev == head.digest)
        if not follows or (terminal is not None and not self._names_head(terminal)):
            self.usable = False
            return
        keep = text_bytes if self.whole else text_digest
        self.ledger.append((seq, kind, prev, digest, at, keep(detail)))
        held = len(detail)
        slot = None
        for table, content, row_digest, attempt in rows:
            long_at = _long_at(table)
            if attempt != 1 or table not in self.rows or (
                    table in chain.SCORE_TABLES and content[_GENERATION_AT[table]] != 0):
                self.usable = False  # later attempts and re-scorings: the walk decides
                return
            values = [*content, seq, row_digest]
            try:
                for i in long_at:
                    held += len(values[i] or "")
                    values[i] = keep(values[i])
            except TypeError:
                self.usable = False
                return
            self.rows[table].append(tuple(values))
            if table == "trajectories":
                self.trajectories.append(row_digest)
                slot = (content[1], content[2])
            elif table in chain.SCORE_TABLES:
                self.scores.append(row_digest)
        if kind == "trajectory" and slot is not None and path is not None:
            self.paths[slot] = path
        if kind == "trajectory" and state is not None:
            self.states.add(state)
        self.head = Head(seq, digest)
        self._held(held)

    def _names_head(self, detail: Mapping[str, Any]) -> bool:
        """A terminal event records the head it closes on: the last recorded block's."""
        recorded = detail.get("head")
        return recorded == (self.head.to_json() if self.head is not None else None)

    @property
    def n_rows(self) -> int:
        return sum(len(rows) for rows in self.rows.values())

