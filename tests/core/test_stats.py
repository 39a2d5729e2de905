"""pass@k / pass^k against brute force, Wilson against known values, a seeded bootstrap."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import pytest
from scipy.stats import t as scipy_t

from agent_assay.stats import intervals, paired, passrates


def brute(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """(P[at least one of k draws passes], P[all k draws pass]) over every k-subset."""
    attempts = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    any_pass = sum(any(attempts[i] for i in s) for s in subsets)
    all_pass = sum(all(attempts[i] for i in s) for s in subsets)
    return Fraction(any_pass, len(subsets)), Fraction(all_pass, len(subsets))


CASES = [(n, c, k) for n in range(1, 8) for c in range(n + 1) for k in range(1, n + 1)]


@pytest.mark.parametrize(("n", "c", "k"), CASES)
def test_pass_at_k_and_hat_k_match_enumeration(n: int, c: int, k: int) -> None:
    at, hat = brute(n, c, k)
    assert passrates.pass_at_k(n, c, k) == pytest.approx(float(at), abs=1e-12)
    assert passrates.pass_hat_k(n, c, k) == pytest.approx(float(hat), abs=1e-12)
    assert passrates.pass_hat_k(n, c, k) <= c / n + 1e-12 <= passrates.pass_at_k(n, c, k) + 2e-12


def test_pass_k_examples() -> None:
    assert passrates.pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)
    assert passrates.pass_hat_k(5, 2, 2) == pytest.approx(1 / 10)
    assert passrates.pass_at_k(3, 1, 1) == pytest.approx(1 / 3)
    assert passrates.pass_hat_k(3, 1, 1) == pytest.approx(1 / 3)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4), (0, 0, 1)])
def test_pass_k_rejects_bad_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="pass@k needs"):
        passrates.pass_at_k(n, c, k)
    with pytest.raises(ValueError, match=r"pass\^k needs"):
        passrates.pass_hat_k(n, c, k)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [  # Clopper-Pearson, as tabulated (e.g. R's binom.test)
        (8, 10, 0.4439, 0.9748),
        (0, 10, 0.0, 0.3085),
        (10, 10, 0.6915, 1.0),
        (5, 10, 0.1871, 0.8129),
        (1, 1, 0.025, 1.0),
    ],
)
def test_exact_interval_known_values(successes: int, n: int, low: float, high: float) -> None:
    interval = intervals.exact_interval(successes, n)
    assert interval is not None
    assert interval[0] == pytest.approx(low, abs=5e-5)
    assert interval[1] == pytest.approx(high, abs=5e-5)


def test_exact_interval_matches_scipys_binomial_test() -> None:
    from scipy.stats import binomtest

    for successes, n in [(3, 11), (0, 20), (19, 50), (104, 104)]:
        ci = binomtest(successes, n).proportion_ci(method="exact")
        assert intervals.exact_interval(successes, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_exact_interval_empty() -> None:
    assert intervals.exact_interval(0, 0) is None


def test_bootstrap_is_a_function_of_the_values_alone() -> None:
    data = [0.1, 0.5, 0.9, 0.3, 0.35, 0.8, 0.0, 1.0]
    first = intervals.bootstrap_mean(data)
    assert first is not None
    assert intervals.bootstrap_mean(data) == first
    assert intervals.bootstrap_mean(list(reversed(data))) == first  # order does not matter
    assert intervals.bootstrap_mean([*data[:-1], 0.99]) != first  # the values do
    low, high = first
    mean = sum(data) / len(data)
    assert min(data) <= low < mean < high <= max(data)


def test_bootstrap_constant_data_has_zero_width() -> None:
    assert intervals.bootstrap_mean([0.7] * 6) == (0.7, 0.7)
    assert intervals.bootstrap_mean([3.0]) == (3.0, 3.0)
    assert intervals.bootstrap_mean([]) is None


def test_mean_interval_picks_the_method_by_range() -> None:
    binary = [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    assert intervals.mean_interval(binary) == intervals.exact_interval(8, 10)
    graded = [1.0, 0.5, 0.0, 1.0]
    assert intervals.mean_interval(graded) == intervals.exact_interval(2.5, 4)
    assert intervals.interval_method(graded) == intervals.EXACT
    counts = [0.0, 2.0, 1.0, 3.0]
    assert intervals.mean_interval(counts) == intervals.bootstrap_mean(counts)
    assert intervals.interval_method(counts) == intervals.BOOTSTRAP
    assert intervals.mean_interval([]) is None


def test_a_constant_fraction_sample_does_not_collapse() -> None:
    low, high = intervals.mean_interval([0.5] * 11) or (0.5, 0.5)
    assert low < 0.5 < high


def test_clustered_interval_by_hand() -> None:
    values = [1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    clusters = [name for name in "abcdefgh" for _ in range(2)]
    mean = 9 / 16
    sums = [values[i] + values[i + 1] - 2 * mean for i in range(0, 16, 2)]
    # equal clusters of 2 in 16: the CR2 factor 1 / (1 - 2/16) = 8/7, and df = G - 1 = 7
    se = math.sqrt(8 / 7 * sum(r * r for r in sums)) / 16
    half = float(scipy_t.ppf(0.975, 7)) * se
    assert paired.clustered_interval(values, clusters) == pytest.approx(
        (max(0.0, mean - half), min(1.0, mean + half)))
    # below the floor the interval is not given: three clusters, or one
    assert paired.CLUSTERS_FLOOR > 3
    assert paired.clustered_interval(values, [c if c < "d" else "c" for c in clusters]) is None
    assert paired.clustered_interval(values, ["a"] * 16) is None


def test_clustering_widens_the_interval_when_clusters_move_together() -> None:
    values = [1.0] * 40 + [0.0] * 40
    by_item = paired.clustered_interval(values, [str(i) for i in range(80)])
    by_ten = paired.clustered_interval(values, [str(i // 10) for i in range(80)])
    assert by_item is not None and by_ten is not None
    assert by_ten[1] - by_ten[0] > by_item[1] - by_item[0]
