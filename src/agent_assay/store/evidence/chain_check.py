"""Walk one run's chain and re-hash every row it holds; say what does not match.

This is the check `report`, `compare` and `controls run` make every time, and
the first part of `verify`. It reads rows raw (no payload is decoded), so it
works on a damaged store and never raises on what it finds: every mismatch
is a finding naming the row or block. It also returns the run's *evidence*:
the chain head and the digests of its trajectory rows and of its current
scoring generation, which is what a certificate binds to.
"""

from __future__ import annotations

import functools
import json
import operator
from collections import Counter, defaultdict, namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from agent_assay.collector import paused
from agent_assay.findings import Finding
from agent_assay.store.database.base_states import BaseStates
from agent_assay.store.encoding import chain
from agent_assay.store.encoding.score_columns import StoredSets
from agent_assay.store.evidence.raw import RawReader
from agent_assay.store.facade.store import Store
from agent_assay.store.records import TERMINAL_EVENTS, Head, LedgerEntry, StoredRows

Row = chain.Columns
"""One stored row as the checks read it, by column name: a dict for the small tables, and
for the tables that grow with a run a tuple of only the columns the checks read (a
`_kept_row`), which holds a run of a million scores in a fraction of the memory."""

# The columns later checks read of the tables that grow with a run; the rest of a row is
# re-hashed and let go, so memory holds a few small fields per trajectory, not its payload.
_KEPT_COLUMNS: Mapping[str, frozenset[str]] = {
    "trajectories": frozenset({"id", "item_id", "repetition", "block", "attempt", "crashed"}),
    "scores": frozenset({"id", "trajectory_id", "item_id", "repetition", "scorer",
                         "generation", "block"}),
    "score_sets": frozenset({"id", "trajectory_id", "item_id", "repetition", "generation",
                             "block", "attempt"}),
}
_NAMES = frozenset({"item_id", "scorer"})
"""Kept text that repeats across a run's rows: one shared string per distinct value."""


@dataclass(frozen=True, slots=True)
class RowSet:
    """How many rows, and the digest of them as a multiset."""

    n: int
    digest: str

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "digest": self.digest}


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a certificate binds to: the chain head, the trajectories, the current scores."""

    run_id: str
    head: Head | None
    trajectories: RowSet
    generation: int
    scores: RowSet

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "head": self.head.to_json() if self.head else None,
            "trajectories": self.trajectories.to_json(),
            "scores": {"generation": self.generation, **self.scores.to_json()},
        }


@dataclass(frozen=True)
class ChainCheck:
    run_id: str
    findings: tuple[Finding, ...]
    evidence: Evidence
    blocks: int
    rows: int
    ledger: tuple[LedgerEntry, ...] = field(default=())
    """The blocks this check read whole: every block for a full walk, the blocks after the
    checkpoint for a check from one (see `run_check`)."""
    paths: Mapping[tuple[str, int], str] = field(default_factory=dict)
    """Per trajectory slot, the digest of its proposal path its block records (blocks
    written before schema 4 record none): what the consistency figure compares."""
    digests: Mapping[int, str] = field(default_factory=dict)
    """Every block's digest, by sequence number: what a recorded chain head is looked up in."""
    states: frozenset[str] = frozenset()
    """The base states the trajectory blocks name (see `state_blobs`)."""
    slots: tuple[tuple[Any, Any], ...] = ()
    """Each trajectory row's (item id, repetition), as stored, one per row: what
    `content_check` holds against the run's item x repetition slots."""
    sets: Mapping[int, StoredSets] | None = None
    """The run's score sets by generation as a check from a checkpoint read them (the
    rows its digest vouches for; see `checkpoint.stream_from`), so a report's figures
    need not read them again; None when the check read none it can lend."""
    crashed: Mapping[tuple[Any, Any], str] | None = None
    """Likewise, each crashed slot's trajectory payload (every slot of a run with no
    later attempt), so its crash causes need not be read again (`Store.lend_checked`)."""

    @property
    def intact(self) -> bool:
        return not self.findings


def _row_name(table: str, row: Row) -> str:
    if table in ("trajectories", "scores", "score_sets"):
        slot = f"{row['item_id']}/{row['repetition']}{_attempt_name(_attempt_of(row))}"
        if table == "scores":
            slot += f" {row['scorer']}"
        elif table == "score_sets":
            slot += f" generation {row['generation']}"
        return f"{table} row {row['id']} ({slot})"
    if isinstance(row, dict) and "id" in row:
        return f"{table} row {row['id']}"
    if table == "run_env":
        return f"run_env row {row['key']!r}"
    if table == "score_generations":
        return f"score_generations row {row['generation']}"
    return f"{table} row"


def _attempt_of(row: Row) -> Any:
    """A row's attempt at its slot: its column's value, 1 for a score row (stored before
    attempts were numbered)."""
    try:
        return row["attempt"]
    except (KeyError, AttributeError):
        return 1


def _attempt_name(attempt: Any) -> str:
    """How a slot's attempt is named after it: nothing for the first."""
    return "" if attempt == 1 else f" attempt {attempt}"


def _parse_detail(entry: LedgerEntry, findings: list[Finding]) -> dict[str, Any]:
    try:
        detail = json.loads(entry.detail)
    except (TypeError, ValueError):
        findings.append(Finding(f"ledger block {entry.seq}", "its detail does not decode"))
        return {}
    if not isinstance(detail, dict):
        findings.append(Finding(f"ledger block {entry.seq}", "its detail is not an object"))
        return {}
    return detail


class Walk:
    """The state of one walk: rows grouped by block, legacy rows by table, findings."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.findings: list[Finding] = []
        self.by_block: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        self.legacy: dict[str, list[str]] = defaultdict(list)
        self.rows = 0

    def add(self, where: str, problem: str) -> None:
        self.findings.append(Finding(where, problem))

    def digest_rows(self, table: str, stored: StoredRows) -> tuple[list[Row], list[str | None]]:
        """Re-hash every row of one table; keep what the later checks read of each row and its
        recomputed digest (None when it cannot be encoded)."""
        n = len(chain.CONTENT_COLUMNS[table])
        wanted = _KEPT_COLUMNS.get(table)
        kept = [i for i, c in enumerate(stored.columns) if wanted is None or c in wanted]
        names = [stored.columns[i] for i in kept]
        assert len(kept) > 1  # so the getter returns a tuple
        pick = operator.itemgetter(*kept)
        make = _row_maker(names, growing=wanted is not None)
        rows: list[Row] = []
        digests: list[str | None] = []
        by_block = self.by_block
        row_digest = chain.row_digest
        for values in stored.rows:
            row = make(pick(values))
            rows.append(row)
            try:
                digest = row_digest(table, values[:n])
            except chain.UnencodableValue as exc:
                self.add(_row_name(table, row), f"holds a value no writer produces ({exc})")
                digests.append(None)
                continue
            digests.append(digest)
            block, held = values[n], values[n + 1]
            if held == digest and type(block) is int:  # the common case, checked fastest
                by_block[block][table].append(digest)
                continue
            self._file_odd_row(table, row, digest, block, held)
        self.rows += len(rows)
        return rows, digests

    def _file_odd_row(
        self, table: str, row: Row, digest: str, block: object, held: object
    ) -> None:
        """A row sealed at migration (no block, no digest), or one whose chain columns
        disagree with its content."""
        if held is None and block is None:
            self.legacy[table].append(digest)
            return
        if held != digest:
            self.add(_row_name(table, row), "content does not match its digest (changed after it "
                     "was written)")
        if not isinstance(block, int) or not chain.is_digest(held):
            self.add(_row_name(table, row), "its block or digest column is missing or damaged")
            return
        # the block is checked against the digests as stored, so an edited row is one finding
        # (above) and an edited digest column is another (its block's)
        self.by_block[block][table].append(str(held))


def _row_maker(names: Sequence[str], *, growing: bool) -> Callable[[tuple[Any, ...]], Row]:
    """How one table's kept values become a row: a dict for a small table; for one that
    grows with a run, a `_kept_row` whose repeated texts (item ids, scorer names) are held
    once each."""
    if not growing:
        return lambda values: dict(zip(names, values, strict=True))
    record = _kept_row(tuple(names))
    shared_at = [position for position, name in enumerate(names) if name in _NAMES]
    one: dict[str, str] = {}

    def make(values: tuple[Any, ...]) -> Row:
        held = list(values)
        for position in shared_at:
            value = held[position]
            if type(value) is str:
                held[position] = one.setdefault(value, value)
        row: Row = record._make(held)
        return row

    return make


@functools.cache
def _kept_row(names: tuple[str, ...]) -> Any:
    """A named tuple of `names` that is also read by column name (`row["item_id"]`)."""
    base = namedtuple("KeptRow", names)  # type: ignore[misc]

    def by_name(self: Any, key: Any) -> Any:
        return getattr(self, key) if type(key) is str else tuple.__getitem__(self, key)

    return type("KeptRow", (base,), {"__slots__": (), "__getitem__": by_name})


def check_run_chain(store: Store, run_id: str, snapshot: Connection | None = None) -> ChainCheck:
    """The full walk, every read in one snapshot of the store (see `Store.snapshot`): the
    caller's `snapshot` when it holds one, else its own."""
    if snapshot is not None:
        with paused():
            return _check_run_chain(store, run_id, snapshot)
    with paused(), store.snapshot() as conn:
        return _check_run_chain(store, run_id, conn)


def _check_run_chain(store: Store, run_id: str, conn: Connection | None) -> ChainCheck:
    walk = Walk(run_id)
    raw = RawReader(store)
    rows: dict[str, list[Row]] = {}
    digests: dict[str, list[str | None]] = {}
    for table in chain.CHAINED_TABLES:
        rows[table], digests[table] = walk.digest_rows(
            table, raw.chained_rows(table, run_id, conn=conn))
    ledger = sound_entries(walk, raw.ledger(run_id, conn=conn))
    _check_ledger(walk, ledger)
    paths, states, attempts = _check_rows_against_blocks(walk, ledger, rows)
    check_base_states(walk, store, states)
    _check_slots(walk, rows)
    _check_attempts(walk, rows, digests["trajectories"], attempts)
    digest_at = {entry.seq: entry.digest for entry in ledger}
    check_terminal_heads(walk, digest_at, rows["run_events"])
    generation = _check_generations(walk, rows)
    head = Head(ledger[-1].seq, ledger[-1].digest) if ledger else None
    trajectory_digests = [d for d in digests["trajectories"] if d is not None]
    current = [
        d
        for table in chain.SCORE_TABLES
        for row, d in zip(rows[table], digests[table], strict=True)
        if d is not None and row["generation"] == generation
    ]
    evidence = Evidence(
        run_id=run_id,
        head=head,
        trajectories=RowSet(len(trajectory_digests), chain.set_digest(trajectory_digests)),
        generation=generation,
        scores=RowSet(len(current), chain.set_digest(current)),
    )
    slots = tuple((row["item_id"], row["repetition"]) for row in rows["trajectories"])
    return ChainCheck(run_id, tuple(walk.findings), evidence, len(ledger), walk.rows,
                      tuple(ledger), paths, digest_at, frozenset(states), slots)


def sound_entries(walk: Walk, ledger: list[LedgerEntry]) -> list[LedgerEntry]:
    """The ledger entries whose fields have the types the writer gives them; the rest are
    findings (a damaged entry cannot be re-hashed, and its absence is a gap in the chain)."""
    sound: list[LedgerEntry] = []
    for entry in ledger:
        if (
            isinstance(entry.seq, int)
            and isinstance(entry.kind, str)
            and isinstance(entry.detail, str)
            and chain.is_digest(entry.prev_digest)
            and chain.is_digest(entry.digest)
        ):
            sound.append(entry)
        else:
            walk.add(f"ledger block {entry.seq!r}", "is damaged: a field has the wrong type")
    return sound


def _check_ledger(walk: Walk, ledger: list[LedgerEntry]) -> None:
    if not ledger:
        walk.add(f"run {walk.run_id}", "has no ledger: its rows are not chained")
        return
    check_links(walk, ledger, 1, chain.GENESIS)
    if ledger[0].kind not in ("run", "seal"):
        walk.add("ledger block 1", f"is a {ledger[0].kind!r} block, not the run's creation")


def check_links(walk: Walk, entries: Sequence[LedgerEntry], first: int, prev: str) -> None:
    """`entries` are blocks `first`, `first + 1`, ... each linking to the one before it,
    the first to a block whose digest is `prev`."""
    for position, entry in enumerate(entries, start=first):
        where = f"ledger block {entry.seq}"
        if entry.seq != position:
            walk.add(where, f"out of sequence (expected block {position}): a block is missing")
        if entry.prev_digest != prev:
            walk.add(where, "does not link to the block before it")
        prev = entry.digest


def _check_rows_against_blocks(
    walk: Walk, ledger: list[LedgerEntry], rows: Mapping[str, list[Row]]
) -> tuple[dict[tuple[str, int], str], set[str], dict[int, Mapping[str, Any]]]:
    """Each block holds the rows its entry records and digests to them; returns the path
    digests the trajectory blocks record, by slot, the base states they name, and the
    details of the blocks that record a later attempt."""
    slot_of = {row["block"]: (row["item_id"], row["repetition"]) for row in rows["trajectories"]}
    paths, states, sealed, attempts = check_blocks(walk, ledger, slot_of)
    if walk.legacy and not sealed:
        tables = ", ".join(sorted(walk.legacy))
        walk.add(f"run {walk.run_id}", f"has unchained {tables} rows and no seal")
    runs = rows["runs"]
    if len(runs) != 1:
        walk.add(f"run {walk.run_id}", f"has {len(runs)} runs rows, not 1")
    elif runs[0]["block"] not in (None, 1):
        walk.add(f"run {walk.run_id}", f"its runs row joined block {runs[0]['block']}, not 1")
    return paths, states, attempts


def check_blocks(
    walk: Walk, ledger: Sequence[LedgerEntry], slot_of: Mapping[Any, tuple[str, int]]
) -> tuple[dict[tuple[str, int], str], set[str], bool, dict[int, Mapping[str, Any]]]:
    """Each of `ledger`'s blocks holds the rows the walk filed under it, as many as its entry
    records, and digests to them; no row names a block outside `ledger`. Returns the path
    digests trajectory blocks record (by the slot `slot_of` gives their block: a slot's
    newest attempt's, the last in the ledger), the base states they name, whether a seal
    was among the blocks, and the detail of each trajectory block that records a later
    attempt, by block."""
    paths: dict[tuple[str, int], str] = {}
    states: set[str] = set()
    attempts: dict[int, Mapping[str, Any]] = {}
    known = {entry.seq for entry in ledger}
    for block in sorted(set(walk.by_block) - known):
        tables = ", ".join(sorted(walk.by_block[block]))
        walk.add(f"ledger block {block}", f"is named by {tables} rows but is not in the ledger")
    sealed = False
    for entry in ledger:
        detail = _parse_detail(entry, walk.findings)
        held = walk.by_block.get(entry.seq, {})
        recorded = detail.get("rows", {}) if isinstance(detail.get("rows", {}), dict) else {}
        for table in sorted(set(recorded) | set(held)):
            have, want = len(held.get(table, [])), recorded.get(table, 0)
            if have != want:
                walk.add(
                    f"ledger block {entry.seq} ({entry.kind})",
                    f"holds {have} {table} row(s), its entry records {want}",
                )
        expected = chain.block_digest(
            walk.run_id,
            entry.seq,
            entry.kind,
            entry.prev_digest,
            entry.detail,
            [d for table_digests in held.values() for d in table_digests],
        )
        if expected != entry.digest:
            walk.add(f"ledger block {entry.seq} ({entry.kind})", "digest does not match its rows")
        path = detail.get("path")
        if entry.kind == "trajectory" and isinstance(path, str) and entry.seq in slot_of:
            paths[slot_of[entry.seq]] = path
        if entry.kind == "trajectory" and isinstance(detail.get("state"), str):
            states.add(detail["state"])
        if entry.kind == "trajectory" and "attempt" in detail:
            attempts[entry.seq] = detail
        if entry.kind == "seal":
            sealed = True
            _check_seal(walk, entry, detail)
    return paths, states, sealed, attempts


def check_base_states(walk: Walk, store: Store, states: set[str]) -> None:
    """Every base state a trajectory block names is stored and still hashes to its name:
    without it the trajectory's final state cannot be rebuilt (see `state_blobs`)."""
    named = {digest for digest in states if chain.is_digest(digest)}
    for odd in sorted(states - named):  # a changed byte in a block's detail, say
        walk.add(f"run {walk.run_id}", f"a trajectory's block names a base state that is no "
                 f"digest ({odd[:20]!r})")
    bases = BaseStates(store.engine)
    bases.load(named)
    for digest in sorted(named):
        try:
            bases.text(digest)
        except ValueError as exc:
            walk.add(f"run {walk.run_id}", f"a trajectory's final state: {exc}")


def _check_seal(walk: Walk, entry: LedgerEntry, detail: Mapping[str, Any]) -> None:
    sealed = detail.get("sealed", {})
    if not isinstance(sealed, dict):
        walk.add(f"ledger block {entry.seq} (seal)", "its sealed digests do not decode")
        return
    for table in sorted(set(sealed) | set(walk.legacy)):
        found = walk.legacy.get(table, [])
        want = sealed.get(table, {})
        if not isinstance(want, dict):
            want = {}
        if len(found) != want.get("rows", 0):
            walk.add(
                f"{table} rows sealed at migration",
                f"{len(found)} stored, the seal records {want.get('rows', 0)}",
            )
        elif chain.set_digest(found) != want.get("digest"):
            walk.add(f"{table} rows sealed at migration", "content changed since the seal")


def _check_slots(walk: Walk, rows: Mapping[str, list[Row]]) -> None:
    """Each attempt at a trajectory slot once; each score row and score set names its own
    trajectory's slot and attempt; a trajectory has one set, or one row per scorer, in each
    generation (the database refuses otherwise, unless its guards were removed), never
    both."""
    slot_of = _trajectory_slots(walk, rows)
    _check_score_rows(walk, rows, slot_of)


def _trajectory_slots(walk: Walk, rows: Mapping[str, list[Row]]) -> dict[Any, tuple[Any, Any, Any]]:
    """Each trajectory row's slot and attempt, by row id; a slot attempt stored twice is
    found."""
    slot_of: dict[Any, tuple[Any, Any, Any]] = {}
    seen: Counter[tuple[Any, Any, Any]] = Counter()
    for row in rows["trajectories"]:
        slot = (row["item_id"], row["repetition"], row["attempt"])
        slot_of[row["id"]] = slot
        seen[slot] += 1
    for (item, repetition, attempt), n in sorted(seen.items(), key=str):
        if n > 1:
            walk.add(f"trajectory {item}/{repetition}{_attempt_name(attempt)}",
                     f"stored {n} times")
    return slot_of


def _check_score_rows(
    walk: Walk, rows: Mapping[str, list[Row]], slot_of: Mapping[Any, tuple[Any, Any, Any]]
) -> None:
    """Each score row and score set names its own trajectory's slot and attempt; one set,
    or one row per scorer, in each generation, never both."""
    per_key: Counter[tuple[Any, str, int]] = Counter()
    in_rows: set[tuple[Any, int]] = set()
    for table in chain.SCORE_TABLES:
        for row in rows[table]:
            named = (row["item_id"], row["repetition"], _attempt_of(row))
            if slot_of.get(row["trajectory_id"]) != named:
                walk.add(_row_name(table, row), "belongs to another trajectory than its slot says")
            if row["block"] is None:
                continue
            if table == "scores":
                per_key[(row["trajectory_id"], row["scorer"], row["generation"])] += 1
                in_rows.add((row["trajectory_id"], row["generation"]))
                continue
            key = (row["trajectory_id"], "a score set", row["generation"])
            per_key[key] += 1
            if key[::2] in in_rows:
                walk.add(_row_name(table, row), "scores a trajectory that also has score rows")
    for (trajectory_id, scorer, generation), n in sorted(per_key.items(), key=str):
        if n > 1:
            walk.add(
                f"scores of trajectory row {trajectory_id}",
                f"{n} rows for {scorer} in generation {generation}",
            )


RETRY_EVENT = "retry"
"""The event a retrying session appends before it runs any crashed slot again."""


def _check_attempts(
    walk: Walk,
    rows: Mapping[str, list[Row]],
    digests: Sequence[str | None],
    recorded: Mapping[int, Mapping[str, Any]],
) -> None:
    """A slot's attempts are 1, 2, ... and each is the attempt its block records. Every one
    after the first runs again the attempt before it: that one crashed, was stored first,
    is the row its block names (by digest), and a retry event lies between the two. A
    second trajectory for a slot with none of that is not a retry but an extra row."""
    later: set[tuple[Any, Any]] = set()
    for row in rows["trajectories"]:
        attempt, block = row["attempt"], row["block"]
        detail = recorded.get(block, {}) if isinstance(block, int) else {}
        said = detail.get("attempt", 1)
        if said != attempt:
            walk.add(_row_name("trajectories", row),
                     f"is attempt {attempt!r}, its ledger block {block} records {said!r}")
        if attempt != 1:
            later.add((row["item_id"], row["repetition"]))
    if not later:
        return  # the common case: one attempt per slot, nothing more is held
    retries = sorted((row["block"], _retry_mode(row)) for row in rows["run_events"]
                     if row["event"] == RETRY_EVENT and isinstance(row["block"], int))
    by_slot: dict[tuple[Any, Any], dict[Any, tuple[Row, str | None]]] = defaultdict(dict)
    for row, digest in zip(rows["trajectories"], digests, strict=True):
        slot = (row["item_id"], row["repetition"])
        if slot in later:
            by_slot[slot][row["attempt"]] = (row, digest)
    for (item, repetition), held in by_slot.items():
        where = f"trajectory {item}/{repetition}"
        numbers = sorted(held, key=str)
        if numbers != list(range(1, len(held) + 1)):
            walk.add(where, f"holds attempts {', '.join(map(str, numbers))}, not 1 to "
                            f"{len(held)}")
            continue
        for number in numbers[1:]:
            row, _ = held[number]
            before, before_digest = held[number - 1]
            _check_retry(walk, f"{where} attempt {number}", row, before, before_digest,
                         recorded.get(row["block"], {}), retries)


def _retry_mode(row: Row) -> object:
    """The `--retry` mode a retry event records (None when its detail does not say)."""
    try:
        return json.loads(row["detail"]).get("retry")
    except (TypeError, ValueError, AttributeError):
        return None  # a changed row is already a digest finding


def _check_retry(
    walk: Walk,
    where: str,
    row: Row,
    before: Row,
    before_digest: str | None,
    detail: Mapping[str, Any],
    retries: Sequence[tuple[int, object]],
) -> None:
    """`row` runs `before` (the attempt before it at its slot) again, as a retry may: the
    newest retry event between them asked for crashes of the cause its block records (the
    cause itself is checked against `before`'s payload by `verify`)."""
    if not before["crashed"]:
        walk.add(where, f"runs again attempt {before['attempt']}, which did not crash")
    if detail.get("retries") != before_digest:
        walk.add(where, f"its ledger block {row['block']} names another trajectory than "
                        f"attempt {before['attempt']} as the one it runs again")
    first, then = before["block"], row["block"]
    if not (isinstance(first, int) and isinstance(then, int) and first < then):
        walk.add(where, f"is not stored after attempt {before['attempt']}")
        return
    modes = [mode for block, mode in retries if first < block < then]
    if not modes:
        walk.add(where, "has no retry event before it (a second trajectory for the slot "
                        "that no `run --resume --retry` recorded)")
    elif modes[-1] == "harness" and detail.get("cause") != "harness":
        walk.add(where, f"was run again by `--retry harness`, but its block records the "
                        f"{detail.get('cause')}'s crash")


def check_terminal_heads(walk: Walk, digest_at: Mapping[int, str], events: list[Row]) -> None:
    """Each terminal event records a chain head that is in the chain."""
    for row in events:
        if row["event"] not in TERMINAL_EVENTS or row["block"] is None:
            continue
        try:
            head = json.loads(row["detail"]).get("head")
        except (TypeError, ValueError, AttributeError):
            continue  # a changed row is already a digest finding
        if head is None:
            continue
        if not isinstance(head, dict) or digest_at.get(head.get("seq", -1)) != head.get("digest"):
            walk.add(_row_name("run_events", row), "records a chain head the ledger does not have")


def _check_generations(walk: Walk, rows: Mapping[str, list[Row]]) -> int:
    recorded = {int(r["generation"]) for r in rows["score_generations"]}
    for table in chain.SCORE_TABLES:
        for row in rows[table]:
            if row["generation"] != 0 and row["generation"] not in recorded:
                walk.add(_row_name(table, row),
                         f"in generation {row['generation']}, never recorded")
    return max(recorded, default=0)
