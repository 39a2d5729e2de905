"""Two runs on the same items: the paired difference, its interval and its test."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import special

from agent_assay.stats.intervals import (
    CONFIDENCE,
    Interval,
    bootstrap_mean,
    bounded,
    exact_interval,
)


def difference_interval(diffs: Sequence[float]) -> Interval | None:
    """The interval for a mean paired difference. Differences of [0, 1] values lie in
    [-1, 1]: they are mapped onto [0, 1], given the exact interval, and mapped back (so
    identical runs get a non-empty interval around 0, not a point); others bootstrap."""
    if diffs and all(-1.0 <= d <= 1.0 for d in diffs):
        shifted = exact_interval(math.fsum((d + 1) / 2 for d in diffs), len(diffs))
        assert shifted is not None
        return (2 * shifted[0] - 1, 2 * shifted[1] - 1)
    return bootstrap_mean(diffs)


def mcnemar_p(worse: int, better: int, *, one_sided: bool = False) -> float:
    """Exact McNemar: a binomial test on the discordant pairs (1.0 when there are none)."""
    if worse + better == 0:
        return 1.0
    from scipy import stats as sps

    alternative = "greater" if one_sided else "two-sided"
    return float(sps.binomtest(worse, worse + better, 0.5, alternative=alternative).pvalue)


def signed_rank_p(diffs: Sequence[float], *, one_sided: bool = False) -> float:
    """Wilcoxon signed-rank p for paired differences (one-sided: that they are > 0)."""
    from scipy import stats as sps

    if one_sided:
        return float(sps.wilcoxon(diffs, alternative="greater", zero_method="wilcox").pvalue)
    return float(sps.wilcoxon(diffs).pvalue)




def clustered_interval(values: Sequence[float], clusters: Sequence[str]) -> Interval | None:
    """95% interval for a mean over items when items come in clusters (a tag, a template)
    whose members are not independent: the cluster-robust standard error with the G/(G-1)
    small-sample factor and a t quantile on G-1 degrees of freedom (Miller 2024, "Adding
    Error Bars to Evals"). Bounded values are clipped to [0, 1]. None with fewer than two
    clusters, where no between-cluster spread can be seen."""
    groups = sorted(set(clusters))
    if len(values) != len(clusters) or len(groups) < 2:
        return None
    data = np.asarray(values, dtype=np.float64)
    mean = float(data.mean())
    residual_sums = [
        float(sum(v - mean for v, c in zip(values, clusters, strict=True) if c == g))
        for g in groups
    ]
    g = len(groups)
    se = math.sqrt(g / (g - 1) * sum(r * r for r in residual_sums)) / len(values)
    half = float(special.stdtrit(g - 1, 1 - (1 - CONFIDENCE) / 2)) * se
    low, high = mean - half, mean + half
    if bounded(values):
        low, high = max(0.0, low), min(1.0, high)
    return (low, high)
