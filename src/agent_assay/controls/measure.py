"""Scoring helpers shared by controls: score trajectories, average per metric, compare.

Direction matters: for counts lower is better, so "worse" means a rise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from agent_assay.model import Item, Trajectory
from agent_assay.scoring.base import ScoreKind, Scorer, ScoringContext
from agent_assay.scoring.registry import score_all


def direction(kind: ScoreKind) -> int:
    """+1 when higher is better, -1 when lower is better, 0 for measures."""
    return {"binary": 1, "fraction": 1, "count": -1, "measure": 0}[kind]


def improvement(kind: ScoreKind, reference: float, candidate: float) -> float:
    """How much better `reference` is than `candidate`, in the metric's good direction."""
    return (reference - candidate) * direction(kind)


def score_table(
    scorers: Sequence[Scorer],
    gold_by_item: Mapping[str, Item],
    trajectories: Sequence[Trajectory],
    ctx: ScoringContext,
) -> dict[str, dict[str, list[float]]]:
    """metric -> item -> values (None values dropped)."""
    table: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for trajectory in trajectories:
        gold = gold_by_item[trajectory.item_id].gold
        for scorer, result in score_all(scorers, gold, trajectory, ctx):
            if result.value is not None:
                table[scorer.name][trajectory.item_id].append(result.value)
    return table


def means(table: Mapping[str, Mapping[str, list[float]]]) -> dict[str, float | None]:
    """Per metric, the mean over items of each item's mean."""
    out: dict[str, float | None] = {}
    for metric, by_item in table.items():
        item_means = [sum(v) / len(v) for v in by_item.values() if v]
        out[metric] = sum(item_means) / len(item_means) if item_means else None
    return out


def score_means(
    scorers: Sequence[Scorer],
    gold_by_item: Mapping[str, Item],
    trajectories: Sequence[Trajectory],
    ctx: ScoringContext,
) -> dict[str, float | None]:
    return means(score_table(scorers, gold_by_item, trajectories, ctx))


def single_score(
    scorer: Scorer, item: Item, trajectory: Trajectory, ctx: ScoringContext
) -> float | None:
    return scorer.score(item.gold, trajectory, ctx).value
