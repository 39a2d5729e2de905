"""`plan`: sized for compare's paired t-test. The power function is the noncentral t's
tail and agrees with `paired_difference` on normal data; the planned number of items
reaches the promised power in a seeded simulation judged by that test; the what-if figures
move the way a wrong assumption moves them; the command prints all of it from a run."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from agent_assay.stats import paired
from agent_assay.stats import power as sizing
from agent_assay.store import Store
from agent_assay.views.planning import REPEATS, size_from
from tests.support.invoke import invoke
from tests.support.toy import RichToyAdapter
from tests.support.toyrun import toy_run
from tools.studies.stats_power import MODELS, judged

DRAWS = 1000
"""Comparisons per simulated check: fast, with a standard error near 0.013 at power 0.8."""


def allowance(power: float, draws: int) -> float:
    """Three standard errors of a simulated power: a seeded check passes this unless the
    true power is below the promise."""
    return 3 * math.sqrt(power * (1 - power) / draws)


@pytest.mark.parametrize(("items", "effect", "variance"),
                         [(2, 1.0, 1.0), (12, 0.5, 0.4), (300, 0.1, 0.45), (5000, 0.02, 0.3)])
def test_the_power_is_the_noncentral_t_tail(items: int, effect: float, variance: float) -> None:
    df, shift = items - 1, effect / math.sqrt(variance / items)
    critical = stats.t.ppf(0.975, df)
    expected = stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift)
    assert sizing.paired_t_power(items, effect, variance, alpha=0.05) == pytest.approx(
        expected, rel=1e-9, abs=1e-12)


def test_the_power_grows_with_items_and_the_plan_takes_the_fewest() -> None:
    powers = [sizing.paired_t_power(n, 0.1, 0.3, alpha=0.05) for n in range(2, 1500)]
    assert all(b > a for a, b in itertools.pairwise(powers))
    n = sizing.items_for_paired_difference(0.1, variance=0.3, power=0.8, alpha=0.05)
    assert powers[n - 2] >= 0.8 > powers[n - 3]
    assert sizing.items_for_paired_difference(50.0, variance=0.3) == 2  # never fewer
    with pytest.raises(ValueError, match="effect must be > 0"):
        sizing.items_for_paired_difference(0.0, variance=0.3)


def test_the_power_is_what_paired_difference_gives_on_normal_differences() -> None:
    """Where the t-test's assumptions hold exactly, the share of draws compare's own test
    finds significant is the power the plan computes."""
    rng = np.random.default_rng(36)
    items, effect, variance = 25, 0.5, 1.0
    draws = rng.normal(effect, math.sqrt(variance), size=(4000, items))
    found = np.mean([paired.paired_difference(list(row)).p_value < 0.05 for row in draws])
    expected = sizing.paired_t_power(items, effect, variance, alpha=0.05)
    assert abs(found - expected) < allowance(expected, len(draws))


@pytest.mark.parametrize("repeats", [1, 3])
def test_the_planned_size_reaches_the_promised_power(
    repeats: int, record_property: pytest.RecordProperty
) -> None:
    """0/1 scores at a rate of 0.2 rising by 0.1: the rate-dependent repetition noise the
    old sizing ignored (equal within for both agents, normal approximation) left this
    design near 0.74."""
    model, effect, promised = MODELS[1], 0.1, 0.8
    rng = np.random.default_rng([36, repeats])
    planned = size_from(model.pilot(rng), effects=[effect], power=promised, alpha=0.05,
                        correlation=0.5)
    assert planned is not None
    items = next(r.items for r in planned.rows if r.repeats == repeats)
    achieved = judged(model, rng, DRAWS, items, repeats, effect, 0.5)
    record_property("summary", f"plan, k={repeats}: {items} items, power {achieved:.3f}")
    assert achieved >= promised - allowance(promised, DRAWS)


def test_what_if_figures_fall_when_an_assumption_is_worse() -> None:
    pilot = MODELS[0].pilot(np.random.default_rng(7))
    planned = size_from(pilot, effects=[0.1, 0.2], power=0.8, alpha=0.05, correlation=0.5)
    assert planned is not None and planned.spread.between > 0
    for w in planned.what_if():
        assert w.row == planned.cheapest(w.row.effect) and w.row.power >= 0.8
        assert w.uncorrelated < w.row.power and w.between < w.row.power
        assert w.within < w.row.power
    # the more of the item effects a plan assumes shared, the more it loses when none are
    bolder = size_from(pilot, effects=[0.1], power=0.8, alpha=0.05, correlation=0.9)
    assert bolder is not None
    drops = [w.row.power - w.uncorrelated for w in (bolder.what_if()[0], planned.what_if()[0])]
    assert drops[0] > drops[1] > 0


def test_the_other_agents_noise_follows_its_rate_for_values_in_0_1() -> None:
    coin = sizing.Spread(mean=0.2, between=0.01, within=0.15, coin_share=1.0)
    assert sizing.other_within(coin, 0.2) == pytest.approx(0.15 + 0.4 * 0.6 - 0.2 * 0.8)
    middle = replace(coin, mean=0.5)
    assert sizing.other_within(middle, 0.1) == pytest.approx(0.15 - 0.01)
    assert sizing.other_within(replace(coin, coin_share=None), 0.2) == 0.15
    fraction = sizing.pilot_of(MODELS[3].pilot(np.random.default_rng(3)), resamples=0)
    assert fraction is not None and fraction.spread.coin_share is not None
    assert 0.15 < fraction.spread.coin_share < 0.35  # a fraction of four checks: 1/4


def test_the_plan_does_not_depend_on_item_order() -> None:
    rows = MODELS[0].pilot(np.random.default_rng(5))
    first = size_from(rows, effects=[0.1], power=0.8, alpha=0.05, correlation=0.5)
    again = size_from(rows[::-1], effects=[0.1], power=0.8, alpha=0.05, correlation=0.5)
    assert first is not None and again is not None and first.rows == again.rows


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
    plan_table, what_if = (part.splitlines() for part in done.out.split("\n\n")[1:3])
    rows = [line.split() for line in plan_table[1:]]
    assert {(r[0], r[1]) for r in rows} == {(e, k) for e in ("0.05", "0.1")
                                           for k in ("1", "2", "3", "5", "10")}
    assert all(int(r[3]) == int(r[1]) * int(r[2]) for r in rows)
    cheapest = [r[:3] for r in rows if "<-" in r]
    assert len(cheapest) == 2 and [r.split()[:3] for r in what_if[2:]] == cheapest
    for phrase in ("paired t", "share 0.5 of the item effects", "one run cannot show it",
                   "variance between items", "90th percentile"):
        assert phrase in done.out
    single = toy_run(store, RichToyAdapter(), "noisy", repeats=1)
    refused = invoke("plan", "--run", single.run_id, "--effect", "0.1", "--db", db)
    assert refused.code == 1 and "needs at least two repetitions" in refused.err
    for effect, reason in (("1.5", "cannot be reached from a mean of"),
                           ("inf", "must be above 0 and finite")):
        beyond = invoke("plan", "--run", run.run_id, "--effect", effect, "--db", db)
        assert beyond.code == 1 and reason in beyond.err and beyond.traceback is None
        assert len(beyond.err.splitlines()) == 1 and beyond.out == ""



def test_the_power_is_never_overstated_where_the_tail_function_gives_up() -> None:
    """nctdtr answers NaN far out in a tail (alpha 1e-5 on a few hundred items); that NaN
    used to count as power 1, so the plan came out smaller than the test needs, and a
    smaller variance or alpha could ask for more items than a larger one."""
    powers = [sizing.paired_t_power(n, 0.1, 0.27, alpha=1e-5) for n in range(2, 1200)]
    assert all(0 <= p <= 1 for p in powers)
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(powers))
    sizes = [sizing.items_for_paired_difference(0.1, variance=v, alpha=1e-5)
             for v in (0.05, 0.1, 0.27)]
    assert sizes == sorted(sizes) and sizes[0] is not None


@pytest.mark.parametrize(("option", "value", "said"), [
    ("--effect", "1e-300", "--effect 1e-300 needs more than 10000000 items per agent"),
    ("--effect", "5e-324", "needs more than 10000000 items per agent"),
    ("--alpha", "5e-324", "--alpha must be at least 2.22507e-308"),
])
def test_extreme_plan_options_are_one_line(
    store: Store, option: str, value: str, said: str
) -> None:
    run = toy_run(store, RichToyAdapter(), "noisy", repeats=2)
    args = {"--effect": "0.1", option: value}
    done = invoke("plan", "--run", run.run_id, *itertools.chain(*args.items()),
                  "--db", str(store.engine.url.database))
    assert done.traceback is None, done.traceback
    assert done.code == 1 and done.out == "" and done.err.splitlines() == [
        next(line for line in done.err.splitlines() if said in line)], done.err


def test_a_tiny_alpha_gives_a_plan(store: Store) -> None:
    """A tiny alpha on a noisy pilot needs tens of thousands of items, not a traceback
    (1 - alpha/2 rounded to 1, and the search for the size never ended)."""
    run = toy_run(store, RichToyAdapter(), "noisy", repeats=2)
    done = invoke("plan", "--run", run.run_id, "--effect", "0.1", "--alpha", "1e-300",
                  "--db", str(store.engine.url.database))
    assert done.code == 0 and done.traceback is None, done.err
    rows = [line.split() for line in done.out.split("\n\n")[1].splitlines()[1:]]
    assert len(rows) == len(REPEATS) and all(2 <= int(r[2]) <= sizing.MAX_ITEMS for r in rows)
