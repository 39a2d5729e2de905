"""Cheats a dishonest or careless adapter author could write: none may end ADMISSIBLE."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.execute import run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.admissibility import single_pass_refusal
from agent_assay.store import Store
from agent_assay.views.load import report_text
from tests.support.certify import certify
from tests.support.cheats import (
    PEEK_ENV,
    BroadNondeterminism,
    CachedNoise,
    DeterministicOnlyOnOne,
    GoldPeek,
    HashSeeded,
    LenientRefinement,
    MetaDecidesHeadline,
    NoisyUnlessWatched,
    ShadowsAGenericScorer,
    TagBiasedScorer,
    noted,
)


def test_nothing_the_run_side_is_handed_carries_gold(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PEEK_ENV, str(tmp_path))
    got = certify(store, GoldPeek(), "good")
    assert noted("found") == []  # prepare, run_item, the twins' workers: no gold anywhere
    assert noted("handed").count("prepare") >= 3  # the run's process and each twin's
    assert got["admissible"], got["reasons"]


@pytest.mark.parametrize("cheat", [CachedNoise, NoisyUnlessWatched, HashSeeded])
def test_nondeterminism_hidden_from_one_process_fails_identical_config(
    store: Store, cheat: type
) -> None:
    got = certify(store, cheat(), "cheat")
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "FAILED", twin.summary
    assert not got["admissible"]
    by_pair = twin.measured["differing_by_comparison"]
    assert sum(by_pair.values()) == twin.measured["differing_paths"] > 0
    if cheat is not HashSeeded:  # these repeat themselves within a process
        assert by_pair["twin 1 vs certified"] > 0 or by_pair["twin 2 vs certified"] > 0


def test_the_same_cheats_pass_when_honest(store: Store) -> None:
    """The twins' fresh processes do not break an honest deterministic config."""
    got = certify(store, HashSeeded(), "good")
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "PASSED", twin.summary
    assert twin.measured["differing_paths"] == 0
    assert len(twin.measured["runs"]) == 2
    assert "not compared: latency.total_ms, latency_ms" in twin.summary


def test_nondeterministic_fields_cannot_cover_a_headline() -> None:
    with pytest.raises(AssayError) as refused:
        load_system(BroadNondeterminism())
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(
        "adapter broadnondeterminism: nondeterministic_fields names 'steps', which is "
        "neither latency_ms, cost, meta nor a measure scorer")
    assert "(and 3 more" in message


def test_a_lucky_subset_does_not_lift_the_single_pass_refusal(store: Store) -> None:
    system = DeterministicOnlyOnOne()
    one = api.Selection(ids=("look-L1",))
    lucky = api.evaluate(system, "cheat", store=store, repeats=1, seed=0, selection=one).run
    run_controls(store, system, lucky)
    assert store.control_outcomes(lucky.run_id)["identical_config"].status == "PASSED"
    assert single_pass_refusal(store, lucky).certified_by == lucky.run_id

    whole = api.evaluate(system, "cheat", store=store, repeats=1, seed=0).run
    refused = single_pass_refusal(store, whole)
    assert refused.certified_by is None
    assert any("a pass on another subset does not count" in r for r in refused.reasons)
    assert "!!! single run; not a measurement" in report_text(store, whole)
    # a subset of a certified run's items is covered by that certificate
    part = api.evaluate(system, "cheat", store=store, repeats=1, seed=3, selection=one).run
    assert single_pass_refusal(store, part).certified_by == lucky.run_id
    assert f"certified by identical_config on run {lucky.run_id}" in report_text(store, part)


def test_a_scorer_blind_on_one_tag_fails_the_self_test(store: Store) -> None:
    got = certify(store, TagBiasedScorer(), "good")
    selftest = got["by_kind"]["scorer_selftest"]
    assert selftest.status == "FAILED"
    looked = selftest.measured["scorers"]["toy.looked"]
    assert looked["green_on"] == ["look"]
    assert looked["by_tag"]["look"]["went_red"] == 0 < looked["by_tag"]["on"]["went_red"]
    assert "stayed green: toy.looked (on look)" in selftest.summary
    assert not got["admissible"]


def test_a_scorer_may_not_take_a_generic_scorer_name() -> None:
    with pytest.raises(AssayError) as refused:
        load_system(ShadowsAGenericScorer())
    assert str(refused.value) == (
        "adapter shadows: scorer 'outcome.match' (ShadowedOutcome) has the name of a generic "
        "scorer; give it a name of its own")


def test_a_refinement_that_ignores_gold_is_reported_against_what_it_refines(
    store: Store,
) -> None:
    got = certify(store, LenientRefinement(), "good")
    shuffled = got["by_kind"]["shuffled_gold"]
    (apart,) = shuffled.measured["refinements_disagreeing"]
    assert (apart["metric"], apart["refines"], apart["fall"]) == ("toy.outcome",
                                                                   "outcome.match", 0.0)
    assert apart["generic_fall"] > 0
    assert "disagrees with the metric it refines: toy.outcome fell 0.0000" in shuffled.summary
    assert shuffled.status == "FAILED" and not got["admissible"]
    # doing nothing ends 'nothing': there the refinement falls with outcome.match
    null = got["by_kind"]["null_agent"].measured["agents"]["do_nothing"]
    assert null["refinements_disagreeing"] == []


def test_a_declared_nondeterministic_field_that_decides_a_headline_fails(store: Store) -> None:
    got = certify(store, MetaDecidesHeadline(), "good")
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "FAILED"
    assert twin.measured["hiding_fields"] == ["meta (decides toy.meta_flag on look-L1)"]
    assert "remove them from Facts.nondeterministic_fields" in twin.summary
