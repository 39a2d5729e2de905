"""Sizing a comparison: variance components of a run and the items a paired test needs."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import special


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
