"""scorer_selftest: every scorer must go red on the defect it exists to catch.

For each scorer, take items where the oracle trajectory scores well, plant the
scorer's defect, and require the score to get worse on every probed item. A
scorer that stays green on a planted defect is blind, and every number it
produced is suspect. Items are drawn from every tag (up to `probe_items` per
tag, in a seeded order), and the result is kept per tag, so a scorer that is
blind on one kind of item cannot hide behind the items that sort first.

Two cases are not blindness and are reported as such:
* a scorer that is n/a on every oracle item (say, an order check when the
  adapter declares no order anchor) is "not applicable on this suite";
* a scorer whose domain is chosen by the trajectory (precision counts only the
  items an agent allowed) can declare ``selftest_probe_na = True``: it is then
  probed on items where the oracle leaves it n/a, and goes red when the planted
  defect brings it into scope with a failing value.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.aggregates import direction
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.oracle import planting_bases
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
    applicable = False
    tried: list[str] = []  # the items probed
    red: list[str] = []  # those the scorer went red on
    for item in items:
        if len(tried) >= limit:
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
        tried.append(item.item_id)
        if before is None:
            went = after is not None and passes(scorer.kind, after) is False
        else:
            went = after is not None and (before - after) * sign > 0
        if went:
            red.append(item.item_id)
    if not tried and not applicable and not probe_na:
        return {"red": None, "why": "not applicable on this suite: n/a on every oracle item"}
    result: dict[str, Any] = {
        "red": bool(tried) and len(red) == len(tried),
        "probed": len(tried),
        "went_red": len(red),
        "tried": tried,
        "red_on": red,
    }
    if not tried:
        result["why"] = "no item where the oracle scores well and the defect plants"
    return result


UNTAGGED = "(untagged)"


def strata(items: Sequence[Item], seed: int) -> dict[str, list[Item]]:
    """Items by tag (an item with several tags stands in each), each list in a seeded order."""
    by_tag: dict[str, list[Item]] = {}
    for item in sorted(items, key=lambda i: i.item_id):
        for tag in item.tags or (UNTAGGED,):
            by_tag.setdefault(tag, []).append(item)
    for tag, members in by_tag.items():
        random.Random(f"{seed}/{tag}").shuffle(members)
    return dict(sorted(by_tag.items()))


def probe_by_tag(
    scorer: Scorer,
    planter: Planter,
    by_tag: Mapping[str, list[Item]],
    oracles: Mapping[str, Trajectory],
    ctx: ScoringContext,
    limit: int,
) -> dict[str, Any]:
    """`probe` within each tag; red only when every tag with a probe went red."""
    tags = {tag: probe(scorer, planter, members, oracles, ctx, limit)
            for tag, members in by_tag.items()}
    probed = {tag: r for tag, r in tags.items() if r.get("probed")}
    if not probed:
        first = dict(next(iter(tags.values()), {"red": None, "why": "no items"}))
        first.pop("tried", None)
        first.pop("red_on", None)
        return first
    green_tags = sorted(tag for tag, r in probed.items() if not r["red"])
    result: dict[str, Any] = {
        "red": not green_tags,
        # distinct items: an item with several tags is probed under each
        "probed": len({i for r in probed.values() for i in r["tried"]}),
        "went_red": len({i for r in probed.values() for i in r["red_on"]}),
        "by_tag": {tag: {"probed": r["probed"], "went_red": r["went_red"]}
                   for tag, r in probed.items()},
    }
    if green_tags:
        result["green_on"] = green_tags
    return result


class ScorerSelfTest:
    kind = "scorer_selftest"
    version = "3"
    requires: Requirement | None = "replay or recording"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        limit = int(band["probe_items"])
        items = list(ctx.items)
        by_tag = strata(items, ctx.seed)
        oracles = {item.item_id: base
                   for item, base in zip(items, planting_bases(ctx, items), strict=True)}
        per_scorer: dict[str, dict[str, Any]] = {}
        for scorer in ctx.scorers:
            planter = planter_for(scorer)
            if planter is None:
                per_scorer[scorer.name] = {"red": False, "why": "no planted defect declared"}
            else:
                per_scorer[scorer.name] = probe_by_tag(
                    scorer, planter, by_tag, oracles, ctx.scoring, limit
                )
        green = sorted(name for name, r in per_scorer.items() if r["red"] is False)
        idle = sorted(name for name, r in per_scorer.items() if r["red"] is None)
        tested = len(per_scorer) - len(idle)
        summary = f"{tested - len(green)} of {tested} scorers went red on a planted defect"
        if idle:
            summary += f"; not applicable on this suite: {', '.join(idle)}"
        unprobed = [name for name in green if per_scorer[name].get("probed") == 0]
        stayed = [name for name in green if name not in unprobed]
        if stayed:
            where = [
                f"{name} (on {', '.join(per_scorer[name]['green_on'])})"
                if per_scorer[name].get("green_on") else name
                for name in stayed
            ]
            summary += f"; stayed green: {', '.join(where)}"
        if unprobed:
            summary += ("; never probed, no item where the oracle scores well for the defect "
                        f"to lower: {', '.join(unprobed)}")
        summary += f"; probed across {len(by_tag)} tag(s), up to {limit} items each"
        measured = {"scorers": per_scorer, "tags": sorted(by_tag)}
        return outcome(self, not green, summary, measured, band)
