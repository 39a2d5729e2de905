"""null_agent: the real agent must beat an agent that does nothing.

Every null agent the adapter declares is run over the certified run's items.
It must make no tool calls (or it is not a null agent), and the real run must
clear it by the band's margin on every headline metric. A suite on which doing
nothing scores well is measuring the suite, not the agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.aggregates import improvement, score_means
from agent_assay.controls.base import ControlContext, ControlOutcome, outcome


class NullAgentControl:
    kind = "null_agent"
    version = "1"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        agents = ctx.adapter.null_agents()
        if not agents:
            return outcome(self, False, "the adapter declares no null agent", {}, band)
        min_margin = float(band["min_margin"])
        measured: dict[str, Any] = {}
        problems: list[str] = []
        for name, agent in sorted(agents.items()):
            trajectories = [agent(item.public(), ctx.config) for item in ctx.items]
            calls = sum(len(t.steps) for t in trajectories)
            null_means = score_means(ctx.scorers, ctx.gold_of(), trajectories, ctx.scoring)
            margins: dict[str, float | None] = {}
            for metric in ctx.headline:
                real, null = ctx.real_means.get(metric), null_means.get(metric)
                margins[metric] = (
                    None
                    if real is None or null is None
                    else improvement(ctx.kind_of(metric), real, null)
                )
                if margins[metric] is None or margins[metric] < min_margin:  # type: ignore[operator]
                    problems.append(f"{name}: margin on {metric} is {margins[metric]}")
            if calls:
                problems.append(f"{name} made {calls} tool calls; a null agent must make none")
            measured[name] = {
                "tool_calls": calls,
                "trajectories": len(trajectories),
                "scores": {m: null_means.get(m) for m in ctx.headline},
                "twin_margin": margins,
            }
        parts = []
        for name, m in measured.items():
            scores = ", ".join(f"{k} {v!r}" for k, v in m["scores"].items())
            margin = min((v for v in m["twin_margin"].values() if v is not None), default=None)
            parts.append(
                f"{name}: {m['tool_calls']} tool calls; {scores}; smallest twin margin {margin!r}"
            )
        summary = " | ".join(parts)
        return outcome(self, not problems, summary, {"agents": measured}, band, "; ".join(problems))
