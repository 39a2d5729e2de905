"""scorer_selftest: every scorer must go red on the defect it exists to catch.

For each scorer, take items where the oracle trajectory scores well, plant the
scorer's defect, and require the score to get worse on every probed item. A
scorer that stays green on a planted defect is blind, and every number it
produced is suspect.

Two cases are not blindness and are reported as such:
* a scorer that is n/a on every oracle item (say, an order check when the
  adapter declares no order anchor) is "not applicable on this suite";
* a scorer whose domain is chosen by the trajectory (precision counts only the
  items an agent allowed) can declare ``selftest_probe_na = True``: it is then
  probed on items where the oracle leaves it n/a, and goes red when the planted
  defect brings it into scope with a failing value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.aggregates import direction
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.oracle import planting_base
from agent_assay.controls.planted import Planter, planter_for
from agent_assay.model import Item, Trajectory
from agent_assay.scoring.base import Scorer, ScoringContext, passes, probes_where_not_applicable


def probe(
    scorer: Scorer,
    planter: Planter,
    items: list[Item],
    oracles: Mapping[str, Trajectory],
    ctx: ScoringContext,
    limit: int,
) -> dict[str, Any]:
    """Plant the scorer's defect on up to `limit` items and count how often it went red."""
    sign = direction(scorer.kind) or -1  # measures: more time or money is worse
    probe_na = probes_where_not_applicable(scorer)
    tried = red = 0
    applicable = False
    for item in items:
        if tried >= limit:
            break
        base = oracles[item.item_id]
        before = scorer.score(item.gold, base, ctx).value
        applicable |= before is not None
        in_scope = before is not None and (scorer.kind == "measure" or passes(scorer.kind, before))
        if not in_scope and not (probe_na and before is None):
            continue
        planted = planter(item.gold, base, ctx)
        if planted is None:
            continue
        after = scorer.score(item.gold, planted, ctx).value
        tried += 1
        if before is None:
            red += after is not None and passes(scorer.kind, after) is False
        else:
            red += after is not None and (before - after) * sign > 0
    if tried == 0 and not applicable and not probe_na:
        return {"red": None, "why": "not applicable on this suite: n/a on every oracle item"}
    result: dict[str, Any] = {"red": tried > 0 and red == tried, "probed": tried, "went_red": red}
    if tried == 0:
        result["why"] = "no item where the oracle scores well and the defect plants"
    return result


class ScorerSelfTest:
    kind = "scorer_selftest"
    version = "2"
    requires: Requirement | None = "replay or recording"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        limit = int(band["probe_items"])
        items = list(ctx.items)
        oracles = {item.item_id: planting_base(ctx, item) for item in items}
        per_scorer: dict[str, dict[str, Any]] = {}
        for scorer in ctx.scorers:
            planter = planter_for(scorer)
            if planter is None:
                per_scorer[scorer.name] = {"red": False, "why": "no planted defect declared"}
            else:
                per_scorer[scorer.name] = probe(scorer, planter, items, oracles, ctx.scoring, limit)
        green = sorted(name for name, r in per_scorer.items() if r["red"] is False)
        idle = sorted(name for name, r in per_scorer.items() if r["red"] is None)
        tested = len(per_scorer) - len(idle)
        summary = f"{tested - len(green)} of {tested} scorers went red on a planted defect"
        if idle:
            summary += f"; not applicable on this suite: {', '.join(idle)}"
        if green:
            summary += f"; stayed green: {', '.join(green)}"
        return outcome(self, not green, summary, {"scorers": per_scorer}, band)
