"""shuffled_gold: re-score stored trajectories against deranged gold.

Gold is permuted across items so that no item keeps its own (a seeded
derangement, recorded). If a headline metric barely moves, the suite cannot
tell one item's correct behaviour from another's, and the metric measures the
agent's habits rather than its answers. No agent is re-run.

A scorer may declare itself `bound_to_gold` (`BoundToGold` in scoring.base): its value
exists only under the gold the trajectory was produced for (an environment's own reward,
imported with a digest of its task). Under deranged gold it is n/a by design, so it is
reported as bound rather than as failing to drop; a bound metric that still scores under
another item's gold is judged like any other, and a headline made only of bound metrics
fails, having nothing to judge.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_assay.aggregates import improvement, score_means
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.refinements import disagreement_text, disagreements
from agent_assay.hashing import stable_seed
from agent_assay.model import Item
from agent_assay.scoring.base import is_bound_to_gold


def derangement(ids: Sequence[str], seed: int) -> dict[str, str]:
    """Sattolo's algorithm: a single random cycle, so no id maps to itself."""
    order = list(ids)
    rng = random.Random(seed)
    for i in range(len(order) - 1, 0, -1):
        j = rng.randrange(i)
        order[i], order[j] = order[j], order[i]
    return dict(zip(ids, order, strict=True))


class ShuffledGold:
    kind = "shuffled_gold"
    version = "1"
    requires: Requirement | None = None

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        ids = [item.item_id for item in ctx.items]
        if len(ids) < 2:
            return outcome(self, False, "needs at least 2 items to derange", {}, band)
        seed = stable_seed(ctx.seed, "shuffled_gold")
        mapping = derangement(ids, seed)
        gold = ctx.gold_of()
        deranged: dict[str, Item] = {i: replace(gold[i], gold=gold[mapping[i]].gold) for i in ids}
        after = score_means(ctx.headline_scorers(), deranged, ctx.trajectories, ctx.scoring)
        min_drop: Mapping[str, float] = band["min_drop"]
        rows: dict[str, Any] = {}
        failing: list[str] = []
        bound = {s.name for s in ctx.scorers if is_bound_to_gold(s)}
        judged = [m for m in ctx.headline if not (m in bound and after.get(m) is None)]
        for metric in ctx.headline:
            before, shuffled = ctx.real_means.get(metric), after.get(metric)
            need = float(min_drop.get(metric, min_drop["default"]))
            if metric not in judged:
                rows[metric] = {"before": before, "after": None, "bound_to_gold": True}
                continue
            if before is None or shuffled is None:
                rows[metric] = {"before": before, "after": shuffled, "required_drop": need}
                failing.append(metric)
                continue
            drop = improvement(ctx.kind_of(metric), before, shuffled)
            rows[metric] = {
                "before": before,
                "after": shuffled,
                "drop": drop,
                "required_drop": need,
            }
            if drop < need:
                failing.append(metric)
        summary = "deranged gold: " + ", ".join(
            f"{m} {_f(r['before'])} -> {_f(r['after'])}" for m, r in rows.items()
        )
        if failing:
            summary += f"; did not drop enough: {', '.join(failing)}"
        if len(judged) < len(ctx.headline):
            summary += ("; bound to the gold it was produced for, so n/a under any other: "
                        + ", ".join(m for m in ctx.headline if m not in judged))
        if not judged:
            failing.append("(no headline metric can be judged under deranged gold)")
            summary += "; nothing left to judge"
        apart = disagreements(ctx, after)
        summary += disagreement_text(apart)
        measured = {"seed": seed, "metrics": rows, "refinements_disagreeing": apart,
                    "mapping_sample": dict(list(mapping.items())[:5])}
        return outcome(self, not failing, summary, measured, band)


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"
