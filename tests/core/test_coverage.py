"""The intervals keep their promise at the sizes suites have: a seeded coverage simulation.

Agents of known success rate p are simulated on n items, for 0/1 scores and for fractions
(the mean of three 0/1 repetitions, as a k=3 run gives); every cell must cover p at
least 93% of the time with the interval the reports print (nominal: 95%).
"""

from __future__ import annotations

import numpy as np
import pytest

from agent_assay.stats import intervals

DRAWS = 300
RATES = (0.05, 0.3, 0.5, 0.9)
SIZES = (11, 20, 50, 104)


def coverage(p: float, n: int, repetitions: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    covered = 0
    for _ in range(DRAWS):
        values = (rng.random((n, repetitions)) < p).mean(axis=1)
        low, high = intervals.mean_interval(list(values)) or (1.0, 0.0)
        covered += low <= p <= high
    return covered / DRAWS


@pytest.mark.parametrize("repetitions", [1, 3], ids=["binary", "fraction_of_3"])
def test_coverage_is_at_least_093_in_every_cell(
    repetitions: int, record_property: pytest.RecordProperty
) -> None:
    table = {
        (p, n): coverage(p, n, repetitions, seed=1000 * n + int(100 * p))
        for p in RATES
        for n in SIZES
    }
    low = min(table.values())
    record_property("summary", f"coverage, {repetitions} repetition(s): lowest cell {low:.3f}")
    assert low >= 0.93, {cell: c for cell, c in table.items() if c < 0.93}


def test_nothing_outside_the_stats_module_computes_an_estimator_or_interval() -> None:
    from pathlib import Path

    import agent_assay

    root = Path(agent_assay.__file__).parent
    markers = ("beta.ppf", "binomtest(", "wilcoxon(", ".bootstrap(", "comb(", "wilson(",
               "NormalDist(", "proportion_ci(")
    offenders = [
        f"{path.relative_to(root)}: {marker}"
        for path in root.rglob("*.py")
        if path.parent.name != "stats"
        for marker in markers
        if marker in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
