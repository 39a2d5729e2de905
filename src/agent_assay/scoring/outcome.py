"""Outcome scorer: did the case end the way gold says it should?"""

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext


class OutcomeMatch:
    name = "outcome.match"
    version = "1"
    definition = "1 if the trajectory's outcome equals the gold outcome, else 0"
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if gold.outcome is None:
            return ScoreValue(None, {"reason": "gold states no outcome"})
        return ScoreValue(1.0 if trajectory.outcome == gold.outcome else 0.0)
