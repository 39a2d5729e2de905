"""The intervals keep their promise at the sizes suites have: a seeded coverage simulation.

Agents of known success rate p are simulated on n items, for 0/1 scores and for fractions
(the mean of three 0/1 repetitions, as a k=3 run gives), and counts of known mean for the
count interval; every cell must cover the truth at least 93% of the time with the interval
the reports print (nominal: 95%). `make coverage` runs the full grid, measures included.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from agent_assay.scoring.base import ScoreKind
from agent_assay.stats import intervals

DRAWS = 300
RATES = (0.05, 0.3, 0.5, 0.9)
SIZES = (11, 20, 50, 104)
Draw = Callable[[np.random.Generator, int], np.ndarray]


def coverage(kind: ScoreKind, truth: float, draw: Draw, n: int, seed: int,
             draws: int = DRAWS) -> tuple[float, float]:
    """(share of printed intervals that hold `truth`, share of draws refused)."""
    rng = np.random.default_rng(seed)
    printed = covered = 0
    for _ in range(draws):
        ci = intervals.mean_interval(draw(rng, n).tolist(), kind)
        if ci is not None:
            printed += 1
            covered += ci[0] <= truth <= ci[1]
    return (covered / printed if printed else 0.0), 1 - printed / draws


@pytest.mark.parametrize("repetitions", [1, 3], ids=["binary", "fraction_of_3"])
def test_coverage_is_at_least_093_in_every_cell(
    repetitions: int, record_property: pytest.RecordProperty
) -> None:
    kind: ScoreKind = "binary" if repetitions == 1 else "fraction"
    table = {
        (p, n): coverage(kind, p, lambda rng, n, p=p: (rng.random((n, repetitions)) < p)
                         .mean(axis=1), n, seed=1000 * n + int(100 * p))[0]
        for p in RATES
        for n in SIZES
    }
    low = min(table.values())
    record_property("summary", f"coverage, {repetitions} repetition(s): lowest cell {low:.3f}")
    assert low >= 0.93, {cell: c for cell, c in table.items() if c < 0.93}


COUNTS: dict[str, tuple[float, Draw]] = {
    "poisson(0.2), mostly all-zero samples": (0.2, lambda rng, n: rng.poisson(0.2, n) * 1.0),
    "2, or 3 one time in five": (2.2, lambda rng, n: 2.0 + (rng.random(n) < 0.2)),
    "poisson(3)": (3.0, lambda rng, n: rng.poisson(3.0, n) * 1.0),
    "negative binomial, mean 1.5, variance 6": (
        1.5, lambda rng, n: rng.negative_binomial(0.5, 0.25, n) * 1.0),
}


@pytest.mark.parametrize("shape", list(COUNTS))
def test_count_intervals_cover_under_and_over_dispersed_counts(shape: str) -> None:
    truth, draw = COUNTS[shape]
    for n in (11, 50):
        covered, refused = coverage("count", truth, draw, n, seed=n, draws=1000)
        assert refused == 0.0  # a count always gets an interval
        assert covered >= 0.93, (shape, n, covered)


def test_a_symmetric_measure_is_printed_and_covers_a_heavy_one_is_mostly_refused() -> None:
    normal = coverage("measure", 10.0, lambda rng, n: rng.normal(10.0, 3.0, n), 50, seed=1)
    assert normal[1] < 0.05 and normal[0] >= 0.93
    heavy = coverage("measure", float(np.exp(1.5**2 / 2)),
                     lambda rng, n: rng.lognormal(0.0, 1.5, n), 11, seed=2)
    assert heavy[1] > 0.5  # most samples: "n too small ... heavy-tailed measure"


def test_nothing_outside_the_stats_module_computes_an_estimator_or_interval() -> None:
    from pathlib import Path

    import agent_assay

    root = Path(agent_assay.__file__).parent
    markers = ("beta.ppf", "binomtest(", "wilcoxon(", ".bootstrap(", "comb(", "wilson(",
               "NormalDist(", "proportion_ci(", "gammaincinv(", "stdtrit(")
    offenders = [
        f"{path.relative_to(root)}: {marker}"
        for path in root.rglob("*.py")
        if path.parent.name != "stats"
        for marker in markers
        if marker in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
