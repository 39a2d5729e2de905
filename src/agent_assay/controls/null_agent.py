"""null_agent: the real agent must beat an agent that does nothing.

Every null agent the adapter declares is run over the certified run's items.
It must make no tool calls (or it is not a null agent), and the real run must
clear it by the band's margin on every headline metric. A suite on which doing
nothing scores well is measuring the suite, not the agent. How many items each
null agent passes, per metric, is stored with the outcome: the report sets it
beside the real agent's pass^k without running anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.aggregates import improvement, means, score_table
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.refinements import disagreement_text, disagreements
from agent_assay.scoring.base import passes


def pass_counts(
    ctx: ControlContext, table: Mapping[str, Mapping[str, list[float]]]
) -> dict[str, list[int]]:
    """metric -> [items that pass, items with a value], for every metric that passes or
    fails: what the report sets beside the real agent's pass^k, read from the store."""
    counts: dict[str, list[int]] = {}
    for scorer in ctx.scorers:
        if scorer.kind == "measure" or scorer.name not in table:
            continue
        verdicts = [passes(scorer.kind, v[0]) for v in table[scorer.name].values() if v]
        decided = [v for v in verdicts if v is not None]
        counts[scorer.name] = [sum(decided), len(decided)]
    return counts


class NullAgentControl:
    kind = "null_agent"
    version = "1"
    requires: Requirement | None = "null agents"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        agents = ctx.adapter.null_agents()  # names here; each runs in an agent process
        min_margin = float(band["min_margin"])
        measured: dict[str, Any] = {}
        problems: list[str] = []
        for name in sorted(agents):
            trajectories = ctx.environment().null_runs(
                name, [item.public() for item in ctx.items], ctx.config)
            calls = sum(len(t.calls) for t in trajectories)  # turn boundaries are not calls
            table = score_table(ctx.scorers, ctx.gold_of(), trajectories, ctx.scoring)
            null_means = means(table)
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
            apart = disagreements(ctx, null_means)
            measured[name] = {
                "refinements_disagreeing": apart,
                "tool_calls": calls,
                "trajectories": len(trajectories),
                "scores": {m: null_means.get(m) for m in ctx.headline},
                "twin_margin": margins,
                "passes": pass_counts(ctx, table),
            }
        parts = []
        for name, m in measured.items():
            scores = ", ".join(f"{k} {v!r}" for k, v in m["scores"].items())
            margin = min((v for v in m["twin_margin"].values() if v is not None), default=None)
            parts.append(
                f"{name}: {m['tool_calls']} tool calls; {scores}; smallest twin margin {margin!r}"
                + disagreement_text(m["refinements_disagreeing"])
            )
        summary = " | ".join(parts)
        return outcome(self, not problems, summary, {"agents": measured}, band, "; ".join(problems))
