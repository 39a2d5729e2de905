"""A checkpoint: one block that says "a full walk found every row up to here intact".

Re-hashing every row of a large run is most of what `report` costs (a million scores:
several seconds of Python per row). A checkpoint lets the everyday check skip it. When a
run first completes, the writer walks the whole chain; if the walk is clean it appends a
`checkpoint` block whose detail records (a writer that appended every block of the run
itself knows what a walk would find, having computed every digest from what it wrote, and
vouches for that instead of walking: see `_vouched` and `store.facade.written`)

- `through`: the last block it covers (the one before it);
- `stream`: the SHA-256 of every stored byte the covered rows hold: every chained table's
  rows of the run joined to a block up to `through` (or to none, rows sealed at
  migration), content, block and digest columns, each value with its SQLite type, plus
  the covered ledger entries, in a fixed order that does not depend on surrogate ids;
- what the walk found and a certificate binds to: the trajectory and score row sets,
  the scoring generation, the base states and the per-slot path digests.

The attempt column (which attempt at its slot a row is, see `schema.attempt_columns`)
is outside the rows' digests, so the stream covers it too: after the tables, the
slot, attempt and digest of every covered row that is not a first attempt. A run
without a retry has none, so its stream is what it was before attempts existed.

The quick check (`run_check`) recomputes the stream (reading bytes, decoding nothing),
compares it, and walks the blocks after the checkpoint in full. A covered row that was
changed, added, moved or removed changes the stream.

Only a run's *first* checkpoint is trusted. Anyone who can append a block can append a
checkpoint, and a later one could vouch for rows edited after the harness wrote them;
the first one is fixed by everything chained after it, so forging it means rewriting the
chain from there on, which the full walk cannot catch either. `verify` always walks in
full and checks every checkpoint's stream as well.

The stream is SQLite's (typeof and a cast to bytes); checkpoints are written and
trusted on SQLite stores only, and on PostgreSQL every check is a full walk.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import NoneType
from typing import Any

from sqlalchemy import (
    Connection,
    LargeBinary,
    cast,
    func,
    literal,
    literal_column,
    or_,
    select,
)
from sqlalchemy.sql import Select

from agent_assay.findings import Finding
from agent_assay.store.database import schema
from agent_assay.store.encoding import chain
from agent_assay.store.encoding.score_columns import StoredSets
from agent_assay.store.evidence.chain_check import (
    ChainCheck,
    Evidence,
    RowSet,
    Walk,
    check_base_states,
    check_run_chain,
)
from agent_assay.store.evidence.raw import RawReader
from agent_assay.store.facade.store import Store
from agent_assay.store.facade.writes import append_to_snapshot
from agent_assay.store.facade.written import WrittenChain, long_columns
from agent_assay.store.records import Head, LedgerEntry

KIND = "checkpoint"
STREAM = "aa.checkpoint.1"
_CHUNK = 1000
"""Rows hashed per JSON array: a fixed number, so the stream does not depend on how the
driver hands rows over."""

_SLOT_ORDER: Mapping[str, tuple[str, ...]] = {
    "trajectories": ("item_id", "repetition", "attempt"),
    "score_sets": ("item_id", "repetition", "generation", "attempt"),
    "scores": ("item_id", "repetition", "scorer", "generation"),
}
"""The tables that grow with a run, read along their unique slot index (no sort)."""

EVIDENCE_TABLES = frozenset({"runs", "trajectories", *chain.SCORE_TABLES, "score_generations"})
"""Rows whose arrival after a checkpoint changes what it vouches for: then the check is
a full walk."""


def _blob(value: object) -> list[str]:
    """A byte value among the small columns (no writer puts one there) as a typed token."""
    if isinstance(value, bytes | bytearray | memoryview):
        return ["b", bytes(value).hex()]
    raise TypeError(f"a stored value of type {type(value).__name__}")


_ENCODE = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False, default=_blob
).encode


@dataclass(frozen=True)
class Stream:
    """The digest of the covered rows, and the covered blocks' digests by sequence number."""

    digest: str
    digests: dict[int, str]
    slots: tuple[tuple[Any, Any], ...] = ()
    """Each trajectory row's (item id, repetition) as the stream read it (`stream_from`)."""
    sets: Mapping[int, StoredSets] | None = None
    """The score sets the stream read, by generation, as a report's figures read them
    (`stream_from`): None when a slot has a later attempt or a set's scorers or values are
    not stored as text, for then the figures read their own."""
    crashed: Mapping[tuple[Any, Any], str] | None = None
    """The payload of each crashed trajectory the stream read, by slot (`stream_from`):
    None when a slot has a later attempt or a crashed payload is not stored as text."""


class BeyondCheckpoint(Exception):
    """A row read for the stream joins a block after the checkpoint (or a block that is not
    a number): the stream cannot be compared, and the check walks the whole chain."""


@dataclass(frozen=True)
class _TableQuery:
    query: Select[Any]
    small: tuple[str, ...]
    """The columns it selects before the long ones, in order."""

    @property
    def block_at(self) -> int:
        return self.small.index("block")


def _query(table: str, run_id: str, through: int | None) -> _TableQuery:
    """The covered rows of `table` (all the run's rows when `through` is None), and where
    the block column is among what it selects.

    The run id is left out (the query fixes it). Small columns come as the driver reads
    them (JSON keeps a number apart from a text); long text comes as its SQLite type and
    its bytes, undecoded. A score row names its trajectory by a surrogate id, which differs
    between stores: the stream holds whether that id is the run's trajectory of the slot
    the row names instead.
    """
    t = schema.metadata.tables[table]
    columns = [c for c in (*chain.CONTENT_COLUMNS[table], "block", "digest") if c != "run_id"]
    long = long_columns(table)
    small: list[Any] = [t.c[c] for c in columns if c not in long]
    if table in chain.SCORE_TABLES:
        # 1 or 0, as a join on the id would give, but probed in the trajectories' slot
        # index, which holds the id: `+ 0` keeps SQLite from fetching each trajectory row
        # by its id instead (past its payload, often on overflow pages)
        owner = schema.metadata.tables["trajectories"].alias("owner")
        attempt = t.c.attempt if "attempt" in t.c else literal(1)
        small.append(select(literal_column("1")).where(
            owner.c.run_id == t.c.run_id, owner.c.item_id == t.c.item_id,
            owner.c.repetition == t.c.repetition, owner.c.attempt == attempt,
            owner.c.id + literal_column("0") == t.c.trajectory_id).exists())
    if table in _SLOT_ORDER:
        order = [t.c[c] for c in _SLOT_ORDER[table]]
    else:  # small tables: an order fixed by content alone
        order = [t.c.block, t.c.digest, *(t.c[c] for c in columns)]
    query = (
        select(*small, *(func.typeof(t.c[c]) for c in long),
               *(_bytes_of(t.c[c]) for c in long))
        .select_from(t)
        .where(t.c.run_id == run_id)
        .order_by(t.c.run_id, *order)
    )
    if through is not None:
        query = query.where(or_(t.c.block <= through, t.c.block.is_(None)))
    return _TableQuery(query, tuple(c for c in columns if c not in long))


_ATTEMPT_SLOTS: Mapping[str, tuple[str, ...]] = {
    "trajectories": ("item_id", "repetition", "attempt", "digest"),
    "score_sets": ("item_id", "repetition", "generation", "attempt", "digest"),
}
"""The tables with an attempt column, and what the stream holds of a later attempt's row."""


def _attempts_query(table: str, run_id: str, through: int | None) -> Select[Any]:
    """The covered rows of `table` that are not a first attempt (see the module)."""
    t = schema.metadata.tables[table]
    columns = [t.c[c] for c in _ATTEMPT_SLOTS[table]]
    query = select(*columns).where(t.c.run_id == run_id, t.c.attempt != 1).order_by(*columns)
    if through is not None:
        query = query.where(or_(t.c.block <= through, t.c.block.is_(None)))
    return query


def _bytes_of(column: Any) -> Any:
    """A long text column's stored bytes, undecoded (empty for NULL: its type tells them
    apart)."""
    return func.coalesce(cast(column, LargeBinary), literal(b""))


def ledger_query(run_id: str, through: int | None) -> Select[Any]:
    """The run's ledger entries as the stream holds them (seq, kind, prev_digest, digest, at,
    the detail's type and bytes), through block `through` or all of them."""
    t = schema.ledger
    query = (
        select(t.c.seq, t.c.kind, t.c.prev_digest, t.c.digest, t.c.at, func.typeof(t.c.detail),
               _bytes_of(t.c.detail))
        .where(t.c.run_id == run_id)
        .order_by(t.c.seq)
    )
    return query if through is None else query.where(t.c.seq <= through)


def _hash_rows(
    hasher: Any, rows: Iterable[tuple[Any, ...]], n_bytes: int
) -> Iterator[list[tuple[Any, ...]]]:
    """Feed `rows` to `hasher` a chunk at a time, column by column: a JSON array of the small
    columns and of the byte columns' lengths, then each byte column's bytes. Yields each
    chunk's columns, for a caller that reads more of them. (Column-major, so the work per
    row is the driver's and the C library's, not Python's.)"""
    for chunk in itertools.batched(rows, _CHUNK):
        columns = list(zip(*chunk, strict=True))
        split = len(columns) - n_bytes
        lengths = [list(map(len, column)) for column in columns[split:]]
        hasher.update(_ENCODE([columns[:split], lengths]).encode("utf-8", "surrogatepass"))
        for column in columns[split:]:
            hasher.update(b"".join(column))
        yield columns


Guard = Callable[[str, list[tuple[Any, ...]]], None]
"""Called with each chunk's columns of a table as the stream reads them."""


def _stream(
    run_id: str,
    through: int,
    ledger: Iterable[tuple[Any, ...]],
    table_rows: Callable[[str], Iterable[tuple[Any, ...]]],
    attempt_rows: Callable[[str], Iterable[tuple[Any, ...]]],
    guard: Guard | None = None,
) -> Stream:
    """The stream: the covered ledger entries, then each chained table's covered rows, then
    (only where there are any) the later attempts among them."""
    hasher = hashlib.sha256(f"{STREAM}\x1f{run_id}\x1f{through}\x1eledger".encode())
    digests: dict[int, str] = {}
    for columns in _hash_rows(hasher, ledger, 1):
        digests.update(zip(columns[0], columns[3], strict=True))
    for table in chain.CHAINED_TABLES:
        hasher.update(f"\x1e{table}".encode())
        for columns in _hash_rows(hasher, table_rows(table), len(long_columns(table))):
            if guard is not None:
                guard(table, columns)
    for table in _ATTEMPT_SLOTS:
        rows = iter(attempt_rows(table))
        first = next(rows, None)
        if first is not None:
            hasher.update(f"\x1eattempts of {table}".encode())
            for _ in _hash_rows(hasher, itertools.chain([first], rows), 0):
                pass
    return Stream(hasher.hexdigest(), digests)


class _KeptSets:
    """The score sets `stream_from` reads, kept as a report's figures read them (text, each
    list of scorers held once), and the crashed trajectories' payloads."""

    def __init__(self, run_id: str) -> None:
        trajectories = _query("trajectories", run_id, None).small
        self.slot_at = [trajectories.index(c) for c in ("item_id", "repetition")]
        self.crashed_at = trajectories.index("crashed")
        self.payload_at = len(trajectories)  # its type, then its bytes
        self.crashed: dict[tuple[Any, Any], str] = {}
        small = _query("score_sets", run_id, None).small
        long = long_columns("score_sets")
        self.at = [small.index(c) for c in ("item_id", "repetition", "generation")]
        typed = len(small) + 1  # after the small columns and the owner flag
        self.text_at = [typed + long.index(c) for c in ("scorers", "packed_values")]
        self.bytes_at = [i + len(long) for i in self.text_at]
        self.sets: dict[int, tuple[list[Any], ...]] = {}
        self.one: dict[bytes, str] = {}
        self.usable = True

    def keep(self, columns: list[tuple[Any, ...]]) -> None:
        if not self.usable:
            return
        if any(set(columns[i]) != {"text"} for i in self.text_at):
            self.usable = False
            return
        items, repetitions, generations = (columns[i] for i in self.at)
        stored, packed_bytes = (columns[i] for i in self.bytes_at)
        for text in set(stored) - self.one.keys():  # a run repeats one list of scorers
            self.one[text] = _text(text)
        # decoded as they come, each list of scorers held once: the driver's bytes go
        scorers = list(map(self.one.__getitem__, stored))
        packed = _texts(packed_bytes)
        found = set(generations)
        for generation in found:
            whole = len(found) == 1  # nearly always: one generation a chunk
            at = [] if whole else [i for i, g in enumerate(generations) if g == generation]
            kept = self.sets.setdefault(generation, ([], [], [], []))
            for column, values in zip(kept, (items, repetitions, scorers, packed),
                                      strict=True):
                column.extend(values if whole else [values[i] for i in at])

    def keep_crashed(self, columns: list[tuple[Any, ...]]) -> None:
        flags = columns[self.crashed_at]
        if not self.usable or not any(flags):
            return
        items, repetitions = (columns[i] for i in self.slot_at)
        kinds, payloads = columns[self.payload_at], columns[self.payload_at + 1]
        for i, flag in enumerate(flags):
            if flag:
                if kinds[i] != "text":
                    self.usable = False
                    return
                self.crashed[(items[i], repetitions[i])] = _text(payloads[i])

    def read(self) -> dict[int, StoredSets] | None:
        if not self.usable:
            return None
        # the stream reads no row id: a reader that finds a set misshapen reads the sets
        # again to name its row (`Store.score_columns`)
        return {g: StoredSets([-1] * len(kept[0]), *kept) for g, kept in self.sets.items()}


def _text(data: bytes) -> str:
    """Stored bytes as the driver's tolerant read decodes them (this runs before the digest
    is compared: a forged row must not raise here)."""
    return data.decode("utf-8", "surrogateescape")


def _texts(column: Sequence[bytes]) -> list[str]:
    """`_text` of each of `column`: one decode of them all, split where they were joined
    (NUL, which no UTF-8 sequence holds but itself, so no entry decodes differently), or
    one at a time when an entry holds a NUL itself."""
    parts = b"\x00".join(column).decode("utf-8", "surrogateescape").split("\x00")
    return parts if len(parts) == len(column) else list(map(_text, column))


def covered_stream(
    store: Store, run_id: str, through: int, conn: Connection | None = None
) -> Stream:
    """The stream of `run_id`'s rows covered through block `through` (read on `conn` when
    given); see the module docstring for what it holds."""
    raw = RawReader(store)
    return _stream(
        run_id,
        through,
        raw.read_raw(ledger_query(run_id, through), conn),
        lambda table: raw.read_raw(_query(table, run_id, through).query, conn),
        lambda table: raw.read_raw(_attempts_query(table, run_id, through), conn),
    )


def stream_from(
    store: Store,
    run_id: str,
    through: int,
    covered_ledger: Sequence[tuple[Any, ...]],
    conn: Connection | None = None,
) -> Stream:
    """The same stream, for the quick check: the covered ledger rows it already holds, and
    each table that grows with a run read whole in one pass (no second pass to look for
    its rows after the checkpoint); raises `BeyondCheckpoint` on such a row. It keeps the
    slots of the trajectory rows it reads: what `content_check` holds against the run's
    slots, taken from the rows themselves, not from what a checkpoint claims."""
    block_at = {table: _query(table, run_id, None).block_at for table in EVIDENCE_TABLES}
    small = _query("trajectories", run_id, None).small
    item_at, repetition_at = small.index("item_id"), small.index("repetition")
    slots: list[tuple[Any, Any]] = []
    sets = _KeptSets(run_id)
    raw = RawReader(store)

    def rows(table: str) -> Iterable[tuple[Any, ...]]:
        query = _query(table, run_id, None if table in block_at else through).query
        return raw.read_raw(query, conn)

    def within(table: str, columns: list[tuple[Any, ...]]) -> None:
        if table not in block_at:
            return
        blocks = columns[block_at[table]]
        kinds = set(map(type, blocks))  # a block is an int, or None (a row of no block)
        numbered = blocks if NoneType not in kinds else [b for b in blocks if b is not None]
        if kinds - {int, NoneType} or (int in kinds and max(numbered) > through):
            raise BeyondCheckpoint(table)
        if table == "trajectories":
            slots.extend(zip(columns[item_at], columns[repetition_at], strict=True))
            sets.keep_crashed(columns)
        elif table == "score_sets":
            sets.keep(columns)

    def attempts(table: str) -> Iterable[tuple[Any, ...]]:
        # read after the tables, which raise on a row beyond the checkpoint: all are covered
        later = list(raw.read_raw(_attempts_query(table, run_id, None), conn))
        if later:
            sets.usable = False  # the figures read newest attempts only
        return later

    stream = _stream(run_id, through, covered_ledger, rows, attempts, within)
    read = sets.read()
    return Stream(stream.digest, stream.digests, tuple(slots), read,
                  sets.crashed if read is not None else None)


@dataclass(frozen=True)
class StreamSelects:
    """The SELECTs the check from a run's checkpoint runs (`stream_from`), in the order the
    stream hashes them, for a benchmark's floor to run the same: the ledger, then each
    chained table (with how many long columns close its rows), then the later attempts."""

    run_id: str
    stream: str
    """The stream's name (`STREAM`), which its first bytes hold."""
    ledger: Select[Any]
    tables: tuple[tuple[str, Select[Any], int], ...]
    attempts: tuple[tuple[str, Select[Any]], ...]


def stream_selects(store: Store, run_id: str) -> StreamSelects | None:
    """`run_id`'s `StreamSelects`, or None when it has no checkpoint whose detail parses."""
    entry = RawReader(store).first_block(run_id, KIND)
    claim = parse_claim(entry)[0] if entry is not None else None
    if claim is None:
        return None
    tables = tuple(
        (table, _query(table, run_id, None if table in EVIDENCE_TABLES else claim.through).query,
         len(long_columns(table)))
        for table in chain.CHAINED_TABLES)
    attempts = tuple((table, _attempts_query(table, run_id, None)) for table in _ATTEMPT_SLOTS)
    return StreamSelects(run_id, STREAM, ledger_query(run_id, None), tables, attempts)


@dataclass(frozen=True)
class Claim:
    """What a checkpoint block's detail says."""

    through: int
    stream: str
    trajectories: RowSet
    generation: int
    scores: RowSet
    rows: int
    states: frozenset[str]
    paths: Mapping[tuple[str, int], str]


def claim_of(check: ChainCheck, stream: Stream) -> dict[str, Any] | None:
    """The detail of a checkpoint after `check`, a clean full walk, and `stream`; None when
    the walk's paths name a slot no writer makes (the claim could not say it)."""
    head = check.evidence.head
    if head is None or check.findings:
        return None
    if any(type(rep) is not int or rep < 1 or type(item) is not str for item, rep in check.paths):
        return None
    distinct = sorted(set(check.paths.values()))
    index = {path: i for i, path in enumerate(distinct)}
    by_item: dict[str, list[int | None]] = {}
    for (item, rep), path in sorted(check.paths.items()):
        reps = by_item.setdefault(item, [])
        reps.extend([None] * (rep - len(reps)))
        reps[rep - 1] = index[path]
    evidence = check.evidence
    return {
        "through": head.seq,
        "stream": stream.digest,
        "trajectories": evidence.trajectories.to_json(),
        "scores": {"generation": evidence.generation, **evidence.scores.to_json()},
        "covered_rows": check.rows,
        "states": sorted(check.states),
        "paths": {"distinct": distinct, "by_item": by_item},
    }


def parse_claim(entry: LedgerEntry) -> tuple[Claim | None, str]:
    """The claim a checkpoint block makes, or None and what is wrong with its detail."""
    try:
        detail = json.loads(entry.detail)
        paths = detail["paths"]
        scores = detail["scores"]
        claim = Claim(
            through=_int(detail["through"]),
            stream=_digest(detail["stream"]),
            trajectories=_rowset(detail["trajectories"]),
            generation=_int(scores["generation"]),
            scores=_rowset(scores),
            rows=_int(detail["covered_rows"]),
            states=frozenset(_digest(s) for s in detail["states"]),
            paths=_paths(paths["by_item"], [_digest(d) for d in paths["distinct"]]),
        )
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        return None, f"its detail is not a checkpoint's ({type(exc).__name__}: {exc})"
    if claim.through != entry.seq - 1:
        return None, f"it covers through block {claim.through}, not the block before it"
    return claim, ""


def _paths(by_item: Any, distinct: list[str]) -> dict[tuple[str, int], str]:
    """Per slot, its path digest: `by_item` lists each item's repetitions' indexes into
    `distinct` (null for a slot whose block recorded none)."""
    if not isinstance(by_item, dict):
        raise TypeError("paths by item is not an object")
    found: dict[tuple[str, int], str] = {}
    for item, reps in by_item.items():
        if not isinstance(reps, list):
            raise TypeError(f"paths of item {item!r} are not a list")
        for rep, at in enumerate(reps, start=1):
            if at is not None:
                if _int(at) < 0:
                    raise IndexError(f"path index {at}")
                found[(item, rep)] = distinct[at]
    return found


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"{value!r} is not a whole number")
    return value


def _digest(value: Any) -> str:
    if not chain.is_digest(value):
        raise ValueError(f"{value!r} is not a digest")
    return str(value)


def _rowset(value: Any) -> RowSet:
    return RowSet(_int(value["n"]), _digest(value["digest"]))


def write_checkpoint(store: Store, run_id: str) -> Head | None:
    """Append the run's checkpoint, when it has none yet and a full walk finds it intact;
    the new head, or None when nothing was written. When this store wrote every block of
    the run and the stream reads back exactly what it wrote, that stands for the walk
    (`_vouched`: the walk would re-hash the writer's own bytes); anything else is walked.

    The walk and the stream are read in one snapshot, and the block is appended in that
    same transaction, which SQLite allows only while nothing was committed since it
    began. When another connection wrote meanwhile (another run in the same store, say),
    the stream is taken again under the write lock and the block is appended only if it
    is unchanged: nothing the walk did not see is ever vouched for.
    """
    raw = RawReader(store)
    if not raw.embedded or raw.first_block(run_id, KIND) is not None:
        return None
    kept = store.written(run_id)
    store.forget_written(run_id)  # the first checkpoint is the one that counts
    with store.snapshot() as snapshot:
        vouched = None if kept is None else _vouched(store, run_id, kept, snapshot)
        if vouched is None:
            check = check_run_chain(store, run_id, snapshot)
            if check.findings or check.evidence.head is None:
                return None
            stream = covered_stream(store, run_id, check.evidence.head.seq, snapshot)
        else:
            check, stream = vouched
        walked = check.evidence.head
        assert walked is not None
        detail = claim_of(check, stream)
        if detail is None:
            return None
        assert snapshot is not None  # embedded
        written = append_to_snapshot(snapshot, run_id, walked, KIND, detail)
    if written is not None:
        return written

    def claim(conn: Connection, head: Head) -> dict[str, Any] | None:
        unchanged = head == walked and covered_stream(store, run_id, head.seq, conn) == stream
        return detail if unchanged else None

    return store.append_checkpoint(run_id, claim)


class _Differs(Exception):
    """What the database holds of a run is not what its writer recorded writing."""


def _vouched(
    store: Store, run_id: str, written: WrittenChain, conn: Connection | None
) -> tuple[ChainCheck, Stream] | None:
    """The check a full walk of `run_id` would make and its stream, from what this process
    wrote (`written`), when the stream read back on `conn` shows the database holds
    exactly that: every covered ledger entry and row, and no other, each value of the
    type written and each long text's bytes hashing to what was written (see
    `facade.written`). None when anything differs: then the chain is walked in full.

    The writer's digests were computed from the values it wrote, so once the stored
    values are shown to be those, re-hashing them could only give the same digests; what
    the walk checks beyond the digests holds by how the writer appends (one block after
    another from the run's first, each slot once, first attempts, generation 0, a
    terminal event naming the head it closes on), and `WrittenChain` records nothing
    else. The base states are stored outside the chain and the stream, so they are
    checked as the walk checks them."""
    head = written.head
    if head is None or not _as_written(RawReader(store), run_id, written, conn):
        return None
    if written.whole:  # the stream of what was written: no need to read it back
        ledger, rows = _ledger_columns(written), _table_columns(written)
        stream = _stream(run_id, head.seq, zip(*ledger, strict=True),
                         lambda table: zip(*rows[table], strict=True), lambda _: (), None)
    else:
        reading = _AsWritten(store, run_id, written, conn)
        try:
            stream = _stream(run_id, head.seq, reading.ledger(), reading.table_rows,
                             reading.no_later_attempts, reading.guard)
        except _Differs:
            return None
        if not reading.all_read():
            return None
    walk = Walk(run_id)
    check_base_states(walk, store, written.states)
    if walk.findings:
        return None
    trajectories, scores = written.trajectories, written.scores
    evidence = Evidence(run_id, head, RowSet(len(trajectories), chain.set_digest(trajectories)),
                        0, RowSet(len(scores), chain.set_digest(scores)))
    check = ChainCheck(run_id, (), evidence, len(written.ledger), written.n_rows,
                       paths=dict(written.paths), digests=stream.digests,
                       states=frozenset(written.states))
    return check, stream


def _as_written(raw: RawReader, run_id: str, written: WrittenChain,
                conn: Connection | None) -> bool:
    """Whether what others could have added to the run since is absent: its head is the
    writer's last block, and each chained table holds as many of its rows as were written
    (`verify` and every later check hold each row against the checkpoint's stream)."""
    ledger = schema.ledger
    head = list(raw.read_raw(select(ledger.c.seq, ledger.c.digest)
                             .where(ledger.c.run_id == run_id)
                             .order_by(ledger.c.seq.desc()).limit(1), conn))
    if written.head is None or head != [(written.head.seq, written.head.digest)]:
        return False
    for table, rows in written.rows.items():
        t = schema.metadata.tables[table]
        query = select(func.count()).select_from(t).where(t.c.run_id == run_id)
        if list(raw.read_raw(query, conn)) != [(len(rows),)]:
            return False
    return True


def _ledger_columns(written: WrittenChain) -> list[list[Any]]:
    """The ledger entries `written` holds as the stream reads them, column by column."""
    columns = [list(column) for column in zip(*written.ledger, strict=True)] or [[]] * 6
    return [*columns[:5], ["text"] * len(written.ledger), columns[5]]


def _table_columns(written: WrittenChain) -> dict[str, list[list[Any]]]:
    return {table: _expected(table, rows, written.whole) for table, rows in written.rows.items()}


class _AsWritten:
    """The reads of `_vouched`'s stream, each chunk held against what was written."""

    def __init__(
        self, store: Store, run_id: str, written: WrittenChain, conn: Connection | None
    ) -> None:
        self.raw, self.run_id, self.conn = RawReader(store), run_id, conn
        self.expected = _table_columns(written)
        self.expected["ledger"] = _ledger_columns(written)
        self.read = dict.fromkeys(self.expected, 0)

    def _held(self, table: str, columns: list[tuple[Any, ...]], n_long: int) -> None:
        at, n = self.read[table], len(columns[0])
        want = [column[at:at + n] for column in self.expected[table]]
        if len(want[0]) != n or not _same_chunk(columns, want, n_long):
            raise _Differs(table)
        self.read[table] = at + n

    def guard(self, table: str, columns: list[tuple[Any, ...]]) -> None:
        self._held(table, columns, len(long_columns(table)))

    def ledger(self) -> Iterator[tuple[Any, ...]]:
        rows = self.raw.read_raw(ledger_query(self.run_id, None), self.conn)
        for chunk in itertools.batched(rows, _CHUNK):
            self._held("ledger", list(zip(*chunk, strict=True)), 1)
            yield from chunk

    def table_rows(self, table: str) -> Iterable[tuple[Any, ...]]:
        return self.raw.read_raw(_query(table, self.run_id, None).query, self.conn)

    def no_later_attempts(self, table: str) -> Iterator[tuple[Any, ...]]:
        for _ in self.raw.read_raw(_attempts_query(table, self.run_id, None), self.conn):
            raise _Differs(table)
        yield from ()

    def all_read(self) -> bool:
        """Every row written was read back (none is missing from the database)."""
        return all(self.read[table] == len(columns[0])
                   for table, columns in self.expected.items())


_EMPTY = hashlib.sha256(b"").digest()


def _expected(table: str, rows: Sequence[tuple[Any, ...]], whole: bool) -> list[list[Any]]:
    """`WrittenChain` rows of `table` as the stream reads them back, in its order, column by
    column: the small columns (a bool as SQLite returns it, 0 or 1), the owner flag of a
    score (its own trajectory's, as written), each long column's type, then each long
    column's bytes (`whole`), else their `text_digest` (NULL as no bytes)."""
    content = chain.CONTENT_COLUMNS[table]
    at = {name: i for i, name in enumerate((*content, "block", "digest"))}
    if table in _SLOT_ORDER:
        keys = [at[c] for c in _SLOT_ORDER[table] if c != "attempt"]  # first attempts only
    else:
        keys = [at["block"], at["digest"]]
    ordered = sorted(rows, key=operator.itemgetter(*keys))
    columns = [[int(v) if type(v) is bool else v for v in map(operator.itemgetter(at[name]),
                                                                ordered)]
               for name in _query(table, "", None).small]
    if table in chain.SCORE_TABLES:
        columns.append([1] * len(ordered))
    long = [list(map(operator.itemgetter(at[name]), ordered)) for name in long_columns(table)]
    columns += [["null" if v is None else "text" for v in column] for column in long]
    empty = b"" if whole else _EMPTY
    columns += [[empty if v is None else v for v in column] for column in long]
    return columns


def _same_chunk(columns: Sequence[Sequence[Any]], want: Sequence[Sequence[Any]],
                n_long: int) -> bool:
    """Whether a chunk the stream read (`columns`, column by column, each of the last
    `n_long` a long column's bytes) is `want` (likewise, a long column as the SHA-256 of
    each value's bytes): the other values compared as JSON, which tells 1 from 1.0 and
    from true."""
    split = len(columns) - n_long
    if len(want) != len(columns) or _ENCODE(list(columns[:split])) != _ENCODE(want[:split]):
        return False
    return all([hashlib.sha256(value).digest() for value in column] == digests
               for column, digests in zip(columns[split:], want[split:], strict=True))


def checkpoint_findings(store: Store, run_id: str, ledger: Sequence[LedgerEntry]) -> list[Finding]:
    """`verify`'s check of every checkpoint in `ledger`: its detail is a checkpoint's and the
    rows it covers still stream to its digest (on SQLite; elsewhere only the detail)."""
    found: list[Finding] = []
    embedded = RawReader(store).embedded
    for entry in ledger:
        if entry.kind != KIND:
            continue
        where = f"ledger block {entry.seq} ({KIND})"
        claim, problem = parse_claim(entry)
        if claim is None:
            found.append(Finding(where, problem))
        elif embedded and covered_stream(store, run_id, claim.through).digest != claim.stream:
            found.append(Finding(where, CHANGED))
    return found


CHANGED = ("the rows it covers changed after it was written (their stored bytes no longer "
           "stream to its digest)")
