"""The interval on a metric's mean over items (repetitions of one item are not independent).

The method follows the metric's declared kind, never the values seen: a count that happens
to lie in [0, 1], or a cost that is zero everywhere, is not a proportion.

* binary and fraction (and per-item pass^k, pass@k): the exact binomial (Clopper-Pearson)
  interval on the items' sum. Never below nominal for 0/1 values at any n; conservative
  for fractions; never a point when every item scores the same.
* count: the exact Poisson (Garwood) interval on the items' total, with the total and its
  exposure divided by the over-dispersion the items show (quasi-Poisson), joined with
  Hall's skew-corrected t. The Poisson part keeps a zero or constant sample from
  collapsing to a point and bounds a rare count; the dispersion and the t part keep an
  over-dispersed count from looking more certain than it is.
* measure (latency, money, anything unbounded): Hall's skew-corrected t, with the upper
  end taken at a skewness of at least sqrt(n / SKEW_ASSUMED), because a small sample of a
  right-skewed measure understates its skewness exactly when it missed the tail, and its
  mean is then too low. Refused, with the reason, when n < SKEW_REFUSAL x skewness^2 (a
  Cochran-style rule), when fewer than MEASURE_MIN_ITEMS items leave the skew unjudged,
  and when every value is the same (there is no spread to bound).

`make coverage` (tools/studies/coverage_table.py) measures every kind's coverage and refusal
share; the two constants were chosen on it. Everything is a function of the sorted values
(exact sums, no random draws), so the same values give the same interval in any view,
order or machine.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from agent_assay.scoring.base import ScoreKind

# scipy.stats costs about a second of start-up: the quantiles every report needs come from
# scipy.special (the same routines, to the bit); the bootstrap and the paired tests import
# scipy.stats when they run. scipy.special itself (about a quarter second: it pulls
# scipy.linalg and walks numpy) is imported by the functions that need it, so a command
# that shows no interval never loads it. mpmath, lighter to import, has no inverse of the
# incomplete beta or gamma function: its root finder over their CDFs returned quantiles up
# to 3.5 times SciPy's on a plain grid, and its betainc does not converge at a = b = 10,000,
# so getting them right would take numerics of our own.

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
SKEW_REFUSAL = 10
"""A measure's interval is refused when n < SKEW_REFUSAL x skewness^2 (Cochran's rule uses
25 for the plain t; the skew correction and the allowance below carry the rest)."""
SKEW_ASSUMED = 6
"""A measure's upper end allows a skewness of at least sqrt(n / SKEW_ASSUMED)."""
MEASURE_MIN_ITEMS = 3

EXACT = "exact binomial (Clopper-Pearson) on the items' sum"
COUNT = ("exact Poisson (Garwood) on the items' total, scaled by their over-dispersion, "
         "joined with Hall's skew-corrected t")
MEASURE = (f"Hall's skew-corrected t, upper end allowing skewness sqrt(n/{SKEW_ASSUMED}); "
           f"none when n < {SKEW_REFUSAL} x skewness^2")
METHODS: Mapping[str, str] = {"binary": EXACT, "fraction": EXACT, "count": COUNT,
                              "measure": MEASURE}
"""The method each kind's interval is computed with, as every view names it."""

Interval = tuple[float, float]


@dataclass(frozen=True)
class MeanInterval:
    """A mean's interval with the method that gave it; `refused` says why there is none
    when there are values (None with an interval, or with no values at all)."""

    ci: Interval | None
    method: str
    refused: str | None = None


def interval_on_mean(values: Sequence[float], kind: ScoreKind) -> MeanInterval:
    """The 95% interval for a mean over items of a metric of this kind (module docstring)."""
    method = METHODS.get(kind)
    if method is None:
        raise ValueError(f"no interval for a metric of kind {kind!r}")
    if not values:
        return MeanInterval(None, method)
    data = sorted(float(v) for v in values)
    if kind == "count":
        return _count_interval(data)
    if kind == "measure":
        return _measure_interval(data)
    if data[0] < 0.0 or data[-1] > 1.0:
        return MeanInterval(None, method, f"a {kind} metric has values outside [0, 1] "
                                          f"({data[0]:g} to {data[-1]:g}): not a proportion")
    return MeanInterval(exact_interval(math.fsum(data), len(data)), method)


def mean_interval(values: Sequence[float], kind: ScoreKind) -> Interval | None:
    """The interval alone (None: no values, or refused; `interval_on_mean` says why)."""
    return interval_on_mean(values, kind).ci


def interval_method(values: Sequence[float], kind: ScoreKind) -> str:
    return interval_on_mean(values, kind).method


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


def exact_lower(successes: int, n: int, confidence: float) -> float:
    """One-sided Clopper-Pearson lower bound on a rate (0.0 when nothing succeeded, or
    nothing was tried: no evidence is no evidence of a high rate)."""
    if successes <= 0 or n <= 0:
        return 0.0
    return _beta_quantile(1 - confidence, successes, n - successes + 1)


def _beta_quantile(q: float, a: float, b: float) -> float:
    """The q-quantile of Beta(a, b) (what scipy.stats.beta.ppf returns, bit for bit)."""
    from scipy import special

    return float(special.betaincinv(a, b, q))


@dataclass(frozen=True)
class _Moments:
    n: int
    mean: float
    sd: float
    """The sample standard deviation (n - 1 in the denominator)."""
    skew: float
    """The adjusted Fisher-Pearson skewness G1 (0 below three values or without spread)."""


def _moments(data: Sequence[float]) -> _Moments:
    """Exact sums over the sorted values, so no order or machine changes a bit."""
    n = len(data)
    mean = math.fsum(data) / n
    dev = [x - mean for x in data]
    m2 = math.fsum(d * d for d in dev) / n
    m3 = math.fsum(d * d * d for d in dev) / n
    sd = math.sqrt(m2 * n / (n - 1)) if n > 1 else 0.0
    skew = 0.0
    if n >= 3 and m2 > 0.0:
        skew = m3 / m2**1.5 * math.sqrt(n * (n - 1)) / (n - 2)
    return _Moments(n, mean, sd, skew)


def _t_quantile(n: int) -> float:
    from scipy import special

    return float(special.stdtrit(n - 1, 1 - (1 - CONFIDENCE) / 2))


def _hall(m: _Moments, skew: float) -> Interval:
    """Hall's (1992) skew-corrected t interval: the studentized mean T is transformed by
    g(T) = T + aT^2/3 + a^2T^3/27 + a/6 with a = skew/sqrt(n), which removes T's skewness
    to first order; g is increasing, so the interval inverts it in closed form."""
    se = m.sd / math.sqrt(m.n)
    q = _t_quantile(m.n)
    a = skew / math.sqrt(m.n)
    if abs(a) < 1e-12:
        return (m.mean - q * se, m.mean + q * se)

    def inverse(t: float) -> float:
        return 3 / a * (math.cbrt(1 + a * (t - a / 6)) - 1)

    return (m.mean - se * inverse(q), m.mean - se * inverse(-q))


def _garwood(total: float) -> Interval:
    """Exact Poisson interval on a total count (Garwood 1936), through the gamma quantiles
    that equal its chi-square form; a fractional total (item means) interpolates."""
    from scipy import special

    tail = (1 - CONFIDENCE) / 2
    low = 0.0 if total <= 0 else float(special.gammaincinv(total, tail))
    return (low, float(special.gammaincinv(total + 1, 1 - tail)))


def _count_interval(data: Sequence[float]) -> MeanInterval:
    """Garwood on the total over n items, both divided by the dispersion phi when the items
    vary more than a Poisson count would (variance / mean > 1, times (t/z)^2 for having
    estimated it from n items), joined with Hall's t from three items; clipped at 0."""
    if data[0] < 0.0:
        return MeanInterval(None, COUNT, f"a count metric has a negative value ({data[0]:g}): "
                                         "not a count")
    m = _moments(data)
    dispersion = 1.0
    if m.n >= 2 and m.mean > 0.0:
        from scipy import special

        widen = (_t_quantile(m.n) / float(special.ndtri(1 - (1 - CONFIDENCE) / 2))) ** 2
        dispersion = max(1.0, m.sd * m.sd / m.mean * widen)
    low, high = _garwood(m.n * m.mean / dispersion)
    low, high = low * dispersion / m.n, high * dispersion / m.n
    if m.n >= 3 and m.sd > 0.0:
        t_low, t_high = _hall(m, m.skew)
        low, high = min(low, t_low), max(high, t_high)
    return MeanInterval((max(0.0, low), high), COUNT)


def _measure_interval(data: Sequence[float]) -> MeanInterval:
    n = len(data)
    if data[0] == data[-1]:
        return MeanInterval(None, MEASURE, f"every value is {data[0]:g}; no spread to bound")
    if n < MEASURE_MIN_ITEMS:
        return MeanInterval(None, MEASURE, f"n too small for an interval on a measure: {n} "
                                           f"items cannot show how skewed it is")
    m = _moments(data)
    needed = SKEW_REFUSAL * m.skew * m.skew
    if n < needed:
        return MeanInterval(None, MEASURE, (
            f"n too small for an interval on a heavy-tailed measure: skewness {m.skew:.2f} "
            f"needs n >= {math.ceil(needed)}, this has {n}"))
    low, high = _hall(m, m.skew)
    high = max(high, _hall(m, max(m.skew, math.sqrt(n / SKEW_ASSUMED)))[1])
    return MeanInterval((low, high), MEASURE)


# ---- what stats.paired still uses for a paired difference -----------------------------------
def bounded(values: Sequence[float]) -> bool:
    return bool(values) and all(0.0 <= v <= 1.0 for v in values)


def data_seed(data: np.ndarray) -> int:
    """A 63-bit seed that is a function of the sorted values alone (their float64 bytes)."""
    return int.from_bytes(hashlib.sha256(data.tobytes()).digest()[:8], "big") >> 1


def bootstrap_mean(values: Sequence[float]) -> Interval | None:
    """95% percentile bootstrap interval for a mean, seeded by the sorted values; a constant
    sample has a zero-width interval. Only paired differences outside [-1, 1] use it."""
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
