"""`plan`: the planned number of items reaches the power it promises (a seeded simulation),
and the command prints items x repeats for each effect from a stored run."""

from __future__ import annotations

import numpy as np
import pytest

from agent_assay.stats import paired
from agent_assay.stats import power as sizing
from agent_assay.store import Store
from tests.support.invoke import invoke
from tests.support.toy import RichToyAdapter
from tests.support.toyrun import toy_run

SIMULATIONS = 2000


def item_rates(rng: np.random.Generator, n: int, shift: float, shared: np.ndarray,
               spread: float, correlation: float) -> np.ndarray:
    own = rng.normal(0.0, spread, n)
    rates = 0.5 + shift + np.sqrt(correlation) * shared + np.sqrt(1 - correlation) * own
    return np.clip(rates, 0.01, 0.99)


def paired_p(a: np.ndarray, b: np.ndarray) -> float:
    """The test `compare` runs on two runs' per-item means (1 when nothing is tested)."""
    found = paired.paired_difference(list(b.mean(axis=1) - a.mean(axis=1)))
    return 1.0 if found.p_value is None else found.p_value


@pytest.mark.parametrize("repeats", [1, 3])
def test_the_planned_size_reaches_at_least_75_percent_power(
    repeats: int, record_property: pytest.RecordProperty
) -> None:
    rng = np.random.default_rng(7 + repeats)
    spread, correlation, effect = 0.15, 0.5, 0.1
    # a pilot run of one agent, k=3, from which the plan is made, as `plan` would
    pilot_rates = item_rates(rng, 104, 0.0, rng.normal(0, spread, 104), spread, 0.0)
    pilot = rng.random((104, 3)) < pilot_rates[:, None]
    parts = sizing.variance_components([list(map(float, row)) for row in pilot])
    assert parts is not None
    n = sizing.items_for_paired_difference(effect, between=parts[0], within=parts[1],
                                          repeats=repeats, correlation=correlation)
    detected = 0
    for _ in range(SIMULATIONS):
        shared = rng.normal(0.0, spread, n)
        a = rng.random((n, repeats)) < item_rates(rng, n, 0.0, shared, spread, correlation)[:, None]
        b = rng.random((n, repeats)) < item_rates(rng, n, effect, shared, spread,
                                                  correlation)[:, None]
        detected += paired_p(a.astype(float), b.astype(float)) < 0.05
    power = detected / SIMULATIONS
    record_property("summary", f"plan, k={repeats}: {n} items, simulated power {power:.3f}")
    assert power >= 0.75


def test_variance_components_need_two_repetitions() -> None:
    assert sizing.variance_components([[1.0], [0.0]]) is None
    between, within = sizing.variance_components([[1.0, 1.0], [0.0, 0.0], [1.0, 0.0]]) or (0, 0)
    assert within == pytest.approx(1 / 6) and between > 0


def test_plan_prints_items_and_repeats_for_each_effect(store: Store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    run = toy_run(store, RichToyAdapter(), "noisy", repeats=3)
    db = str(store.engine.url.database)
    done = invoke("plan", "--run", run.run_id, "--effect", "0.05", "--effect", "0.1",
                  "--db", db)
    assert done.code == 0 and done.traceback is None, done.err
    rows = [line.split() for line in done.out.splitlines() if line[:1].isdigit()]
    assert {(r[0], r[1]) for r in rows} == {(e, k) for e in ("0.05", "0.1")
                                           for k in ("1", "2", "3", "5", "10")}
    assert all(int(r[3]) == int(r[1]) * int(r[2]) for r in rows)
    assert sum("<- fewest episodes" in line for line in done.out.splitlines()) == 2
    single = toy_run(store, RichToyAdapter(), "noisy", repeats=1)
    refused = invoke("plan", "--run", single.run_id, "--effect", "0.1", "--db", db)
    assert refused.code == 1 and "needs at least two repetitions" in refused.err
