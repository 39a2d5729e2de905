"""Two runs on the same items: the paired difference, its interval and its test, and the
cluster-robust error a mean over clustered items shares with it.

One statistic gives both figures of a difference: t = mean / standard error, with the
interval mean +- t(df, 0.975) x error and the p-value 2 x P(T(df) > |t|), so the interval
excludes 0 exactly when p < 0.05. The error is CR2 (Bell and McCaffrey): each cluster's
residuals are summed, squared and divided by 1 - n_g/N, which for an intercept-only model
is exactly what CR2's adjustment matrix does. The degrees of freedom are Imbens and
Kolesar's: the Satterthwaite match of that estimator under a working model of cluster
random effects whose share of the variance is read from the data. By default every item
is its own cluster: the error is then s/sqrt(N) and df = N - 1, the ordinary paired t on
item means (an item's repetitions are averaged first, so the item is the unit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

from agent_assay.stats.intervals import CONFIDENCE, Interval, bounded

ALPHA = round(1 - CONFIDENCE, 12)
"""The level a p-value is read at: the one the interval is built for, so they agree (0.05,
not the 0.050000000000000044 that 1 - 0.95 comes to in floating point)."""

FPR_BOUND = 0.06
"""The false-positive rate at ALPHA a clustered test must keep to in the simulated cases of
`tools/studies/stats_agreement.py` (the cluster counts below are read from there, and a test holds
them equal to `reports/stats/agreement.json`)."""
CLUSTERS_FLOOR = 8
"""The fewest clusters from which every symmetric case (cluster effects spread evenly
around zero) kept to FPR_BOUND: fewer are refused."""
CLUSTERS_TRUSTED = 20
"""The fewest from which every case did, skewed ones too (an effect concentrated in a few
clusters): fewer, down to the floor, carry a warning."""


# The mutation control's one-sided tests (compare no longer uses them).
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


@dataclass(frozen=True)
class RobustError:
    """The standard error of a mean over clustered items and the df of its t."""

    se: float
    df: float
    clusters: int


def robust_error(
    values: npt.NDArray[np.float64], labels: Sequence[str]
) -> RobustError | None:
    """CR2 standard error of the mean of `values`, items clustered by `labels`, with the
    Imbens-Kolesar degrees of freedom. None with fewer than two clusters, where no spread
    between clusters can be seen."""
    n = len(values)
    names = sorted(set(labels))
    g = len(names)
    if g < 2 or len(labels) != n:
        return None
    index = {name: i for i, name in enumerate(names)}
    members = np.fromiter((index[x] for x in labels), dtype=np.intp, count=n)
    scale = float(np.max(np.abs(values))) or 1.0  # squares of tiny values underflow
    unit = values / scale
    sizes = np.bincount(members, minlength=g).astype(np.float64)
    sums = np.bincount(members, weights=unit - unit.mean(), minlength=g)
    shrink = 1.0 / (1.0 - sizes / n)
    se = scale * math.sqrt(float(np.sum(sums * sums * shrink))) / n
    if g == n:  # every item its own cluster: the ordinary paired t
        return RobustError(se, float(n - 1), g)
    return RobustError(se, _satterthwaite_df(unit, members, sizes, shrink), g)


def _satterthwaite_df(
    values: npt.NDArray[np.float64],
    members: npt.NDArray[np.intp],
    sizes: npt.NDArray[np.float64],
    shrink: npt.NDArray[np.float64],
) -> float:
    """Imbens-Kolesar df: the CR2 variance is a sum of squares z'z with Cov(z) =
    D (within x P + between x P P) D under a working model of cluster random effects,
    where P = diag(n_g) - n_g n_g'/N and D = diag(sqrt(shrink_g))/N; Satterthwaite's df is
    tr(Cov z)^2 / tr((Cov z)^2). The two variance parts come from a one-way ANOVA of the
    values (method of moments, between floored at 0); only their ratio matters."""
    n, g = len(values), len(sizes)
    means = np.bincount(members, weights=values, minlength=g) / sizes
    within_ss = float(np.sum((values - means[members]) ** 2))
    between_ss = float(np.sum(sizes * (means - values.mean()) ** 2))
    within = within_ss / (n - g)
    spread = (n - float(np.sum(sizes * sizes)) / n) / (g - 1)
    between = max(0.0, (between_ss / (g - 1) - within) / spread)
    total = within + between
    within, between = (1.0, 0.0) if total == 0.0 else (within / total, between / total)
    p = np.diag(sizes) - np.outer(sizes, sizes) / n
    d = np.sqrt(shrink) / n
    cov = (within * p + between * (p @ p)) * np.outer(d, d)
    return float(np.trace(cov) ** 2 / np.sum(cov * cov))


def t_interval(mean: float, error: RobustError, alpha: float = ALPHA) -> Interval:
    """mean +- t(df, 1 - alpha/2) x se: the interval whose edges are where p = alpha."""
    from scipy import special  # lazily: see stats.intervals

    half = float(special.stdtrit(error.df, 1 - alpha / 2)) * error.se
    return (mean - half, mean + half)


def clustered_interval(values: Sequence[float], clusters: Sequence[str]) -> Interval | None:
    """95% interval for a mean over items that come in clusters (a tag, a template) whose
    members are not independent: the CR2 t interval `paired_difference` uses for a
    difference. Bounded values are clipped to [0, 1]; None with fewer clusters than
    CLUSTERS_FLOOR, below which it was not measured to hold."""
    data = np.asarray(values, dtype=np.float64)
    error = robust_error(data, clusters)
    if error is None or error.clusters < CLUSTERS_FLOOR:
        return None
    low, high = t_interval(float(data.mean()), error)
    if bounded(values):
        low, high = max(0.0, low), min(1.0, high)
    return (low, high)


Method = Literal["t", "sign", "none"]


@dataclass(frozen=True)
class Difference:
    """A mean paired difference (B - A over items) with the interval and test that agree."""

    mean: float
    n_items: int
    differing: int
    """Items whose difference is not zero; none means there is nothing to test."""
    clusters: int
    clustered: bool
    """Whether the items were clustered (else every item is its own cluster)."""
    method: Method
    """`t`: the (cluster-robust) paired t; `sign`: every difference equal, so the sign test
    over clusters; `none`: nothing tested (no item differs, or one cluster)."""
    se: float | None
    df: float | None
    ci: Interval | None
    p_value: float
    """1 when nothing was tested (`method` none): nothing speaks against no difference.
    Views say why instead of printing it."""
    no_ci: str | None = None
    """Why there is no interval, when there is none."""

    @property
    def differs(self) -> bool:
        """p below ALPHA, which is the interval leaving out 0."""
        return self.p_value < ALPHA


def interval_at(
    mean: float, se: float | None, df: float | None, p_value: float, alpha: float
) -> Interval | None:
    """A tested difference's interval at level 1 - alpha, from the same statistic as its
    p-value, so it leaves out 0 exactly when p < alpha: the t interval when there is an
    error to scale (`se` > 0), else (every difference equal, the sign test) the point
    itself when the sign test rejects every other value at alpha, and none otherwise."""
    if se is None:
        return None
    if se > 0 and df is not None:
        return t_interval(mean, RobustError(se, df, 0), alpha)
    return (mean, mean) if p_value < alpha else None


def paired_difference(
    diffs: Sequence[float], clusters: Sequence[str] | None = None
) -> Difference:
    """The paired t (cluster-robust when `clusters` is given) on per-item differences.

    No item differs: nothing to test, no interval. Every cluster's mean difference equal
    (no spread to scale an error by): the sign-flip test over G clusters, which gives
    p = 2 x 0.5^G against every value but that mean (p = 1 at it), so its interval by
    inversion is the point when 2 x 0.5^G < ALPHA and unbounded (none) otherwise."""
    n = len(diffs)
    if n == 0:
        raise ValueError("a paired difference needs at least one item")
    labels = [str(i) for i in range(n)] if clusters is None else list(clusters)
    if len(labels) != n:
        raise ValueError(f"{n} differences but {len(labels)} cluster labels")
    data = np.asarray(diffs, dtype=np.float64)
    mean = float(data.mean())
    differing = int(np.count_nonzero(data))
    g = len(set(labels))
    nothing = Difference(0.0, n, differing, g, clusters is not None, "none", None, None,
                         None, 1.0, "no item differs")
    if differing == 0:
        return nothing
    error = robust_error(data, labels)
    unit = "clusters" if clusters is not None else "items"
    same = ("every cluster's mean difference is the same" if clusters is not None
            else "every item differs by the same amount")
    if error is None:
        return replace(nothing, mean=mean,
                       no_ci=f"a single {unit[:-1]}: no spread between {unit} to test against")
    if error.se <= 1e-12 * float(np.max(np.abs(data))):  # zero, up to rounding
        rejects_others = 2 * 0.5**g < ALPHA
        return replace(nothing, mean=mean, method="sign", se=0.0,
                       p_value=1.0 if mean == 0.0 else min(1.0, 2 * 0.5**g),
                       ci=(mean, mean) if rejects_others else None,
                       no_ci=None if rejects_others else
                       f"{same}; a sign test over {g} {unit} cannot rule out any value")
    from scipy import special

    return replace(nothing, mean=mean, method="t", se=error.se, df=error.df,
                   ci=t_interval(mean, error), no_ci=None,
                   p_value=float(2 * special.stdtr(error.df, -abs(mean) / error.se)))
