"""A run's current scores as columns: what a report aggregates, without an object per score.

Per metric, three aligned NumPy arrays (item code, repetition, value; NaN where the
scorer gave no value), sorted by (item, repetition), so a sum over them adds in the
same order a loop over the stored rows would and gives the same floating-point
result to the last bit. Item codes index `item_ids`, which is sorted.

Score sets are decoded a group at a time: every set of a run written with the same
scorers (nearly always all of them) becomes one matrix from one hex decode. Score
rows of runs written before schema 4 join the same columns.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agent_assay.store import score_pack

Codes = npt.NDArray[np.int32]
Values = npt.NDArray[np.float64]


@dataclass(frozen=True)
class MetricColumns:
    """One metric's stored values, sorted by (item, repetition)."""

    items: Codes
    repetitions: Codes
    values: Values
    versions: frozenset[str]
    imported: bool

    def restricted(self, keep: npt.NDArray[np.bool_]) -> MetricColumns:
        """Only the entries whose item code is marked in `keep`."""
        mask = keep[self.items]
        return MetricColumns(self.items[mask], self.repetitions[mask], self.values[mask],
                             self.versions, self.imported)


@dataclass(frozen=True)
class ScoreColumns:
    item_ids: tuple[str, ...]
    metrics: Mapping[str, MetricColumns]

    def restricted(self, items: Iterable[str]) -> ScoreColumns:
        """Every metric over `items` only (a tag's, say)."""
        wanted = set(items)
        keep = np.array([i in wanted for i in self.item_ids], dtype=np.bool_)
        return ScoreColumns(self.item_ids,
                            {name: m.restricted(keep) for name, m in self.metrics.items()})


@dataclass(frozen=True, slots=True)
class StoredSet:
    """One score set as read for a report (its row id names it in an error)."""

    row_id: int
    item_id: str
    repetition: int
    scorers: str
    packed_values: str


@dataclass(frozen=True, slots=True)
class StoredScore:
    """One score row of a run written before schema 4."""

    item_id: str
    repetition: int
    scorer: str
    version: str
    value: float | None
    imported: bool


class _Pieces:
    """Arrays per metric, gathered from groups of sets and from single rows."""

    def __init__(self, code: Mapping[str, int]) -> None:
        self.code = code
        self.parts: dict[str, list[tuple[Codes, Codes, Values]]] = defaultdict(list)
        self.versions: dict[str, set[str]] = defaultdict(set)
        self.imported: dict[str, bool] = defaultdict(bool)

    def add_sets(self, scorers: str, members: Sequence[StoredSet]) -> None:
        where = f"score_sets row {members[0].row_id}"
        columns = score_pack.scorer_columns(where, scorers)
        width = len(columns)
        for member in members:  # a wrong length would shift every value after it
            if len(member.packed_values) != 2 * score_pack.VALUE_BYTES * width:
                score_pack.raw_values(f"score_sets row {member.row_id}", member.packed_values,
                                      width)
        try:
            raw = bytes.fromhex("".join(m.packed_values for m in members))
        except ValueError:  # name the row that is not hex
            for member in members:
                score_pack.raw_values(f"score_sets row {member.row_id}", member.packed_values,
                                      width)
            raise
        matrix = np.frombuffer(raw, dtype="<f8").reshape(len(members), width)
        items = np.fromiter((self.code[m.item_id] for m in members), np.int32, len(members))
        reps = np.fromiter((m.repetition for m in members), np.int32, len(members))
        for j, column in enumerate(columns):
            self.parts[column.name].append((items, reps, matrix[:, j].astype(np.float64)))
            self.versions[column.name].add(column.version)
            self.imported[column.name] |= column.imported

    def add_rows(self, rows: Sequence[StoredScore]) -> None:
        by_metric: dict[str, list[StoredScore]] = defaultdict(list)
        for row in rows:
            by_metric[row.scorer].append(row)
        for name, members in by_metric.items():
            self.parts[name].append((
                np.fromiter((self.code[m.item_id] for m in members), np.int32, len(members)),
                np.fromiter((m.repetition for m in members), np.int32, len(members)),
                np.fromiter((np.nan if m.value is None else m.value for m in members),
                            np.float64, len(members)),
            ))
            self.versions[name].update(m.version for m in members)
            self.imported[name] |= any(m.imported for m in members)

    def columns(self, item_ids: tuple[str, ...]) -> ScoreColumns:
        metrics: dict[str, MetricColumns] = {}
        for name, parts in self.parts.items():
            items = np.concatenate([p[0] for p in parts])
            reps = np.concatenate([p[1] for p in parts])
            values = np.concatenate([p[2] for p in parts])
            order = np.lexsort((reps, items))
            metrics[name] = MetricColumns(items[order], reps[order], values[order],
                                          frozenset(self.versions[name]), self.imported[name])
        return ScoreColumns(item_ids, metrics)


def score_columns(sets: Sequence[StoredSet], rows: Sequence[StoredScore]) -> ScoreColumns:
    """The columns of a run's current sets and (older runs) score rows."""
    item_ids = tuple(sorted({s.item_id for s in sets} | {r.item_id for r in rows}))
    pieces = _Pieces({item_id: i for i, item_id in enumerate(item_ids)})
    groups: dict[str, list[StoredSet]] = defaultdict(list)
    for stored in sets:
        groups[stored.scorers].append(stored)
    for scorers, members in groups.items():
        pieces.add_sets(scorers, members)
    if rows:
        pieces.add_rows(rows)
    return pieces.columns(item_ids)
