"""Two runs on the same items: the paired difference, its interval and its test.

One statistic gives both: t = mean difference / its standard error, where the error is
cluster-robust with each cluster's residuals summed before squaring (by default every
item is its own cluster, which is the ordinary paired t). The CR2 small-sample factor
1/(1 - n_g/N) divides each cluster's squared sum; with singleton clusters it makes the
error exactly s/sqrt(N). The interval is mean +- t(G-1, 0.975) x error and the p-value
is 2 x P(T(G-1) > |t|), so the interval excludes 0 exactly when p < 0.05.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Difference:
    """A mean paired difference (B - A over items) with the interval and test that agree."""

    mean: float
    n_items: int
    differing: int
    """Items whose difference is not zero; none means there is nothing to test."""
    clusters: int
    se: float | None
    ci: Interval | None
    p_value: float


def paired_difference(
    diffs: Sequence[float], clusters: Sequence[str] | None = None
) -> Difference:
    """The paired t (cluster-robust when `clusters` is given) on per-item differences.

    No item differs: no interval, p = 1. Every difference equal and non-zero (no spread
    to estimate an error from): the sign test's p = 2 x 0.5^G over G clusters, and the
    interval is the point when that rejects and stretches to 0 when it does not."""
    n = len(diffs)
    if n == 0:
        raise ValueError("a paired difference needs at least one item")
    labels = [str(i) for i in range(n)] if clusters is None else list(clusters)
    if len(labels) != n:
        raise ValueError(f"{n} differences but {len(labels)} cluster labels")
    data = np.asarray(diffs, dtype=np.float64)
    mean = float(data.mean())
    differing = int(np.count_nonzero(data))
    groups = sorted(set(labels))
    g = len(groups)
    if differing == 0:
        return Difference(0.0, n, 0, g, None, None, 1.0)
    if g < 2:
        return Difference(mean, n, differing, g, None, None, 1.0)
    index = {name: i for i, name in enumerate(groups)}
    members = np.array([index[x] for x in labels])
    sums = np.bincount(members, weights=data - mean, minlength=g)
    sizes = np.bincount(members, minlength=g).astype(np.float64)
    with np.errstate(divide="ignore"):
        shrink = np.where(sizes < n, 1.0 / (1.0 - sizes / n), 1.0)
    se = math.sqrt(float(np.sum(sums * sums * shrink))) / n
    alpha = 1 - CONFIDENCE
    if se == 0.0:
        p = min(1.0, 2 * 0.5**g)
        ci = (mean, mean) if p < alpha else (min(0.0, mean), max(0.0, mean))
        return Difference(mean, n, differing, g, 0.0, ci, p)
    df = g - 1
    t = abs(mean) / se
    p = float(2 * special.stdtr(df, -t))
    half = float(special.stdtrit(df, 1 - alpha / 2)) * se
    return Difference(mean, n, differing, g, se, (mean - half, mean + half), p)

