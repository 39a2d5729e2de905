"""positive_control: gold replayed through the agent's own path must reach the ceiling.

The oracle uses exactly the tool interface, environment and scorers a real
agent's trajectory goes through. If it does not score perfectly, the
environment, the adapter or a scorer is broken, and no agent's number from
this setup is admissible, however good it looks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.aggregates import direction, score_means
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.oracle import oracle_trajectories


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
        if short:
            summary += f"; below ceiling: {', '.join(short)}"
        return outcome(self, not short, summary, measured, band)
