"""The statistics every number in a report rests on, each with its estimator named.

pass@k and pass^k use the unbiased estimators over n attempts with c passes:
pass@k = 1 - C(n-c, k)/C(n, k) (at least one of k draws passes) and
pass^k = C(c, k)/C(n, k) (all k draws pass). Intervals are Wilson for counts
of passes and a seeded bootstrap for anything continuous.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np
from scipy import stats as sps

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000

Interval = tuple[float, float]


def pass_at_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return comb(c, k) / comb(n, k)


def wilson(successes: int, n: int) -> Interval | None:
    """95% Wilson score interval for a count of successes; None for n = 0."""
    if n == 0:
        return None
    ci = sps.binomtest(successes, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return (float(ci.low), float(ci.high))


def bootstrap_mean(values: Sequence[float], seed: int) -> Interval | None:
    """Seeded 95% bootstrap interval for a mean; a constant sample has a zero-width interval."""
    if not values:
        return None
    data = np.asarray(values, dtype=float)
    if np.all(data == data[0]):
        return (float(data[0]), float(data[0]))
    result = sps.bootstrap(
        (data,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def proportion_interval(values: Sequence[float], seed: int) -> Interval | None:
    """Wilson when every value is 0 or 1 (a count), the bootstrap otherwise."""
    if values and all(v in (0.0, 1.0) for v in values):
        return wilson(int(sum(values)), len(values))
    return bootstrap_mean(values, seed)
