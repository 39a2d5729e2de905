"""Every estimator and interval a number in agent-assay rests on, in one place.

pass@k and pass^k use the unbiased estimators over n attempts with c passes:
pass@k = 1 - C(n-c, k)/C(n, k) (at least one of k draws passes) and
pass^k = C(c, k)/C(n, k) (all k draws pass); `pass_hat_exact` and `pass_at_exact`
average them over items in exact rational arithmetic.

Intervals are over items (repetitions of one item are not independent):
* values bounded in [0, 1] (0/1 scores, fractions, per-item pass^k) get the exact
  binomial (Clopper-Pearson) interval on the items' sum. Its coverage is at least
  nominal for 0/1 values at any n, where Wilson's falls to 0.89 at n = 11, p = 0.05;
  for fractions, whose variance is below a coin's, it is conservative (wider than
  needed), and it never collapses to a point when every item scores the same;
* anything else (latency, cost, counts) gets a percentile bootstrap seeded by the
  sorted values it resamples, so the same values give the same interval whichever
  run, view, item order or machine they come from.
`interval_method` names the method beside every interval a view prints.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from fractions import Fraction
from math import comb

import numpy as np
from scipy import special

# scipy.stats costs about a second of start-up: the quantiles every report needs come from
# scipy.special (the same routines, to the bit); the bootstrap and the paired tests import
# scipy.stats when they run.

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
EXACT = "exact binomial (Clopper-Pearson) on the items' sum"
BOOTSTRAP = "percentile bootstrap seeded by the values"

Interval = tuple[float, float]
Counts = Sequence[tuple[int, int]]
"""(attempts, passes) per item."""


def pass_at_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return comb(c, k) / comb(n, k)


def pass_hat_exact(counts: Counts, k: int) -> Fraction:
    """Mean over items of C(c, k)/C(n, k), exactly."""
    return sum((Fraction(comb(c, k), comb(n, k)) for n, c in counts), Fraction(0)) / len(counts)


def pass_at_exact(counts: Counts, k: int) -> Fraction:
    """Mean over items of 1 - C(n-c, k)/C(n, k), exactly."""
    total = sum((1 - Fraction(comb(n - c, k), comb(n, k)) for n, c in counts), Fraction(0))
    return total / len(counts)


def exact_interval(successes: float, n: int) -> Interval | None:
    """Two-sided 95% Clopper-Pearson interval for `successes` out of `n` (a fractional
    count is the sum of values in [0, 1]); None for n = 0."""
    if n == 0:
        return None
    tail = (1 - CONFIDENCE) / 2
    low = 0.0 if successes <= 0 else _beta_quantile(tail, successes, n - successes + 1)
    high = 1.0 if successes >= n else _beta_quantile(1 - tail, successes + 1, n - successes)
    return (low, high)


def exact_upper(successes: int, n: int, confidence: float) -> float:
    """One-sided Clopper-Pearson upper bound on a pass rate (1.0 when every trial passed)."""
    if successes >= n:
        return 1.0
    return _beta_quantile(confidence, successes + 1, n - successes)


def _beta_quantile(q: float, a: float, b: float) -> float:
    """The q-quantile of Beta(a, b) (what scipy.stats.beta.ppf returns, bit for bit)."""
    return float(special.betaincinv(a, b, q))


def bounded(values: Sequence[float]) -> bool:
    return bool(values) and all(0.0 <= v <= 1.0 for v in values)


def data_seed(data: np.ndarray) -> int:
    """A 63-bit seed that is a function of the sorted values alone (their float64 bytes)."""
    return int.from_bytes(hashlib.sha256(data.tobytes()).digest()[:8], "big") >> 1


def bootstrap_mean(values: Sequence[float]) -> Interval | None:
    """95% bootstrap interval for a mean; a constant sample has a zero-width interval."""
    if not values:
        return None
    data = np.sort(np.asarray(values, dtype=np.float64))
    if np.all(data == data[0]):
        return (float(data[0]), float(data[0]))
    from scipy import stats as sps

    result = sps.bootstrap(
        (data,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(data_seed(data)),
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def mean_interval(values: Sequence[float]) -> Interval | None:
    """The interval for a mean over items, by the rule in the module docstring."""
    if bounded(values):
        return exact_interval(math.fsum(values), len(values))
    return bootstrap_mean(values)


def interval_method(values: Sequence[float]) -> str:
    return EXACT if bounded(values) else BOOTSTRAP


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


def variance_components(per_item: Sequence[Sequence[float]]) -> tuple[float, float] | None:
    """(between-item variance of the items' true means, within-item variance of one
    repetition) from items with at least two repetitions: the one-way random-effects
    estimates, with the between part floored at zero. None without such items."""
    rows = [list(v) for v in per_item if len(v) >= 2]
    if len(rows) < 2:
        return None
    within = float(np.mean([np.var(v, ddof=1) for v in rows]))
    k = float(np.mean([len(v) for v in rows]))
    means = [float(np.mean(v)) for v in rows]
    between = max(0.0, float(np.var(means, ddof=1)) - within / k)
    return between, within


def items_for_paired_difference(
    effect: float,
    *,
    between: float,
    within: float,
    repeats: int,
    correlation: float,
    power: float = 0.8,
    alpha: float = 0.05,
) -> int:
    """Items a paired comparison of two agents needs to detect a mean difference of
    `effect` with a two-sided test at `alpha` and the given power.

    Each item contributes the difference of the two agents' means over `repeats`
    repetitions; its variance is 2 x between x (1 - correlation) (the part of the item
    effects the agents do not share) plus 2 x within / repeats (repetition noise), and
    n = (z(1 - alpha/2) + z(power))^2 x variance / effect^2, rounded up, at least 2."""
    if effect <= 0 or not 0 < power < 1 or repeats < 1:
        raise ValueError(f"effect must be > 0, power in (0, 1), repeats >= 1; got {effect}, "
                         f"{power}, {repeats}")
    variance = 2 * between * (1 - correlation) + 2 * within / repeats
    z = float(special.ndtri(1 - alpha / 2) + special.ndtri(power))
    return max(2, math.ceil(z * z * variance / (effect * effect)))


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
