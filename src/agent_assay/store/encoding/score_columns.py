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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from agent_assay.model import CrashCause
from agent_assay.store.encoding import score_pack

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


@dataclass(frozen=True)
class ScoreColumns:
    item_ids: tuple[str, ...]
    metrics: Mapping[str, MetricColumns]
    crashed: Mapping[tuple[int, int], CrashCause] = field(default_factory=dict)
    """(item code, repetition) -> cause, for every crashed slot that has scores: what
    `stats.crashes.treat` needs to apply the rule to each metric (a cut of the run, a
    tag's items say, restricts what the rule made of the whole run: `Treated.restricted`)."""


@dataclass(frozen=True)
class StoredSets:
    """A run's score sets as read for a report, column by column (row i of each list is one
    set; its row id names it in an error)."""

    row_ids: Sequence[int]
    item_ids: Sequence[str]
    repetitions: Sequence[int]
    scorers: Sequence[str]
    packed_values: Sequence[str]

    @staticmethod
    def of_batches(batches: Iterable[Sequence[tuple[int, str, int, str, str]]]) -> StoredSets:
        """Columns of batches of (row id, item id, repetition, scorers, packed values) rows;
        the texts that repeat down a run (item ids, scorer lists) are held once each."""
        one: dict[str, str] = {}
        columns: tuple[list[Any], ...] = ([], [], [], [], [])
        for batch in batches:
            row_ids, item_ids, repetitions, scorers, packed = zip(*batch, strict=True)
            shared_items = [one.setdefault(i, i) for i in item_ids]
            shared_scorers = [one.setdefault(x, x) for x in scorers]
            for column, values in zip(
                columns, (row_ids, shared_items, repetitions, shared_scorers, packed), strict=True
            ):
                column.extend(values)
        return StoredSets(*columns)


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

    def add_sets(self, scorers: str, sets: StoredSets, members: Sequence[int] | None) -> None:
        """The sets at positions `members` (None: every set), all written with the same
        `scorers`."""
        row_ids = _picked(sets.row_ids, members)
        where = f"score_sets row {row_ids[0]}"
        columns = score_pack.scorer_columns(where, scorers)
        width = len(columns)
        packed = _picked(sets.packed_values, members)
        if set(map(len, packed)) != {2 * score_pack.VALUE_BYTES * width}:
            for row_id, text in zip(row_ids, packed, strict=True):  # a wrong length would
                score_pack.raw_values(f"score_sets row {row_id}", text, width)  # shift the rest
        try:
            raw = bytes.fromhex("".join(packed))
        except ValueError:  # name the row that is not hex
            for row_id, text in zip(row_ids, packed, strict=True):
                score_pack.raw_values(f"score_sets row {row_id}", text, width)
            raise
        n = len(packed)
        matrix = np.frombuffer(raw, dtype="<f8").reshape(n, width)
        items = np.fromiter(map(self.code.__getitem__, _picked(sets.item_ids, members)),
                            np.int32, n)
        reps = np.fromiter(_picked(sets.repetitions, members), np.int32, n)
        by_column = np.ascontiguousarray(matrix.T, dtype=np.float64)  # one copy, not one a column
        for j, column in enumerate(columns):
            self.parts[column.name].append((items, reps, by_column[j]))
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

    def columns(
        self, item_ids: tuple[str, ...], crashed: Mapping[tuple[str, int], CrashCause]
    ) -> ScoreColumns:
        metrics: dict[str, MetricColumns] = {}
        # metrics read from the same sets share their item and repetition arrays: those
        # are joined and sorted once, and the sorted arrays are shared too
        slots: dict[tuple[int, ...], tuple[Codes, Codes, npt.NDArray[np.intp] | None]] = {}
        for name, parts in self.parts.items():
            key = tuple(id(a) for p in parts for a in p[:2])
            if key not in slots:
                items = _joined([p[0] for p in parts])
                reps = _joined([p[1] for p in parts])
                if _in_order(items, reps):  # as a run's sets are read: no sort, no copy
                    slots[key] = items, reps, None
                else:
                    by_slot = np.lexsort((reps, items))
                    slots[key] = items[by_slot], reps[by_slot], by_slot
            items, reps, order = slots[key]
            values = _joined([p[2] for p in parts])
            if order is not None:
                values = values[order]
            metrics[name] = MetricColumns(items, reps, values,
                                          frozenset(self.versions[name]), self.imported[name])
        coded = {(self.code[item], rep): cause for (item, rep), cause in crashed.items()
                 if item in self.code}
        return ScoreColumns(item_ids, metrics, coded)


def _in_order(items: Codes, reps: Codes) -> bool:
    """Whether (item, repetition) never decreases down the arrays: sorted already."""
    steps = np.diff(items)
    return bool(np.all((steps > 0) | ((steps == 0) & (np.diff(reps) >= 0))))


def _picked[T](column: Sequence[T], members: Sequence[int] | None) -> Sequence[T]:
    """The entries of `column` at `members` (None: the column itself, not copied)."""
    return column if members is None else [column[i] for i in members]


def _joined[T: np.generic](arrays: list[npt.NDArray[T]]) -> npt.NDArray[T]:
    """One array of `arrays` in order (the one itself when there is one: it is not copied)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def score_columns(
    sets: StoredSets,
    rows: Sequence[StoredScore],
    crashed: Mapping[tuple[str, int], CrashCause] | None = None,
) -> ScoreColumns:
    """The columns of a run's current sets and (older runs) score rows, with the cause of
    each crashed (item, repetition) among them."""
    item_ids = tuple(sorted(set(sets.item_ids) | {r.item_id for r in rows}))
    pieces = _Pieces({item_id: i for i, item_id in enumerate(item_ids)})
    distinct = set(sets.scorers)
    if len(distinct) == 1:  # nearly always: every set written with the same scorers
        pieces.add_sets(distinct.pop(), sets, None)
    else:
        groups: dict[str, list[int]] = defaultdict(list)
        for i, scorers in enumerate(sets.scorers):
            groups[scorers].append(i)
        for scorers, members in groups.items():
            pieces.add_sets(scorers, sets, members)
    if rows:
        pieces.add_rows(rows)
    return pieces.columns(item_ids, crashed or {})
