"""The interval on a metric's mean over items (repetitions of one item are not independent).

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
