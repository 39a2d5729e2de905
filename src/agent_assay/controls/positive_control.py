"""positive_control: gold replayed through the agent's own path must reach the ceiling,
every call of it succeeding.

The oracle uses exactly the tool interface, environment and scorers a real
agent's trajectory goes through. If it does not score perfectly, the
environment, the adapter or a scorer is broken, and no agent's number from
this setup is admissible, however good it looks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.aggregates import direction, score_means
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.oracle import oracle_trajectories
from agent_assay.hashing import canonical_json
from agent_assay.model import Trajectory


class PositiveControl:
    kind = "positive_control"
    version = "1"
    requires: Requirement | None = "replay"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        trajectories = oracle_trajectories(ctx, ctx.items)
        got = score_means(ctx.scorers, ctx.gold_of(), trajectories, ctx.scoring)
        failed_steps = sum(not s.ok for t in trajectories for s in t.steps)
        short: list[str] = []
        for metric in ctx.headline:
            ceiling = 1.0 if direction(ctx.kind_of(metric)) > 0 else 0.0
            value = got.get(metric)
            if value is None or value != ceiling:
                short.append(f"{metric}={value!r} (ceiling {ceiling})")
        measured = {
            "scores": {m: got.get(m) for m in ctx.headline},
            "failed_tool_calls": failed_steps,
            "items": len(trajectories),
        }
        summary = "oracle replay: " + ", ".join(f"{m} {got.get(m)!r}" for m in ctx.headline)
        summary += f"; {failed_steps} failed tool calls"
        cause = first_failing_step(trajectories)
        measured["first_failing_step"] = cause
        if short:
            summary += f"; below ceiling: {', '.join(short)}"
            summary += (
                "; no agent ran, so the environment, the adapter or a scorer is at fault"
                + (f"; first failing step: {cause}" if cause else
                   "; every step of gold's path succeeded, so what scores it did not credit it")
            )
            below = first_below_ceiling(ctx, trajectories)
            if below:
                measured["first_below_ceiling"] = below
                summary += f"; first item below ceiling: {below}"
        elif cause:
            # the ceiling reached through a call the environment failed: gold and the
            # environment disagree about that call, and one of them is wrong
            summary += ("; gold reached the ceiling through a call the environment failed, so "
                        f"gold or the environment is at fault; first failing step: {cause}")
        return outcome(self, not short and cause is None, summary, measured, band)


def first_failing_step(trajectories: Sequence[Trajectory]) -> str | None:
    """The first failed call of gold's replayed path, in item order, with the reason the
    environment gave: what an environment's author needs to fix first."""
    for trajectory in sorted(trajectories, key=lambda t: t.item_id):
        if trajectory.crashed:
            return f"item {trajectory.item_id}: the episode crashed: {trajectory.error}"
        for number, step in enumerate(trajectory.steps, 1):
            if not step.ok:
                return (f"item {trajectory.item_id}, step {number} ({step.call.tool}): "
                        f"{step.error or 'failed'}")
    return None


def first_below_ceiling(ctx: ControlContext, trajectories: Sequence[Trajectory]) -> str | None:
    """The first item, in item order, whose gold replay a headline scorer does not score at
    its ceiling, with what that scorer said: the item and the reason to read first."""
    gold = ctx.gold_of()
    by_name = {s.name: s for s in ctx.scorers}
    for trajectory in sorted(trajectories, key=lambda t: t.item_id):
        item = gold.get(trajectory.item_id)
        if item is None:
            continue
        for metric in ctx.headline:
            scorer = by_name.get(metric)
            if scorer is None:
                continue
            value = scorer.score(item.gold, trajectory, ctx.scoring)
            ceiling = 1.0 if direction(scorer.kind) > 0 else 0.0
            if value.value is not None and value.value != ceiling:
                detail = f" ({canonical_json(dict(value.detail))})" if value.detail else ""
                return f"item {trajectory.item_id}: {metric} {value.value!r}{detail}"
    return None
