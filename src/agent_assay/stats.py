"""The statistics every number in a report rests on, each with its estimator named.

pass@k and pass^k use the unbiased estimators over n attempts with c passes:
pass@k = 1 - C(n-c, k)/C(n, k) (at least one of k draws passes) and
pass^k = C(c, k)/C(n, k) (all k draws pass). Intervals are Wilson for counts
of passes and a percentile bootstrap for anything continuous, seeded by the
data it resamples: the same values give the same interval whichever run, item
order or machine they come from, so an interval can be re-derived by a reader.
"""

from __future__ import annotations

import hashlib
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
    result = sps.bootstrap(
        (data,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(data_seed(data)),
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def proportion_interval(values: Sequence[float]) -> Interval | None:
    """Wilson when every value is 0 or 1 (a count), the bootstrap otherwise."""
    if values and all(v in (0.0, 1.0) for v in values):
        return wilson(int(sum(values)), len(values))
    return bootstrap_mean(values)
