"""Governance scorers: govsim's verdict recomputed from gold, and the defects they catch."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.errors import AssayError
from agent_assay.model import Gold, Item, Suite, Trajectory
from agent_assay.runner import resolve_config
from agent_assay.scoring.base import ScoringContext
from agent_assay_bundled.governance import GovernanceAdapter
from agent_assay_bundled.governance_scoring import (
    DefectCount,
    ExcessAttempts,
    ExecutionValid,
    GovernanceReward,
    governance_scorers,
    plant_not_executed,
    plant_redundant_approval,
    plant_skipped_approval,
    world_of,
)
from govsim import AGENTS, validate

REWARD, VALID, EXCESS, DEFECTS = (
    GovernanceReward(),
    ExecutionValid(),
    ExcessAttempts(),
    DefectCount(),
)


@pytest.fixture(scope="module")
def ctx(adapter: GovernanceAdapter) -> ScoringContext:
    return load_system(adapter).scoring_context()


def oracle(adapter: GovernanceAdapter, item: Item) -> Trajectory:
    return adapter.replay_view().replay(item.public(), item.gold.path, seed=0)


def value(scorer: object, gold: Gold, t: Trajectory, ctx: ScoringContext) -> float | None:
    return scorer.score(gold, t, ctx).value  # type: ignore[attr-defined, no-any-return]


def test_every_scorer_is_named_versioned_defined_and_plants() -> None:
    names = [s.name for s in governance_scorers()]
    assert names == [
        "governance.reward",
        "governance.execution_valid",
        "governance.excess_attempts",
        "governance.defects",
    ]
    for scorer in governance_scorers():
        assert scorer.version and scorer.definition and "\n" not in scorer.definition
        assert callable(getattr(scorer, "plant_defect", None))
    assert load_system(GovernanceAdapter()).headline == (
        "governance.reward",
        "governance.execution_valid",
    )


def test_scores_equal_govsims_own_verdict_for_every_agent(
    adapter: GovernanceAdapter, suite: Suite, ctx: ScoringContext
) -> None:
    for name in AGENTS:
        config = resolve_config(adapter, name)
        for item in suite.items[:12]:
            t = adapter.run_item(item.public(), config, seed=0, repetition=1)
            report = validate(world_of(item.gold.truth), t.final_state or {})
            assert (
                value(REWARD, item.gold, t, ctx) == report.reward == t.meta["validator"]["reward"]
            )
            assert value(VALID, item.gold, t, ctx) == float(report.valid)
            assert value(DEFECTS, item.gold, t, ctx) == len(report.defects)
            excess = max(0, report.attempts - report.oracle_cost)
            assert value(EXCESS, item.gold, t, ctx) == excess


def test_redundant_approval_costs_reward_but_not_validity(
    adapter: GovernanceAdapter, suite: Suite, ctx: ScoringContext
) -> None:
    for item in suite.items[:20]:
        base = oracle(adapter, item)
        planted = plant_redundant_approval(item.gold, base, ctx)
        assert planted is not None
        cost = item.gold.truth["oracle"]["cost"]
        assert value(REWARD, item.gold, planted, ctx) == pytest.approx(cost / (cost + 1))
        assert value(VALID, item.gold, planted, ctx) == 1.0
        assert value(EXCESS, item.gold, planted, ctx) == 1.0
        record_steps = [s for s in planted.steps if s.call.tool == "record_authorization"]
        assert len(record_steps) == cost + 1


def test_not_executed_and_skipped_approval_invalidate(
    adapter: GovernanceAdapter, suite: Suite, ctx: ScoringContext
) -> None:
    for item in suite.items[:20]:
        base = oracle(adapter, item)
        unexecuted = plant_not_executed(item.gold, base, ctx)
        assert unexecuted is not None
        assert value(VALID, item.gold, unexecuted, ctx) == 0.0
        assert "execution_missing" in str(VALID.score(item.gold, unexecuted, ctx).detail)
        skipped = plant_skipped_approval(item.gold, base, ctx)
        assert skipped is not None
        detail = str(DEFECTS.score(item.gold, skipped, ctx).detail)
        assert value(DEFECTS, item.gold, skipped, ctx) >= 1  # type: ignore[operator]
        assert "execution_unverified" not in detail, "the receipt is re-signed"
        assert value(REWARD, item.gold, skipped, ctx) == 0.0


def test_another_worlds_gold_gives_zero(
    adapter: GovernanceAdapter, suite: Suite, ctx: ScoringContext
) -> None:
    first, second = suite.items[0], suite.items[1]
    t = oracle(adapter, first)
    assert value(REWARD, first.gold, t, ctx) == 1.0
    assert value(REWARD, second.gold, t, ctx) == 0.0
    assert "malformed_state" in str(VALID.score(second.gold, t, ctx).detail)


def test_no_state_and_strange_states_never_raise(
    adapter: GovernanceAdapter, suite: Suite, ctx: ScoringContext
) -> None:
    item = suite.items[0]
    crashed = Trajectory(item.item_id, 1, crashed=True, error="boom")
    assert value(REWARD, item.gold, crashed, ctx) == 0.0
    assert value(VALID, item.gold, crashed, ctx) == 0.0
    assert value(EXCESS, item.gold, crashed, ctx) is None
    base = oracle(adapter, item)
    assert base.final_state is not None
    for strange in (
        {},
        {**base.final_state, "action": "__planted_defect__"},
        {**base.final_state, "action": {**base.final_state["action"], "payload": "x"}},
        {**base.final_state, "authorizations": [{"authorizer_id": 3}]},
    ):
        t = replace(base, final_state=strange)
        assert value(REWARD, item.gold, t, ctx) == 0.0
        assert value(DEFECTS, item.gold, t, ctx) == 1.0


def test_gold_from_elsewhere_is_a_loud_error(
    adapter: GovernanceAdapter, suite: Suite, ctx: ScoringContext
) -> None:
    item = suite.items[0]
    t = oracle(adapter, item)
    with pytest.raises(AssayError, match="no 'world' coordinates"):
        REWARD.score(Gold(), t, ctx)
    wrong = dict(item.gold.truth)
    wrong["task_id"] = "task_ffffffffffff"
    with pytest.raises(AssayError, match="generator has changed"):
        REWARD.score(replace(item.gold, truth=wrong), t, ctx)
