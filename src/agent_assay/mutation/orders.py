"""Which orders each detector metric ignores: the swap mutants it did not see, by tool pair.

An operator's status says whether *some* metric saw a defect class; it cannot say that a
benchmark's own check never looks at order. So a pass also tallies, for every mutant that
reversed two calls, the pair it reversed (the earlier tool and the later one, as the
baseline had them) and, per detector metric, whether that mutant's value was worse than its
baseline trajectory's. A metric that was not worse on a swap ignored that order. A swap is
counted for a metric only where the metric could have been worse: it scored the baseline
trajectory, and not at its floor (0 for binary and fraction metrics; a count has none).
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


def could_fall(kind: ScoreKind, base: float) -> bool:
    """Whether a baseline value leaves the metric room to be worse."""
    return direction(kind) < 0 or base > 0


def noticed(kind: ScoreKind, base: float, mutant: float | None) -> bool:
    """Whether the metric's value on the mutant is worse than on its baseline (a value the
    mutant lost counts as worse, as in the detectors)."""
    return mutant is None or (base - mutant) * direction(kind) > 0


@dataclass
class OrderTally:
    """One operator's swaps: how many reversed each pair, and per metric how many of those it
    could see and how many it ignored."""

    swapped: Counter[Pair] = field(default_factory=Counter)
    seen: dict[str, Counter[Pair]] = field(default_factory=dict)
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
            if metric not in before or not could_fall(kinds[metric], before[metric]):
                continue
            self.seen.setdefault(metric, Counter())[pair] += 1
            if not noticed(kinds[metric], before[metric], after.get(metric)):
                self.ignored.setdefault(metric, Counter())[pair] += 1

    def to_json(self) -> dict[str, Any]:
        """`swaps` (each reversed pair, how often) and `swap_tally` (per detector metric, each
        pair it could see: how many swaps it `ignored` of how many it could see, `swapped`)."""
        return {
            "swaps": [{"earlier": a, "later": b, "swapped": n}
                      for (a, b), n in sorted(self.swapped.items())],
            "swap_tally": {m: _pairs(self.ignored.get(m, Counter()), c)
                           for m, c in self.seen.items()},
        }


def _pairs(ignored: Counter[Pair], seen: Counter[Pair]) -> list[dict[str, Any]]:
    return [
        {"earlier": a, "later": b, "ignored": ignored[(a, b)], "swapped": seen[(a, b)]}
        for a, b in sorted(seen)
    ]


def merged(operators: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per metric, the orders it ignored over the given operators' tallies (a pass stored
    before swaps were tallied has none): only metrics that ignored some order, and only the
    pairs it ignored, each as `ignored` of the `swapped` mutants it could have seen."""
    seen: dict[str, Counter[Pair]] = {}
    ignored: dict[str, Counter[Pair]] = {}
    for op in operators:
        for metric, rows in op.get("swap_tally", {}).items():
            for row in rows:
                pair = (row["earlier"], row["later"])
                seen.setdefault(metric, Counter())[pair] += row["swapped"]
                ignored.setdefault(metric, Counter())[pair] += row["ignored"]
    out = {}
    for metric, counts in ignored.items():
        rows = [r for r in _pairs(counts, seen[metric]) if r["ignored"]]
        if rows:
            out[metric] = rows
    return out
