"""Sizing a paired comparison for the test `compare` judges it with.

`compare` judges a difference with the paired t-test on per-item mean differences
(`paired.paired_difference`: df = items - 1, two-sided), so the items a plan asks for are
the fewest at which that test's power, the noncentral t's tail, reaches the power asked
for. A normal approximation promises more than the t-test gives on small suites.

One item's difference of the two agents' means over r repetitions has variance

    2 x between x (1 - correlation) + (within_a + within_b) / r

where `within_a` is the pilot's and `within_b` the other agent's. For a metric in [0, 1]
the two are not the same: a 0/1 score's repetition variance is p(1 - p) at the item's
rate, so an agent whose mean is `effect` nearer one half is noisier (a rate of 0.2 moving
to 0.4 raises it by half). The direction is unknown when planning, so the other agent is
taken in the direction that raises it. Values outside [0, 1] keep the pilot's within.

The pilot's spread is an estimate too, and a plan sized on it falls short whenever the
pilot understated it: the variance is taken at the `PILOT_QUANTILE` of its values over
resamples of the pilot's items (seeded by the values, so a run gives one plan).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agent_assay.stats.intervals import BOOTSTRAP_RESAMPLES, data_seed

PILOT_QUANTILE = 0.9
MAX_ITEMS = 10_000_000
"""The most items a plan sizes a design for: no benchmark holds more, and an effect that
needs more (a tiny one, or a tiny alpha) gets no number rather than an impossible one."""


@dataclass(frozen=True)
class Spread:
    """What a pilot run shows of a metric's spread over items and repetitions."""

    mean: float
    """The mean over items of each item's mean."""
    between: float
    """Variance of the items' true means (floored at zero)."""
    within: float
    """Variance of one repetition about its item's mean, averaged over items."""
    coin_share: float | None
    """For values in [0, 1]: `within` as a share of a coin's variance p(1 - p) at the
    items' rates (1 for 0/1 scores, 1/m for a fraction of m coin flips), so it can be
    carried to another mean. None for values outside [0, 1]."""


@dataclass(frozen=True)
class Pilot:
    """A pilot run's spread on one metric, and its spread over resamples of its items."""

    spread: Spread
    resampled: tuple[Spread, ...]


def _components(means: np.ndarray, variances: np.ndarray, counts: np.ndarray,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, between, within) over the last axis of per-item statistics: the one-way
    random-effects estimates, between floored at zero. Works on one pilot or a stack of
    resamples alike, so both are estimated the same way."""
    within = variances.mean(axis=-1)
    between = np.maximum(0.0, means.var(axis=-1, ddof=1) - within / counts.mean(axis=-1))
    return means.mean(axis=-1), between, within


def _spread(mean: float, between: float, within: float, kind: str) -> Spread:
    if kind == "coin":
        return Spread(mean, between, within, 1.0)
    if kind == "other":
        return Spread(mean, between, within, None)
    room = mean * (1 - mean) - between  # a coin's variance at the items' rates
    return Spread(mean, between, within, min(1.0, within / room) if room > 0 else 1.0)


def _rows(per_item: Sequence[Sequence[float]]) -> list[list[float]]:
    return [list(map(float, v)) for v in per_item if len(v) >= 2]


def variance_components(per_item: Sequence[Sequence[float]]) -> tuple[float, float] | None:
    """(between-item variance of the items' true means, within-item variance of one
    repetition) from items with at least two repetitions. None without two such items."""
    pilot = pilot_of(per_item, resamples=0)
    return None if pilot is None else (pilot.spread.between, pilot.spread.within)


def pilot_of(per_item: Sequence[Sequence[float]], *,
             resamples: int = BOOTSTRAP_RESAMPLES) -> Pilot | None:
    """The spread of items with at least two repetitions (needed to tell repetition
    noise from item differences), and `resamples` resamples of those items; None with
    fewer than two such items."""
    rows = _rows(per_item)
    if len(rows) < 2:
        return None
    values = [v for row in rows for v in row]
    kind = ("coin" if all(v in (0.0, 1.0) for v in values)
            else "fraction" if all(0.0 <= v <= 1.0 for v in values) else "other")
    items = np.array([(np.mean(r), np.var(r, ddof=1), len(r)) for r in rows])
    items = items[np.lexsort(items.T[::-1])]  # item order must not change the plan
    means, variances, counts = items.T
    mean, between, within = _components(means, variances, counts)
    spread = _spread(float(mean), float(between), float(within), kind)
    resampled: tuple[Spread, ...] = ()
    if resamples:
        rng = np.random.default_rng(data_seed(items))
        pick = rng.integers(0, len(rows), size=(resamples, len(rows)))
        parts = _components(means[pick], variances[pick], counts[pick])
        resampled = tuple(_spread(float(m), float(b), float(w), kind) for m, b, w in zip(
            *parts, strict=True))
    return Pilot(spread, resampled)


def other_within(spread: Spread, effect: float) -> float:
    """The repetition variance of an agent whose mean is `effect` from the pilot's, in
    the direction that makes it larger: a coin's variance at the items' rates,
    m(1 - m) - between, moves with the mean m, and `coin_share` of that move is
    repetition noise."""
    if spread.coin_share is None:
        return spread.within

    def room(m: float) -> float:
        return max(0.0, m * (1 - m) - spread.between)

    reachable = [m for m in (spread.mean + effect, spread.mean - effect) if 0 <= m <= 1]
    if not reachable:
        return spread.within
    moved = max(room(m) for m in reachable) - room(spread.mean)
    return max(0.0, spread.within + spread.coin_share * moved)


def difference_variance(spread: Spread, effect: float, *, repeats: int,
                        correlation: float) -> float:
    """Variance of one item's difference of two agents' means over `repeats`
    repetitions each: the item effects they do not share, plus both agents' noise."""
    unshared = 2 * spread.between * (1 - correlation)
    return unshared + (spread.within + other_within(spread, effect)) / repeats


def sizing_variance(pilot: Pilot, effect: float, *, repeats: int,
                    correlation: float) -> float:
    """The difference variance a plan is sized for: its `PILOT_QUANTILE` over the
    pilot's resamples, never below the pilot's own estimate."""
    estimate = difference_variance(pilot.spread, effect, repeats=repeats,
                                   correlation=correlation)
    if not pilot.resampled:
        return estimate
    spread = [difference_variance(s, effect, repeats=repeats, correlation=correlation)
              for s in pilot.resampled]
    return max(estimate, float(np.quantile(spread, PILOT_QUANTILE)))


def paired_t_power(items: int, effect: float, variance: float, *, alpha: float) -> float:
    """Power of the two-sided paired t-test at `alpha` on `items` differences with mean
    `effect` and variance `variance`: P(|T| > t(items - 1, 1 - alpha/2)) for T noncentral
    t with noncentrality effect / sqrt(variance / items)."""
    if items < 2:
        raise ValueError(f"the paired t-test needs at least 2 items, got {items}")
    if variance <= 0:
        return 1.0
    df = items - 1
    # the lower quantile, not the upper: 1 - alpha/2 rounds to 1 for a tiny alpha. A quantile
    # past what stdtrit can compute (a tiny alpha on few items) is a test that never rejects
    from scipy import special  # lazily: see stats.intervals

    critical = abs(float(special.stdtrit(df, alpha / 2)))
    if not math.isfinite(critical):
        return 0.0
    shift = abs(effect) / math.sqrt(variance / items)
    tails = (1 - float(special.nctdtr(df, shift, critical)),
             float(special.nctdtr(df, shift, -critical)))
    # nctdtr says NaN far out in a tail; min() would read a NaN sum as 1. A NaN tail taken
    # as 0 can only understate the power, so a plan sized on it is never too small
    return min(1.0, sum(t for t in tails if math.isfinite(t)))


def items_for_paired_difference(effect: float, *, variance: float, power: float = 0.8,
                                alpha: float = 0.05) -> int | None:
    """The fewest items (at least 2) at which the paired t-test at `alpha` detects a mean
    difference of `effect` with at least `power`, each item's difference having variance
    `variance`; a bisection, since the power grows with the items. None when that takes
    more than `MAX_ITEMS`."""
    if effect <= 0 or not 0 < power < 1 or not 0 < alpha < 1 or not 0 <= variance < math.inf:
        raise ValueError(f"effect must be > 0, power and alpha in (0, 1), variance >= 0; "
                         f"got {effect}, {power}, {alpha}, {variance}")

    def enough(n: int) -> bool:
        return paired_t_power(n, effect, variance, alpha=alpha) >= power

    if enough(2):
        return 2
    # the normal approximation's size, as a ratio first: effect squared can underflow to 0
    from scipy import special

    z = max(0.0, float(special.ndtri(power) - special.ndtri(alpha / 2)))
    ratio = z * math.sqrt(variance) / effect
    if not ratio <= math.sqrt(MAX_ITEMS):
        return None
    low, high = 2, max(3, math.ceil(ratio * ratio))
    while not enough(high):
        if high > MAX_ITEMS:
            return None
        low, high = high, min(2 * high, MAX_ITEMS + 1)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high
