"""The defect each generic scorer exists to catch, planted into a trajectory.

Each planter takes a trajectory the scorer scores well and returns a copy with
exactly that defect, or None when the defect cannot be planted on this item
(for example, no state assertion to flip). A scorer from an adapter can bring
its own planter as a ``plant_defect(gold, trajectory, ctx)`` method.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from agent_assay.model import Cost, Gold, Step, ToolCall, Trajectory, is_turn_boundary
from agent_assay.scoring.base import PlantsDefects, Scorer, ScoringContext

Planter = Callable[[Gold, Trajectory, ScoringContext], Trajectory | None]
PLANTED = "__planted_defect__"


def _copied(state: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a final state, which is JSON data: a pickle round trip makes the same
    copy as `copy.deepcopy` in a fraction of the time (a bank is thousands of objects)."""
    copied: dict[str, Any] = pickle.loads(pickle.dumps(dict(state), pickle.HIGHEST_PROTOCOL))
    return copied


def _drop_last_call(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    return replace(t, steps=t.steps[:-1]) if t.steps else None


def _wrong_outcome(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    return replace(t, outcome=PLANTED)


def _flip_asserted_field(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    if not gold.assertions or t.final_state is None:
        return None
    state = _copied(t.final_state)
    node = state
    *parents, leaf = gold.assertions[0].path.split(".")
    for key in parents:
        node = node.setdefault(key, {})
    node[leaf] = PLANTED
    return replace(t, final_state=state)


def _unasserted_change(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    if t.final_state is None:
        return None
    state = _copied(t.final_state)
    state[PLANTED] = {"changed": True}
    return replace(t, final_state=state)


def _corrupt_first_argument(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    gold_tools = {c.tool for c in gold.path}
    for index, step in enumerate(t.steps):
        if step.call.tool in gold_tools and step.call.args:
            name = sorted(step.call.args)[0]
            call = ToolCall(step.call.tool, {**step.call.args, name: PLANTED})
            steps = list(t.steps)
            steps[index] = replace(step, call=call)
            return replace(t, steps=tuple(steps))
    return None


def _add_foreign_tool(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    extra = Step(ToolCall(PLANTED, {}), ok=False, error="planted")
    return replace(t, steps=(*t.steps, extra))


def _duplicate_first_call(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    """The first call made twice (a turn boundary is no call: a turn that opens a
    conversation without one is passed over)."""
    for index, step in enumerate(t.steps):
        if not is_turn_boundary(step):
            return replace(t, steps=(*t.steps[:index], step, *t.steps[index:]))
    return None


def _mutate_before_anchor(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    anchored = sorted(tool for tool in ctx.mutating_tools if ctx.anchor_of(tool) is not None)
    if not anchored:
        return None
    planted = Step(ToolCall(anchored[0], {}), ok=False, error="planted")
    return replace(t, steps=(planted, *t.steps))


def _slow(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    return replace(t, latency_ms=t.latency_ms + 1_000_000.0)


def _billed(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    return replace(t, cost=Cost(t.cost.usd + 1.0, "planted charge"))


GENERIC_PLANTERS: Mapping[str, Planter] = {
    "trajectory.exact": _drop_last_call,
    "trajectory.lcs": _drop_last_call,
    "outcome.match": _wrong_outcome,
    "state.assertions": _flip_asserted_field,
    "state.collateral": _unasserted_change,
    "args.match": _corrupt_first_argument,
    "tools.recall": _corrupt_first_argument,
    "tools.wrong": _add_foreign_tool,
    "tools.missing": _drop_last_call,
    "tools.redundant": _duplicate_first_call,
    "tools.order_violations": _mutate_before_anchor,
    "latency.total_ms": _slow,
    "cost.usd": _billed,
}


def planter_for(scorer: Scorer) -> Planter | None:
    """The scorer's own planter (see scoring.base.PlantsDefects), else the generic one."""
    if isinstance(scorer, PlantsDefects):
        return scorer.plant_defect
    return GENERIC_PLANTERS.get(scorer.name)
