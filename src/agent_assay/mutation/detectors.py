"""Kill decisions: did a mutant move any detector metric the wrong way?

Two detectors, both reported:

* threshold: the suite mean moved in the worse direction by at least the
  metric's threshold from the mutant set;
* statistical (the one the mutation score uses): a one-sided paired test over
  items — exact McNemar when every paired value is 0 or 1, Wilcoxon
  signed-rank otherwise — at alpha divided by the number of detector metrics
  (Bonferroni), and a mean worsening larger than the baseline's own spread
  across repetitions (zero when the baseline has one repetition).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_assay.aggregates import direction
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.paired import mcnemar_p, signed_rank_p

Table = Mapping[str, Mapping[str, Sequence[float]]]


@dataclass(frozen=True)
class MetricVerdict:
    metric: str
    worsening: float
    threshold: float
    threshold_hit: bool
    p_value: float
    test: str
    noise_floor: float
    significant: bool


def _item_means(by_item: Mapping[str, Sequence[float]]) -> dict[str, float]:
    return {i: sum(v) / len(v) for i, v in by_item.items() if v}


def noise_floor(by_rep_means: Sequence[float]) -> float:
    """The baseline's spread across repetitions: the sd of its per-repetition means."""
    return statistics.stdev(by_rep_means) if len(by_rep_means) > 1 else 0.0


def one_sided_p(
    kind: ScoreKind, base: Sequence[float], mutant: Sequence[float]
) -> tuple[float, str]:
    sign = direction(kind)
    worse = [(b - m) * sign for b, m in zip(base, mutant, strict=True)]
    if all(d == 0 for d in worse):
        return 1.0, "no item moved"
    if all(v in (0.0, 1.0) for v in (*base, *mutant)):
        lost = sum(d > 0 for d in worse)
        gained = sum(d < 0 for d in worse)
        p = mcnemar_p(lost, gained, one_sided=True)
        return p, f"exact McNemar, one-sided ({lost} worse, {gained} better)"
    return signed_rank_p(worse, one_sided=True), "Wilcoxon signed-rank, one-sided"


def judge_metric(
    metric: str,
    kind: ScoreKind,
    baseline: Mapping[str, Sequence[float]],
    mutant: Mapping[str, Sequence[float]],
    *,
    threshold: float,
    alpha_per_metric: float,
    floor: float,
) -> MetricVerdict:
    base_means, mut_means = _item_means(baseline), _item_means(mutant)
    common = sorted(base_means.keys() & mut_means.keys())
    sign = direction(kind) or -1
    base = [base_means[i] for i in common]
    mut = [mut_means[i] for i in common]
    # an item the mutant made unscorable (e.g. no aligned call) counts as worse by its full value
    lost_items = [i for i in base_means if i not in mut_means]
    worsening = 0.0
    if common:
        worsening = (sum(base) / len(base) - sum(mut) / len(mut)) * sign
    p, test = one_sided_p(kind if direction(kind) else "count", base, mut) if common else (1.0, "")
    if lost_items and not common:
        test = f"{len(lost_items)} items lost their value"
    significant = p < alpha_per_metric and worsening > floor
    return MetricVerdict(
        metric, worsening, threshold, worsening >= threshold, p, test, floor, significant
    )
