"""Every control must PASS on a sound setup and go red on the defect it exists to catch."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from agent_assay.integrity.admissibility import assess
from agent_assay.model import Config, Gold, PublicItem, ToolCall, Trajectory
from agent_assay.scoring.base import ScoreValue, ScoringContext
from agent_assay.scoring.path import ExactPath
from agent_assay.scoring.state import StateAssertions
from agent_assay.store import Store
from tests.support.certify import certify as certify_run
from tests.support.toy import RichToyAdapter, ToyAdapter, ToyWorld


def certify(store: Store, adapter: ToyAdapter, config: str = "good") -> dict[str, Any]:
    return certify_run(store, adapter, config)


def test_sound_setup_is_admissible(store: Store) -> None:
    got = certify(store, RichToyAdapter())
    statuses = {k: o.status for k, o in got["by_kind"].items()}
    assert statuses == {
        "scorer_selftest": "PASSED",
        "shuffled_gold": "PASSED",
        "state_check_bites": "PASSED",
        "null_agent": "PASSED",
        "random_agent": "PASSED",
        "identical_config": "PASSED",
        "positive_control": "PASSED",
        "mutation": "PASSED",
        "headline_agreement": "NOT_RUN",  # no system scorer in the headline: allowed
        "judge_calibration": "NOT_RUN",
    }
    verdict = assess(store, got["run"])
    assert verdict.admissible, verdict.reasons
    assert verdict.exit_code == got["exit"] == 0


def test_scorer_that_always_says_one_fails_selftest_and_shuffled_gold(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def blind(self: ExactPath, gold: Gold, t: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(1.0)

    monkeypatch.setattr(ExactPath, "score", blind)
    got = certify(store, RichToyAdapter())
    selftest = got["by_kind"]["scorer_selftest"]
    assert selftest.status == "FAILED"
    assert "stayed green: trajectory.exact" in selftest.summary
    shuffled = got["by_kind"]["shuffled_gold"]
    assert shuffled.status == "FAILED"
    assert shuffled.measured["metrics"]["trajectory.exact"]["after"] == 1.0
    assert got["exit"] == 3


def test_state_scorer_that_ignores_state_fails_state_check_bites(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def ignores_state(
        self: StateAssertions, gold: Gold, t: Trajectory, ctx: ScoringContext
    ) -> ScoreValue:
        return ScoreValue(1.0 if gold.assertions else None)

    monkeypatch.setattr(StateAssertions, "score", ignores_state)
    got = certify(store, RichToyAdapter())
    bites = got["by_kind"]["state_check_bites"]
    assert bites.status == "FAILED"
    assert bites.measured["flip_detected"] == 0


class NullThatWorks(RichToyAdapter):
    """A 'null' agent that secretly runs the real agent: the twin margin vanishes."""

    def null_agents(self) -> Mapping[str, Any]:
        def copycat(item: PublicItem, config: Config) -> Trajectory:
            return self.run_item(item, config, seed=0, repetition=1)

        return {"copycat": copycat}


def test_null_agent_that_matches_the_real_agent_fails(store: Store) -> None:
    got = certify(store, NullThatWorks())
    null = got["by_kind"]["null_agent"]
    assert null.status == "FAILED"
    copycat = null.measured["agents"]["copycat"]
    assert copycat["tool_calls"] > 0
    assert all(margin == 0.0 for margin in copycat["twin_margin"].values())


def test_nondeterministic_config_fails_identical_config(store: Store) -> None:
    got = certify(store, RichToyAdapter(), config="unseeded")
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "FAILED"
    assert twin.measured["differing_paths"] > 0
    assert twin.measured["differing_sample"]


def test_agent_no_better_than_chance_fails_random_agent(store: Store) -> None:
    got = certify(store, RichToyAdapter(), config="wrong_arg")
    rows = got["by_kind"]["random_agent"].measured["metrics"]
    assert got["by_kind"]["random_agent"].status == "FAILED"
    assert rows["state.assertions"]["margin"] < rows["state.assertions"]["required_margin"]


class BrokenSwitch(ToyWorld):
    def call(self, tool: str, args: Mapping[str, Any]) -> Any:
        return super().call("broken" if tool == "switch_on" else tool, args)


class BrokenEnvironment(RichToyAdapter):
    """switch_on always errors, for the real agent and the oracle alike."""

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        world = BrokenSwitch()
        for call in calls:
            world.call(call.tool, call.args)
        return self._trajectory(item, 1, world, 0.0)


def test_broken_environment_fails_positive_control(store: Store) -> None:
    got = certify(store, BrokenEnvironment())
    positive = got["by_kind"]["positive_control"]
    assert positive.status == "FAILED"
    assert positive.measured["failed_tool_calls"] == 6  # the six switch_on items
    assert "below ceiling" in positive.summary
    assert not assess(store, got["run"]).admissible


class NoAnchor(RichToyAdapter):
    facts = replace(RichToyAdapter.facts, order_anchors={})


def test_a_scorer_that_applies_nowhere_is_idle_not_blind(store: Store) -> None:
    got = certify(store, NoAnchor())
    selftest = got["by_kind"]["scorer_selftest"]
    assert selftest.status == "PASSED"
    assert selftest.measured["scorers"]["tools.order_violations"]["red"] is None
    assert "not applicable on this suite: tools.order_violations" in selftest.summary


class FlaggedLook(ToyWorld):
    """`look` answers, but its step is flagged failed: a call the environment ran and refused."""

    def call(self, tool: str, args: Mapping[str, Any]) -> Any:
        step = super().call(tool, args)
        if tool == "look" and step.ok:
            self.steps[-1] = replace(step, ok=False, error="look is flagged")
        return self.steps[-1]

    def outcome(self) -> str:  # a flagged look still looked
        return super().outcome() if any(s.ok for s in self.steps) else (
            "looked" if self.steps else "nothing")


class FlaggingEnvironment(RichToyAdapter):
    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        world = FlaggedLook()
        for call in calls:
            world.call(call.tool, call.args)
        return self._trajectory(item, 1, world, 0.0)


def test_gold_at_the_ceiling_through_a_failed_call_fails_naming_the_step(store: Store) -> None:
    positive = certify(store, FlaggingEnvironment())["by_kind"]["positive_control"]
    assert positive.status == "FAILED"
    assert "below ceiling" not in positive.summary
    assert positive.measured["failed_tool_calls"] > 0
    assert positive.measured["first_failing_step"].endswith("(look): look is flagged")
    assert "gold or the environment is at fault; first failing step: " in positive.summary
