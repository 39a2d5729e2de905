"""pass@k and pass^k: the unbiased estimators over n repetitions with c passes.

pass@k = 1 - C(n-c, k)/C(n, k) (at least one of k draws passes) and
pass^k = C(c, k)/C(n, k) (all k draws pass); `pass_hat_exact` and `pass_at_exact`
average them over items in exact rational arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb

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
