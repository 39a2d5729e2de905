"""Resource scorers: time and money, reported as measures and never passed or failed."""

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext


class LatencyTotal:
    name = "latency.total_ms"
    version = "1"
    definition = "wall-clock milliseconds the adapter spent producing the trajectory"
    kind: ScoreKind = "measure"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(trajectory.latency_ms)


class CostUsd:
    name = "cost.usd"
    version = "1"
    definition = "US dollars spent on the trajectory, with the reason when it is zero"
    kind: ScoreKind = "measure"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(trajectory.cost.usd, {"reason": trajectory.cost.reason})
