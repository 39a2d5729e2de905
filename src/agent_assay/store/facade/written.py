"""What this process appended to a run's chain, kept so that the run's checkpoint can
vouch for it without walking the chain again (`evidence.checkpoint.write_checkpoint`).

The writer computes every row's digest and every block's from the values it inserts.
A full walk at the end of the run re-reads those rows and hashes them again, to find
out whether the stored bytes still are the ones that were hashed. A `WrittenChain`
keeps, for every block a store appended to a run it created, what the checkpoint's
stream reads back of each row: its small values as the driver returns them (a bool as
0 or 1), and for each long text a SHA-256 of its bytes instead of the text, so memory
holds a few small fields per row. When the stream the checkpoint reads from the
database matches them row for row and value for value, in type as well, every stored
byte is one the writer hashed, so the walk could find nothing the writer's own digests
do not already say; anything else (a block another process appended, a row changed
since, a resumed run whose earlier blocks this process did not write) and the
checkpoint walks the chain in full, as before.

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


def text_digest(value: object) -> bytes | None:
    """What a `WrittenChain` keeps of a long text: a SHA-256 of its bytes (None for NULL)."""
    if value is None:
        return None
    if type(value) is not str:
        raise TypeError(f"a long column given a {type(value).__name__}")
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()


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
        """The last score set's list of scorers and its `text_digest`."""

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
        sha256 = hashlib.sha256
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
            ledger.append((seq, kind, prev, digest, at, sha256(detail.encode()).digest()))
            kept.append((run_id, item, rep, crashed, sha256(payload.encode()).digest(), created,
                         block, row_digest))
            trajectories.append(row_digest)
            if score_set is not None:
                s_run, s_item, s_rep, generation, scorers, packed, details, s_block, s_digest, _ = (
                    score_set)
                if scorers is not self._scorers[0]:  # a run stores one list of scorers
                    self._scorers = (scorers, sha256(scorers.encode()).digest())
                sets.append((s_run, s_item, s_rep, generation, self._scorers[1],
                             sha256(packed.encode()).digest(),
                             None if details is None else sha256(details.encode()).digest(),
                             s_block, s_digest))
                scores.append(s_digest)
            paths[(item, rep)] = path
            if state is not None:
                states.add(state)
            head = Head(seq, digest)
        self.head = head

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
        self.ledger.append((seq, kind, prev, digest, at, text_digest(detail)))
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
                    values[i] = text_digest(values[i])
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

    def _names_head(self, detail: Mapping[str, Any]) -> bool:
        """A terminal event records the head it closes on: the last recorded block's."""
        recorded = detail.get("head")
        return recorded == (self.head.to_json() if self.head is not None else None)

    @property
    def n_rows(self) -> int:
        return sum(len(rows) for rows in self.rows.values())

