"""compare's paired difference: one statistic gives the interval and the p-value, so they
agree; the CR2 error and its degrees of freedom against their textbook matrix form; the
edge cases (nothing differs, every difference equal); and the cluster counts the code
enforces against the benchmark that measured them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from agent_assay.stats import paired

ROOT = Path(__file__).resolve().parents[2]

steps = st.integers(min_value=-3, max_value=3).map(lambda v: v / 3)
"""Differences of item means over three repetitions: ties, zeros and equal values abound."""


@st.composite
def differences(draw: st.DrawFn) -> tuple[list[float], list[str] | None]:
    values = draw(st.lists(steps | st.floats(-2, 2, allow_nan=False), min_size=1, max_size=40))
    if not draw(st.booleans()):
        return values, None
    labels = draw(st.lists(st.sampled_from("abcdefgh"), min_size=len(values),
                           max_size=len(values)))
    return values, labels


@pytest.mark.usefixtures("same_cases_in_any_run")
def test_the_interval_leaves_out_zero_exactly_when_p_is_below_alpha() -> None:
    """A seeded batch: Hypothesis derandomized, its literal pool fixed by the fixture."""

    @settings(max_examples=400, deadline=None, derandomize=True, database=None)
    @given(differences())
    def agrees(case: tuple[list[float], list[str] | None]) -> None:
        values, labels = case
        found = paired.paired_difference(values, labels)
        excludes = found.ci is not None and (found.ci[0] > 0 or found.ci[1] < 0)
        assert excludes == found.differs
        assert (found.ci is None) == (found.no_ci is not None)
        if found.ci is not None:
            assert found.ci[0] <= found.mean <= found.ci[1]
        if found.method == "none":
            assert found.ci is None and found.p_value == 1.0

    agrees()


def test_without_clusters_it_is_the_ordinary_paired_t() -> None:
    rng = np.random.default_rng(3)
    diffs = (rng.random(30) < 0.6).astype(float) - (rng.random(30) < 0.4)
    found = paired.paired_difference(list(diffs))
    expected = sps.ttest_1samp(diffs, 0.0)
    assert found.p_value == pytest.approx(expected.pvalue, rel=1e-9)
    assert found.df == 29 and found.method == "t" and not found.clustered
    ci = expected.confidence_interval(0.95)
    assert found.ci == pytest.approx((ci.low, ci.high), rel=1e-9)


def cr2_by_matrices(values: list[float], labels: list[str]) -> tuple[float, float]:
    """The CR2 standard error and the Imbens-Kolesar df from their definitions, on n x n
    matrices: A_g = (I - H_gg)^(-1/2) for the intercept-only hat matrix H = J/N, and the
    Satterthwaite df of V = z'z, z = C y, under Omega = within I + between Z Z'."""
    y = np.asarray(values)
    n = len(y)
    names = sorted(set(labels))
    member = np.array([names.index(x) for x in labels])
    resid = y - y.mean()
    hat = np.full((n, n), 1.0 / n)
    rows = []
    for g in range(len(names)):
        idx = np.flatnonzero(member == g)
        w, vecs = np.linalg.eigh(np.eye(len(idx)) - hat[np.ix_(idx, idx)])
        adjust = vecs @ np.diag(w ** -0.5) @ vecs.T
        row = np.zeros(n)
        row[idx] = np.ones(len(idx)) @ adjust / n
        rows.append(row)
    c = np.array(rows) @ (np.eye(n) - hat)  # z = C y, and C y = C resid
    se = math.sqrt(float(np.sum((c @ resid) ** 2)))
    zz = (member[:, None] == member[None, :]).astype(float)
    sizes = np.bincount(member).astype(float)
    means = np.bincount(member, weights=y) / sizes
    within = float(np.sum((y - means[member]) ** 2)) / (n - len(names))
    between_ms = float(np.sum(sizes * (means - y.mean()) ** 2)) / (len(names) - 1)
    n0 = (n - float(np.sum(sizes ** 2)) / n) / (len(names) - 1)
    between = max(0.0, (between_ms - within) / n0)
    cov = c @ (within * np.eye(n) + between * zz) @ c.T
    return se, float(np.trace(cov) ** 2 / np.sum(cov * cov))


def test_cr2_and_its_degrees_of_freedom_match_the_matrix_definitions() -> None:
    values = [1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 2.0 / 3, 1.0 / 3]
    labels = ["a", "a", "a", "a", "a", "b", "b", "c", "c", "c", "d", "e"]
    se, df = cr2_by_matrices(values, labels)
    found = paired.paired_difference(values, labels)
    assert found.se == pytest.approx(se, rel=1e-10)
    assert found.df == pytest.approx(df, rel=1e-10)
    assert found.clusters == 5 and found.clustered
    half = float(sps.t.ppf(0.975, df)) * se
    mean = sum(values) / len(values)
    assert found.ci == pytest.approx((mean - half, mean + half), rel=1e-9)
    assert found.p_value == pytest.approx(2 * sps.t.sf(abs(mean) / se, df), rel=1e-9)


def test_equal_clusters_give_g_minus_one_degrees_of_freedom() -> None:
    rng = np.random.default_rng(5)
    values = list(rng.normal(size=24))
    found = paired.paired_difference(values, [str(i % 6) for i in range(24)])
    assert found.df == pytest.approx(5.0, rel=1e-9)


def test_the_clustered_interval_on_a_mean_is_the_same_machinery() -> None:
    values = [3.0, 5.0, 2.0, 8.0, 1.0, 4.0, 4.0, 9.0, 6.0, 2.0, 7.0, 3.0]
    labels = ["x", "x", "y", "y", "y", "z", "w", "w", "u", "v", "s", "r"]
    assert paired.clustered_interval(values, labels) == paired.paired_difference(
        values, labels).ci


def test_no_item_differs_has_no_interval_and_no_test() -> None:
    found = paired.paired_difference([0.0] * 12)
    assert (found.ci, found.p_value, found.method) == (None, 1.0, "none")
    assert found.no_ci == "no item differs" and not found.differs


@pytest.mark.parametrize(("n", "p", "point"), [(4, 0.125, False), (6, 0.03125, True)])
def test_every_difference_equal_is_a_sign_test_and_its_inversion(
    n: int, p: float, point: bool
) -> None:
    found = paired.paired_difference([1.0] * n)
    assert found.method == "sign" and found.p_value == pytest.approx(p)
    assert found.ci == ((1.0, 1.0) if point else None)
    assert found.differs == point


def test_the_enforced_cluster_counts_are_the_measured_ones() -> None:
    measured = json.loads((ROOT / "reports/stats/agreement.json").read_text())
    assert measured["floor_clusters"] == paired.CLUSTERS_FLOOR
    assert measured["trusted_from_clusters"] == paired.CLUSTERS_TRUSTED
    assert measured["fpr_bound"] == paired.FPR_BOUND
    assert measured["agreement_min"] >= 0.98
    assert measured["clustered_fpr_min_G10_max"] <= paired.FPR_BOUND
