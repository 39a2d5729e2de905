"""Re-scoring a stored run: nothing when nothing changed, else a whole new generation."""

from __future__ import annotations

import pytest

from agent_assay.model import Gold, Trajectory
from agent_assay.rescoring import rescore
from agent_assay.scoring.base import ScoreValue, ScoringContext
from agent_assay.scoring.outcome import OutcomeMatch
from agent_assay.scoring.path import LcsRatio
from agent_assay.scoring.resources import CostUsd
from agent_assay.store import Store
from agent_assay.views.load import summarise
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run


@pytest.mark.parametrize("config", ["good", "crashy", "noisy", "wrong_arg"])
def test_rescore_unchanged_run_appends_nothing(store: Store, toy: ToyAdapter, config: str) -> None:
    run = toy_run(store, toy, config, repeats=2)
    before = store.count_scores()
    result = rescore(store, toy, run.run_id)
    assert (result.generation, result.written, result.changed) == (0, 0, 0)
    assert result.unchanged == 8 * 13 == before
    assert store.count_scores() == before
    assert store.count_rows("score_generations") == 0


def test_new_scorer_version_writes_a_new_generation(
    store: Store, toy: ToyAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = toy_run(store, toy, "crashy", repeats=2)
    other = toy_run(store, toy, "good")
    before = store.count_scores()
    versions = {s["name"]: s["version"] for s in store.manifest(run.run_id)["scorers"]}
    assert versions["outcome.match"] == "1"
    monkeypatch.setattr(OutcomeMatch, "version", "2")
    result = rescore(store, toy, run.run_id)
    assert (result.generation, result.changed, result.unchanged) == (1, 8, 8 * 12)
    assert result.written == 8 * 13
    assert store.count_scores() == before + 8 * 13
    assert store.current_generation(run.run_id) == 1
    assert {s["name"]: s["version"] for s in store.manifest(run.run_id)["scorers"]}[
        "outcome.match"] == "2"
    latest = store.current_scores(run.run_id)
    assert len(latest) == 8 * 13
    outcome = [r for r in latest if r.scorer == "outcome.match"]
    assert len(outcome) == 8 and {r.scorer_version for r in outcome} == {"2"}
    assert all(r.scorer_version == versions[r.scorer] for r in latest
               if r.scorer != "outcome.match")
    assert {(r.item_id, r.value) for r in outcome} == {
        ("off-L4", 1.0), ("on-L1", 1.0), ("on-L2", 0.0), ("on-L3", 1.0)}
    # the other run is untouched
    assert all(r.scorer_version == versions[r.scorer]
               for r in store.current_scores(other.run_id))
    # idempotent at the new version
    assert rescore(store, toy, run.run_id).written == 0
    assert store.count_scores() == before + 8 * 13


def test_changed_value_is_a_new_generation_that_readers_take(
    store: Store, toy: ToyAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = toy_run(store, toy, "good")
    def half(self: LcsRatio, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(0.5)

    monkeypatch.setattr(LcsRatio, "score", half)
    result = rescore(store, toy, run.run_id)
    assert (result.generation, result.changed) == (1, 4)
    lcs = [r for r in store.current_scores(run.run_id) if r.scorer == "trajectory.lcs"]
    assert [r.value for r in lcs] == [0.5] * 4
    assert summarise(store, run).metric("trajectory.lcs").mean_of_k == 0.5


def test_changed_detail_alone_is_a_new_generation(
    store: Store, toy: ToyAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = toy_run(store, toy, "good")

    def relabelled(self: CostUsd, gold: Gold, trajectory: Trajectory,
                   ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(trajectory.cost.usd, {"reason": "relabelled"})

    monkeypatch.setattr(CostUsd, "score", relabelled)
    assert rescore(store, toy, run.run_id).changed == 4
    cost = [r for r in store.current_scores(run.run_id) if r.scorer == "cost.usd"]
    assert [(r.value, r.detail) for r in cost] == [(0.0, {"reason": "relabelled"})] * 4


def test_report_names_the_version_of_the_scores_it_shows(
    store: Store, toy: ToyAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = toy_run(store, toy, "good")
    monkeypatch.setattr(OutcomeMatch, "version", "2")
    assert rescore(store, toy, run.run_id).changed == 4
    assert {r.scorer_version for r in store.current_scores(run.run_id)
            if r.scorer == "outcome.match"} == {"2"}
    assert summarise(store, run).metric("outcome.match").version == "2"


def test_resume_refuses_a_scorer_set_the_run_was_not_scored_with(
    store: Store, toy: ToyAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_assay.errors import AssayError
    from agent_assay.runner import execute_run
    from tests.support.toyrun import new_toy_run

    run = new_toy_run(store, toy, "good")
    monkeypatch.setattr(OutcomeMatch, "version", "2")
    with pytest.raises(AssayError, match=r"outcome.match 1 -> 2.*agent-assay score"):
        execute_run(store, toy, run, progress=False)
    assert store.count_rows("trajectories") == 0
