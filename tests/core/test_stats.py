"""pass@k / pass^k against brute force, each kind's interval against known values and its
own definition, a seeded bootstrap."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from scipy import stats as scipy_stats
from scipy.stats import t as scipy_t

from agent_assay.scoring.base import ScoreKind
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


def test_binary_and_fraction_get_the_exact_interval_on_the_sum() -> None:
    binary = [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    assert intervals.mean_interval(binary, "binary") == intervals.exact_interval(8, 10)
    graded = [1.0, 0.5, 0.0, 1.0]
    assert intervals.mean_interval(graded, "fraction") == intervals.exact_interval(2.5, 4)
    assert intervals.interval_method(graded, "fraction") == intervals.EXACT
    assert intervals.interval_on_mean([], "binary") == intervals.MeanInterval(
        None, intervals.EXACT)


def test_a_constant_fraction_sample_does_not_collapse() -> None:
    low, high = intervals.mean_interval([0.5] * 11, "fraction") or (0.5, 0.5)
    assert low < 0.5 < high


def test_a_count_of_zeros_gets_a_count_bound_not_a_binomial_one() -> None:
    zeros = intervals.interval_on_mean([0.0] * 11, "count")
    assert zeros.method == intervals.COUNT and zeros.refused is None
    assert zeros.ci is not None and zeros.ci[0] == 0.0
    assert zeros.ci[1] == pytest.approx(3.6889 / 11, abs=1e-4)  # Garwood: -ln(0.025) / n
    assert zeros.ci != intervals.exact_interval(0, 11)


def test_the_count_interval_on_one_item_is_garwoods() -> None:
    # the exact Poisson interval for a total of 5, as tabulated (e.g. R's poisson.test)
    assert intervals.mean_interval([5.0], "count") == pytest.approx((1.6235, 11.6683), abs=1e-4)


@pytest.mark.parametrize("values", [[2.0] * 8 + [3.0] * 3, [2.0] * 11, [1.0] * 104])
def test_an_under_dispersed_count_does_not_collapse_to_a_point(values: list[float]) -> None:
    mean = sum(values) / len(values)
    low, high = intervals.mean_interval(values, "count") or (mean, mean)
    assert low < mean < high


def test_an_over_dispersed_count_is_wider_than_a_poisson_one() -> None:
    spread = [0.0] * 8 + [12.0, 0.0, 3.0]  # a total of 15 over 11 items, most of it on one
    low, high = intervals.mean_interval(spread, "count") or (0.0, 0.0)
    total_low, total_high = intervals.mean_interval([15.0], "count") or (0.0, 0.0)
    assert high - low > 1.5 * (total_high - total_low) / 11  # Garwood on that total, per item


def test_a_measure_of_zeros_gets_no_made_up_bound() -> None:
    cost = intervals.interval_on_mean([0.0] * 104, "measure")
    assert cost.ci is None and cost.method == intervals.MEASURE
    assert cost.refused == "every value is 0; no spread to bound"
    assert intervals.mean_interval([0.0] * 104, "measure") is None


def test_a_heavy_tailed_measure_at_small_n_is_refused_with_the_reason() -> None:
    latency = [1.0] * 10 + [100.0]
    refused = intervals.interval_on_mean(latency, "measure")
    assert refused.ci is None
    assert refused.refused is not None
    assert refused.refused.startswith("n too small for an interval on a heavy-tailed measure")
    skew = float(scipy_stats.skew(latency, bias=False))
    assert f"skewness {skew:.2f} needs n >= {math.ceil(10 * skew * skew)}, this has 11" \
        in refused.refused
    assert intervals.interval_on_mean([1.0, 2.0], "measure").refused is not None


def test_a_measure_interval_inverts_halls_transformation() -> None:
    values = [3.1, 2.4, 5.9, 4.4, 3.3, 2.8, 7.5, 3.9, 4.1, 3.6, 2.2, 4.8, 3.0, 6.1, 3.7]
    n = len(values)
    mean, se = sum(values) / n, float(np.std(values, ddof=1)) / math.sqrt(n)
    skew = float(scipy_stats.skew(values, bias=False))
    q = float(scipy_t.ppf(0.975, n - 1))

    def hall(t: float, g: float) -> float:
        a = g / math.sqrt(n)
        return t + a * t * t / 3 + a * a * t**3 / 27 + a / 6

    low, high = intervals.mean_interval(values, "measure") or (0.0, 0.0)
    assert hall((mean - low) / se, skew) == pytest.approx(q)  # the sample's own skewness
    allowed = max(skew, math.sqrt(n / intervals.SKEW_ASSUMED))  # the upper end's allowance
    assert hall((mean - high) / se, allowed) == pytest.approx(-q)


@pytest.mark.parametrize(("kind", "values"), [
    ("binary", [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]),
    ("fraction", [0.1, 0.5, 0.9, 0.3, 0.35, 0.8, 0.0, 1.0]),
    ("count", [0.0, 2.0, 1.0, 3.0, 0.0, 0.0, 7.0, 1.0, 0.333]),
    ("measure", [812.0, 640.5, 901.25, 77.0, 1320.0, 455.5, 1010.0, 699.0, 850.0, 720.0,
                 610.0, 905.0]),
])
def test_an_interval_is_a_function_of_the_values_not_their_order(
    kind: ScoreKind, values: list[float]
) -> None:
    first = intervals.interval_on_mean(values, kind)
    assert first.ci is not None
    for seed in range(5):
        shuffled = list(values)
        random.Random(seed).shuffle(shuffled)
        assert intervals.interval_on_mean(shuffled, kind) == first  # to the last bit


def test_values_a_kind_cannot_take_are_refused_not_bounded() -> None:
    assert intervals.mean_interval([0.5, 2.0], "fraction") is None
    assert "outside [0, 1]" in (intervals.interval_on_mean([0.5, 2.0], "binary").refused or "")
    assert "not a count" in (intervals.interval_on_mean([-1.0, 2.0], "count").refused or "")
    with pytest.raises(ValueError, match="kind 'ratio'"):
        intervals.interval_on_mean([1.0], "ratio")  # type: ignore[arg-type]


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
