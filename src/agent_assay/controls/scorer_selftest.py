"""scorer_selftest: every scorer must go red on the defect it exists to catch.

For each scorer, take items where the oracle trajectory scores well, plant the
scorer's defect, and require the score to get worse on every probed item. A
scorer that stays green on a planted defect is blind, and every number it
produced is suspect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.controls.base import ControlContext, ControlOutcome, outcome
from agent_assay.controls.measure import direction
from agent_assay.controls.oracle import oracle_trajectory
from agent_assay.controls.planted import planter_for
from agent_assay.scoring.base import passes


class ScorerSelfTest:
    kind = "scorer_selftest"
    version = "1"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        probes = int(band["probe_items"])
        oracles = {item.item_id: oracle_trajectory(ctx, item) for item in ctx.items}
        per_scorer: dict[str, dict[str, Any]] = {}
        for scorer in ctx.scorers:
            planter = planter_for(scorer)
            if planter is None:
                per_scorer[scorer.name] = {"red": False, "why": "no planted defect declared"}
                continue
            # measures have no good direction for passing, but more time or money is worse
            sign = direction(scorer.kind) or -1
            tried = red = 0
            for item in ctx.items:
                if tried >= probes:
                    break
                base = oracles[item.item_id]
                before = scorer.score(item.gold, base, ctx.scoring).value
                if before is None or (scorer.kind != "measure" and not passes(scorer.kind, before)):
                    continue
                planted = planter(item.gold, base, ctx.scoring)
                if planted is None:
                    continue
                after = scorer.score(item.gold, planted, ctx.scoring).value
                tried += 1
                red += after is not None and (before - after) * sign > 0
            per_scorer[scorer.name] = {
                "red": tried > 0 and red == tried,
                "probed": tried,
                "went_red": red,
                **(
                    {"why": "no item where the oracle scores well and the defect plants"}
                    if tried == 0
                    else {}
                ),
            }
        green = sorted(name for name, r in per_scorer.items() if not r["red"])
        total = len(per_scorer)
        summary = f"{total - len(green)} of {total} scorers went red on a planted defect"
        if green:
            summary += f"; stayed green: {', '.join(green)}"
        return outcome(self, not green, summary, {"scorers": per_scorer}, band)
