"""The checkers' raw reads: a run's ledger and chained rows as the driver's tuples,
streamed, decoded tolerantly when a damaged store holds text that is not UTF-8.

Only the evidence checks read this way (the `Store` facade hands everyone else decoded
records). A `RawReader` reads through its store's connections, so on a pinned store it
sees the store's one snapshot, and on `conn` when a read is given one.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.exc import DBAPIError

from agent_assay.store.database import schema
from agent_assay.store.database.reads import batches, tolerant_text, undecodable
from agent_assay.store.encoding import chain
from agent_assay.store.facade.store import Store
from agent_assay.store.records import LedgerEntry, StoredRows

LEDGER_FIELDS = ("seq", "kind", "detail", "prev_digest", "digest", "at")
READ_ORDER: Mapping[str, tuple[str, ...]] = {
    "trajectories": ("run_id", "item_id", "repetition", "attempt"),
    "score_sets": ("run_id", "item_id", "repetition", "generation", "attempt"),
}
"""The order a table that grows with a run is streamed in: its slot index's."""


class RawReader:
    """Raw reads of `store`'s runs for the evidence checks."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def embedded(self) -> bool:
        """An SQLite store (the stream a checkpoint digests is SQLite's; see `checkpoint`)."""
        return self.store.engine.dialect.name == "sqlite"

    def _reader(self, conn: Connection | None) -> Any:
        return nullcontext(conn) if conn is not None else self.store.reading()

    @contextmanager
    def tolerant_connection(self, conn: Connection | None = None) -> Iterator[Connection]:
        """A connection (`conn` when given, else the store's) on which text that is not
        valid UTF-8 reads back (with surrogate escapes) instead of raising: checkers must
        see a damaged row to name it."""
        with self._reader(conn) as reader:
            raw = reader.connection.driver_connection
            if not isinstance(raw, sqlite3.Connection):
                yield reader
                return
            raw.text_factory = tolerant_text
            try:
                yield reader
            finally:
                raw.text_factory = str

    def ledger(
        self, run_id: str, after: int | None = None, conn: Connection | None = None
    ) -> list[LedgerEntry]:
        """The run's blocks in order (read on `conn` when given); only those after block
        `after` when it is given."""
        table = schema.ledger
        query = select(*(table.c[c] for c in LEDGER_FIELDS)).where(table.c.run_id == run_id)
        if after is not None:
            query = query.where(table.c.seq > after)
        return [LedgerEntry(*row) for row in self.read_raw(query.order_by(table.c.seq), conn)]

    def first_block(
        self, run_id: str, kind: str, conn: Connection | None = None
    ) -> LedgerEntry | None:
        """The run's earliest block of `kind` (read on `conn` when given), or None."""
        table = schema.ledger
        query = (select(*(table.c[c] for c in LEDGER_FIELDS))
                 .where(table.c.run_id == run_id, table.c.kind == kind)
                 .order_by(table.c.seq).limit(1))
        found = list(self.read_raw(query, conn))
        return LedgerEntry(*found[0]) if found else None

    def has_block(self, run_id: str, kind: str, conn: Connection | None = None) -> bool:
        """Whether the run holds a block of `kind` (read on `conn` when given), looked for
        from its newest block back: a run's checkpoint follows its last trajectory, so this
        reads a block or two where `first_block` reads every block before it."""
        table = schema.ledger
        query = (select(table.c.seq).where(table.c.run_id == run_id, table.c.kind == kind)
                 .order_by(table.c.seq.desc()).limit(1))
        return bool(list(self.read_raw(query, conn)))

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
        order = READ_ORDER.get(table, ("id",) if "id" in t.c else ("block",))
        query = select(*(t.c[c] for c in columns)).where(t.c.run_id == run_id)
        if after is not None:
            query = query.where(t.c.block > after)
        return StoredRows(columns, self.read_raw(query.order_by(*(t.c[c] for c in order)), conn))

    def read_raw(self, query: Any, conn: Connection | None = None) -> Iterator[tuple[Any, ...]]:
        """The rows of `query`, streamed, as the driver's tuples; on `conn` when it is given
        (inside its transaction). Text is decoded the fast way; should a value not be UTF-8
        (a damaged store), the query is read again with tolerant decoding from the row where
        the fast read stopped (on `conn` too), so checkers still see, and can name, the
        damaged row."""
        return itertools.chain.from_iterable(self._tolerant_batches(query, conn))

    def _tolerant_batches(
        self, query: Any, conn: Connection | None
    ) -> Iterator[Sequence[tuple[Any, ...]]]:
        done = 0  # a batch is fetched whole or raises: none of a failed one was handed out
        try:
            with self._reader(conn) as reader:
                for batch in batches(reader, query):
                    yield batch
                    done += len(batch)
            return
        except DBAPIError as exc:
            if not undecodable(exc):
                raise
        with self.tolerant_connection(conn) as tolerant:
            for batch in batches(tolerant, query):
                if done >= len(batch):
                    done -= len(batch)
                    continue
                yield batch[done:]
                done = 0
