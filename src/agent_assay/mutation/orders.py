"""Which orders each detector metric ignores: the swap mutants it did not see, by tool pair.

An operator's status says whether *some* metric saw a defect class; it cannot say that a
benchmark's own check never looks at order. So a pass also tallies, for every mutant that
reversed two calls, the pair it reversed (the earlier tool and the later one, as the
baseline had them) and, per detector metric, whether that mutant's value was worse than its
baseline trajectory's. A metric that was not worse on a swap ignored that order. A metric
that did not score the baseline trajectory is not counted for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_assay.aggregates import ScoreRow, direction
from agent_assay.scoring.base import ScoreKind

Pair = tuple[str, str]
"""(earlier tool, later tool) of a reversed pair, in the baseline's order."""


def noticed(kind: ScoreKind, base: float, mutant: float | None) -> bool:
    """Whether the metric's value on the mutant is worse than on its baseline (a value the
    mutant lost counts as worse, as in the detectors)."""
    return mutant is None or (base - mutant) * direction(kind) > 0


@dataclass
class OrderTally:
    """One operator's swaps: how many reversed each pair, and per metric how many it ignored."""

    swapped: Counter[Pair] = field(default_factory=Counter)
    ignored: dict[str, Counter[Pair]] = field(default_factory=dict)

    def add(
        self,
        pair: Pair,
        base: ScoreRow,
        mutant: ScoreRow,
        kinds: Mapping[str, ScoreKind],
        metrics: Sequence[str],
    ) -> None:
        self.swapped[pair] += 1
        before, after = dict(base), dict(mutant)
        for metric in metrics:
            if metric in before and not noticed(kinds[metric], before[metric], after.get(metric)):
                self.ignored.setdefault(metric, Counter())[pair] += 1

    def to_json(self) -> dict[str, Any]:
        """`swaps` (each reversed pair, how often) and `orders_ignored` (per detector metric
        that missed some swap, the pairs it did not see)."""
        return {
            "swaps": [{"earlier": a, "later": b, "swapped": n}
                      for (a, b), n in sorted(self.swapped.items())],
            "orders_ignored": {m: _pairs(c, self.swapped) for m, c in self.ignored.items()},
        }


def _pairs(ignored: Counter[Pair], swapped: Counter[Pair]) -> list[dict[str, Any]]:
    return [
        {"earlier": a, "later": b, "ignored": ignored[(a, b)], "swapped": swapped[(a, b)]}
        for a, b in sorted(ignored)
    ]


def merged(operators: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per metric, the orders it ignored over every operator of a stored pass (a pass stored
    before swaps were tallied has none). Only metrics that ignored some order are listed,
    with each pair as `ignored` of `swapped` swap mutants."""
    swapped: Counter[Pair] = Counter()
    ignored: dict[str, Counter[Pair]] = {}
    for op in operators:
        for row in op.get("swaps", []):
            swapped[(row["earlier"], row["later"])] += row["swapped"]
        for metric, rows in op.get("orders_ignored", {}).items():
            for row in rows:
                ignored.setdefault(metric, Counter())[(row["earlier"], row["later"])] += row[
                    "ignored"
                ]
    return {m: _pairs(c, swapped) for m, c in ignored.items() if c}
