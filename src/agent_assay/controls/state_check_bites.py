"""state_check_bites: the state scorers must notice a wrong world.

On items whose gold asserts something, the oracle's final state is altered two
ways: one asserted field flipped (state.assertions must drop) and one
unasserted field changed (state.collateral must rise). A state scorer that
ignores state fails here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.oracle import oracle_trajectories
from agent_assay.controls.planted import planter_for
from agent_assay.scoring.base import Scorer


class StateCheckBites:
    kind = "state_check_bites"
    version = "1"
    requires: Requirement | None = "replay"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        by_name: dict[str, Scorer] = {s.name: s for s in ctx.scorers}
        missing = [n for n in ("state.assertions", "state.collateral") if n not in by_name]
        if missing:
            return outcome(self, False, f"scorer set lacks {', '.join(missing)}", {}, band)
        assertions, collateral = by_name["state.assertions"], by_name["state.collateral"]
        items = [i for i in ctx.items if i.gold.assertions][: int(band["probe_items"])]
        if not items:
            return outcome(self, False, "no item asserts anything about state", {}, band)
        flip = planter_for(assertions)
        stray = planter_for(collateral)
        assert flip is not None and stray is not None
        sums = {"assert_before": 0.0, "assert_after": 0.0, "coll_before": 0.0, "coll_after": 0.0}
        bit_flip = bit_stray = 0
        for item, base in zip(items, oracle_trajectories(ctx, items), strict=True):
            flipped, changed = (
                flip(item.gold, base, ctx.scoring),
                stray(item.gold, base, ctx.scoring),
            )
            a0 = assertions.score(item.gold, base, ctx.scoring).value or 0.0
            a1 = assertions.score(item.gold, flipped, ctx.scoring).value if flipped else None
            c0 = collateral.score(item.gold, base, ctx.scoring).value or 0.0
            c1 = collateral.score(item.gold, changed, ctx.scoring).value if changed else None
            sums["assert_before"] += a0
            sums["assert_after"] += a1 or 0.0
            sums["coll_before"] += c0
            sums["coll_after"] += c1 or 0.0
            bit_flip += a1 is not None and a1 < a0
            bit_stray += c1 is not None and c1 > c0
        n = len(items)
        measured = {k: v / n for k, v in sums.items()} | {
            "items": n,
            "flip_detected": bit_flip,
            "stray_detected": bit_stray,
        }
        summary = (
            f"flipping one asserted field: state.assertions {measured['assert_before']:.4f} -> "
            f"{measured['assert_after']:.4f} ({bit_flip}/{n} items); an unasserted change: "
            f"state.collateral {measured['coll_before']:.4f} -> {measured['coll_after']:.4f} "
            f"({bit_stray}/{n} items)"
        )
        return outcome(self, bit_flip == n and bit_stray == n, summary, measured, band)
