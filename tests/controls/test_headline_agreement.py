"""headline_agreement: a rigged system headline scorer passes every other control and is
caught here, with the items; an honest one passes; a generic headline is NOT_RUN."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls import registry
from agent_assay.controls.bands import load_bands
from agent_assay.controls.execute import control_context, run_controls
from agent_assay.controls.headline_agreement import NO_SYSTEM_HEADLINE, HeadlineAgreement
from agent_assay.controls.headline_reference import references
from agent_assay.errors import AssayError
from agent_assay.integrity.admissibility import assess
from agent_assay.model import Run
from agent_assay.store import Store
from tests.support.certify import certify
from tests.support.scorer_cheats import (
    ATTACKS,
    CleanOutcome,
    HonestRefinement,
    HonestSystemScorer,
    OnlyItsAgent,
    TagBiasedHeadline,
)
from tests.support.toy import RichToyAdapter

KIND = "headline_agreement"


def made_run(store: Store, system: Any) -> Run:
    run = api.evaluate(system, "good", store=store, repeats=1, seed=0).run
    return run


def caught(store: Store, system: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Every other control first, as the harness ran before this control existed (the run
    is then ADMISSIBLE), then this control alone: the run is not admissible any more."""
    run = made_run(store, system)
    where = dict(registry._WHERE)
    monkeypatch.setattr(registry, "_WHERE", {k: v for k, v in where.items() if k != KIND})
    run_controls(store, system, run)
    before = assess(store, run)
    monkeypatch.setattr(registry, "_WHERE", {KIND: where[KIND]})
    (agreement,) = run_controls(store, system, run).outcomes
    monkeypatch.setattr(registry, "_WHERE", where)
    after = assess(store, run)
    return {"before": before, "after": after, "outcome": agreement}


EXPECTED = {
    # scorer, the class it falls in, the source, items that must be named
    "tag-biased": ("toy.lit", "credited", "do_nothing",
                   ["look-L1", "look-L2", "look-L3", "look-L4"]),
    "agent-only credit": ("toy.served", "replay_differs", "own_replayed",
                          ["on-L2", "on-L2-again"]),
    "honest only when watched": ("toy.watched", "rescored_differs", "own",
                                 ["on-L2", "on-L2-again"]),
    "lenient refinement": ("toy.outcome_or_look", "credited", "mutated", ["on-L1"]),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_rigged_headline_scorer_is_admissible_without_this_control_and_fails_it(
    store: Store, monkeypatch: pytest.MonkeyPatch, attack: str
) -> None:
    got = caught(store, ATTACKS[attack](), monkeypatch)
    assert got["before"].admissible, got["before"].reasons
    agreement = got["outcome"]
    assert agreement.status == "FAILED", agreement.summary
    assert got["after"].reasons == ("failed control(s): headline_agreement",)
    if attack in EXPECTED:
        metric, kind, source, items = EXPECTED[attack]
        row = agreement.measured["scorers"][metric]
        assert kind in row["failing"]
        cell = row["disagreements"][kind][source]
        assert cell["count"] >= len(items) and set(items) <= set(cell["items"])
        assert f"{source} {cell['count']} (" in agreement.summary
    else:
        margins = agreement.measured["reference_margins"]
        assert margins["outcome.match"]["smallest"] < 0.25
        assert margins["state.assertions"]["smallest"] < 0.25
        assert "the headline leaves out outcome.match (margin" in agreement.summary


@pytest.mark.parametrize("system", [HonestSystemScorer, HonestRefinement])
def test_an_honest_system_scorer_agrees_everywhere(store: Store, system: type) -> None:
    got = certify(store, system(), "good")
    agreement = got["by_kind"][KIND]
    assert agreement.status == "PASSED", agreement.summary
    (row,) = agreement.measured["scorers"].values()
    assert row["disagreements"] == {}
    sources = agreement.measured["sources"]
    assert {s: sources[s]["trajectories"] for s in sources} == {
        "own": 12, "do_nothing": 12, "gold": 12, "random": 120, "mutated": 60,
        "own_replayed": 12}
    assert got["admissible"], got["reasons"]


def test_a_generic_headline_is_not_run_and_allowed(store: Store) -> None:
    got = certify(store, RichToyAdapter(), "good")
    agreement = got["by_kind"][KIND]
    assert (agreement.status, agreement.reason) == ("NOT_RUN", NO_SYSTEM_HEADLINE)
    assert got["payloads"][KIND]["allowed_not_run"] is True
    assert got["admissible"], got["reasons"]


def test_without_replay_the_replayed_sources_are_skipped_and_doing_nothing_still_judges(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = TagBiasedHeadline()
    run = made_run(store, system)
    ctx = control_context(store, system, run, random_seeds=2)
    monkeypatch.setattr(ctx.adapter, "replay_view", lambda: None)
    got = HeadlineAgreement().run(ctx, load_bands().get(KIND))
    sources = got.measured["sources"]
    assert sources["gold"] == sources["random"] == sources["mutated"] == {
        "skipped": "the system has no replay capability"}
    assert sources["own_replayed"] == {"skipped": "the system has no replay capability"}
    assert got.status == "FAILED"
    assert got.measured["scorers"]["toy.lit"]["disagreements"]["credited"]["do_nothing"][
        "count"] == 4


def test_credit_for_its_own_agent_only_is_withheld_from_gold_and_differs_on_replay(
    store: Store,
) -> None:
    system = OnlyItsAgent()
    run = made_run(store, system)
    got = HeadlineAgreement().run(control_context(store, system, run, random_seeds=2),
                                  load_bands().get(KIND))
    assert got.status == "FAILED"
    found = got.measured["scorers"]["toy.only_ours"]["disagreements"]
    assert found["withheld"]["gold"]["count"] == 12  # every item: gold replayed is correct
    assert found["replay_differs"]["own_replayed"]["count"] == 10  # all but the slips
    assert got.reason == (
        "toy.only_ours fails what its reference credits 12 time(s); toy.only_ours scores the "
        "agent's calls otherwise when the harness replays them 10 time(s)")


def test_a_refinement_of_what_is_not_a_generic_credit_metric_is_refused() -> None:
    class RefinesACount(CleanOutcome):
        refines = "tools.wrong"

    scorers = load_system(replace_scorer(RefinesACount())).scorers()
    with pytest.raises(AssayError) as refused:
        references(scorers, ("toy.clean_outcome",))
    assert str(refused.value) == (
        "scorer toy.clean_outcome declares it refines 'tools.wrong', which is not a generic "
        "metric that gives credit (binary or fraction)")


def replace_scorer(scorer: Any) -> RichToyAdapter:
    system = HonestRefinement()
    system.facts = replace(system.facts, scorers=(scorer,))
    return system
