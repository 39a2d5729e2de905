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

    def add_sets(self, scorers: str, sets: StoredSets, members: Sequence[int]) -> None:
        """The sets at positions `members`, all written with the same `scorers`."""
        where = f"score_sets row {sets.row_ids[members[0]]}"
        columns = score_pack.scorer_columns(where, scorers)
        width = len(columns)
        packed = [sets.packed_values[i] for i in members]
        for i, text in zip(members, packed, strict=True):  # a wrong length would shift the rest
            if len(text) != 2 * score_pack.VALUE_BYTES * width:
                score_pack.raw_values(f"score_sets row {sets.row_ids[i]}", text, width)
        try:
            raw = bytes.fromhex("".join(packed))
        except ValueError:  # name the row that is not hex
            for i, text in zip(members, packed, strict=True):
                score_pack.raw_values(f"score_sets row {sets.row_ids[i]}", text, width)
            raise
        matrix = np.frombuffer(raw, dtype="<f8").reshape(len(members), width)
        items = np.fromiter((self.code[sets.item_ids[i]] for i in members), np.int32,
                            len(members))
        reps = np.fromiter((sets.repetitions[i] for i in members), np.int32, len(members))
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

    def columns(
        self, item_ids: tuple[str, ...], crashed: Mapping[tuple[str, int], CrashCause]
    ) -> ScoreColumns:
        metrics: dict[str, MetricColumns] = {}
        for name, parts in self.parts.items():
            items = np.concatenate([p[0] for p in parts])
            reps = np.concatenate([p[1] for p in parts])
            values = np.concatenate([p[2] for p in parts])
            order = np.lexsort((reps, items))
            metrics[name] = MetricColumns(items[order], reps[order], values[order],
                                          frozenset(self.versions[name]), self.imported[name])
        coded = {(self.code[item], rep): cause for (item, rep), cause in crashed.items()
                 if item in self.code}
        return ScoreColumns(item_ids, metrics, coded)


def score_columns(
    sets: StoredSets,
    rows: Sequence[StoredScore],
    crashed: Mapping[tuple[str, int], CrashCause] | None = None,
) -> ScoreColumns:
    """The columns of a run's current sets and (older runs) score rows, with the cause of
    each crashed (item, repetition) among them."""
    item_ids = tuple(sorted(set(sets.item_ids) | {r.item_id for r in rows}))
    pieces = _Pieces({item_id: i for i, item_id in enumerate(item_ids)})
    groups: dict[str, list[int]] = defaultdict(list)
    for i, scorers in enumerate(sets.scorers):
        groups[scorers].append(i)
    for scorers, members in groups.items():
        pieces.add_sets(scorers, sets, members)
    if rows:
        pieces.add_rows(rows)
    return pieces.columns(item_ids, crashed or {})
