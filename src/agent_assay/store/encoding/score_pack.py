"""One trajectory's scores as one stored row: the packed form of a score set.

A run scores every trajectory with the same dozen scorers, so storing one row per
score made the store, its indexes and its chain check grow thirteen times faster
than the trajectories. A score set keeps them in three columns:

- `scorers`: canonical JSON, a list of `[name, version, imported]`. Within a run it
  is nearly always the same text, so readers decode each distinct text once.
- `packed_values`: the values as IEEE-754 float64, little-endian, in hex, in the
  order of `scorers`; NaN where a scorer gave no value (a stored value is always
  finite, so NaN means nothing else). Hex keeps the column text on both backends
  and in bundles, and lets a report decode a whole run's values in one call.
- `details`: canonical JSON, a list aligned with `scorers` of objects or nulls, or
  NULL when no scorer left a detail.

Unpacking checks the shape and names the row when it does not fit, so a forged
row is a one-line error, never a traceback.
"""

from __future__ import annotations

import functools
import json
import math
import struct
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

from agent_assay.errors import AssayError, TamperedEvidence
from agent_assay.hashing import canonical_json
from agent_assay.store.records import ScoreRecord

VALUE_BYTES = 8


@dataclass(frozen=True, slots=True)
class ScorerColumn:
    """Who produced one packed value."""

    name: str
    version: str
    imported: bool


@dataclass(frozen=True, slots=True)
class PackedScores:
    """The three stored columns of one score set."""

    scorers: str
    packed_values: str
    details: str | None


Entry = tuple[str, str, bool, float | None, Mapping[str, Any] | None]
"""One score to pack: name, version, imported, value, detail."""


def pack(entries: Sequence[Entry], item_id: str, repetition: int) -> PackedScores:
    """The set of `entries` of slot (`item_id`, `repetition`), in the order given, each
    value checked (`score_value`) as it is packed: one pass, as this runs per row."""
    values: list[float] = []
    details: list[dict[str, Any] | None] = []
    scorers: list[tuple[str, str, bool]] = []
    detailed = False
    for name, version, imported, value, detail in entries:
        values.append(math.nan if value is None else _finite(name, value, item_id, repetition))
        if detail:
            details.append(dict(detail))
            detailed = True
        else:
            details.append(None)
        scorers.append((name, version, bool(imported)))
    return PackedScores(
        _scorers_text(tuple(scorers)),
        _packer(len(values))(*values).hex(),
        canonical_json(details) if detailed else None,
    )


@functools.lru_cache(maxsize=64)
def _packer(n: int) -> Callable[..., bytes]:
    """Packs `n` values as float64, little-endian (a run's sets all have one size)."""
    return struct.Struct(f"<{n}d").pack


def pack_records(records: Sequence[ScoreRecord]) -> PackedScores | None:
    """One trajectory's scores as its score set stores them, checking every value;
    None when there is no score to store. Packed where they are scored, so what travels
    to the writer is three strings, not a dozen records."""
    if not records:
        return None
    if type(records) is ScoreSet:  # packed from what the scorers gave, no record made
        return pack(records.entries, records.item_id, records.repetition)
    first = records[0]
    return pack([(r.scorer, r.scorer_version, r.imported, r.value, r.detail) for r in records],
                first.item_id, first.repetition)


def score_value(record: ScoreRecord) -> float | None:
    """The value as the database will return it (REAL), refusing NaN and infinities."""
    return _checked(record.scorer, record.value, record.item_id, record.repetition)


def _checked(scorer: str, given: float | None, item_id: str, repetition: int) -> float | None:
    return None if given is None else _finite(scorer, given, item_id, repetition)


def _finite(scorer: str, given: float, item_id: str, repetition: int) -> float:
    value = float(given)
    if not math.isfinite(value):
        raise AssayError(
            f"scorer {scorer} returned {given!r} for "
            f"{item_id}/{repetition}: a score is a finite number or None"
        )
    return value


class ScoreSet(Sequence[ScoreRecord]):
    """One trajectory's scores as a scorer set gave them (`entries`, in order): a sequence
    of `ScoreRecord`s, each made only when one is asked for. `pack_records` packs it from
    the entries, so the writer's path makes no record per score."""

    __slots__ = ("_records", "entries", "item_id", "repetition")

    def __init__(self, item_id: str, repetition: int, entries: list[Entry]) -> None:
        self.item_id, self.repetition, self.entries = item_id, repetition, entries
        self._records: list[ScoreRecord] | None = None

    def records(self) -> list[ScoreRecord]:
        if self._records is None:
            self._records = [
                ScoreRecord(item_id=self.item_id, repetition=self.repetition, scorer=name,
                            scorer_version=version, value=value, detail=detail,
                            imported=imported)
                for name, version, imported, value, detail in self.entries
            ]
        return self._records

    def __len__(self) -> int:
        return len(self.entries)

    @overload
    def __getitem__(self, index: int) -> ScoreRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[ScoreRecord]: ...

    def __getitem__(self, index: int | slice) -> ScoreRecord | list[ScoreRecord]:
        return self.records()[index]

    def __iter__(self) -> Iterator[ScoreRecord]:
        return iter(self.records())

    def __eq__(self, other: object) -> bool:
        return self.records() == (other.records() if isinstance(other, ScoreSet) else other)

    __hash__ = None  # type: ignore[assignment]  # a list's equality, and unhashable like one


@functools.lru_cache(maxsize=64)
def _scorers_text(scorers: tuple[tuple[str, str, bool], ...]) -> str:
    """A run writes the same scorer list with every trajectory: encoded once."""
    return canonical_json([list(s) for s in scorers])


def scorer_columns(where: str, text: object) -> tuple[ScorerColumn, ...]:
    """The decoded `scorers` column; `where` names the row in the error."""
    try:
        data = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        data = None
    if not isinstance(data, list):
        raise _misshapen(where, "its scorers are not a JSON list")
    columns: list[ScorerColumn] = []
    for entry in data:
        if (
            not isinstance(entry, list)
            or len(entry) != 3
            or not isinstance(entry[0], str)
            or not isinstance(entry[1], str)
            or not isinstance(entry[2], bool)
        ):
            raise _misshapen(where, "a scorer entry is not [name, version, imported]")
        columns.append(ScorerColumn(entry[0], entry[1], entry[2]))
    if len({c.name for c in columns}) != len(columns):
        raise _misshapen(where, "it names one scorer twice")
    return tuple(columns)


def values_of(where: str, packed: object, n: int) -> tuple[float | None, ...]:
    """The decoded values of one set of `n` scorers."""
    raw = raw_values(where, packed, n)
    return tuple(None if math.isnan(v) else v for v in struct.unpack(f"<{n}d", raw))


def raw_values(where: str, packed: object, n: int) -> bytes:
    """The packed values as bytes (NaN kept), checked to hold exactly `n` numbers."""
    try:
        raw = bytes.fromhex(packed) if isinstance(packed, str) else None
    except ValueError:
        raw = None
    if raw is None or len(raw) != n * VALUE_BYTES:
        raise _misshapen(where, f"its packed values do not hold {n} numbers")
    return raw


def details_of(where: str, text: object, n: int) -> tuple[Mapping[str, Any] | None, ...]:
    """The decoded details, one per scorer (None where a scorer left none)."""
    if text is None:
        return (None,) * n
    try:
        data = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        data = None
    if (
        not isinstance(data, list)
        or len(data) != n
        or not all(d is None or isinstance(d, dict) for d in data)
    ):
        raise _misshapen(where, f"its details are not a list of {n} objects or nulls")
    return tuple(data)


def _misshapen(where: str, problem: str) -> AssayError:
    return TamperedEvidence(f"{where}: stored score set does not fit its shape ({problem})")
