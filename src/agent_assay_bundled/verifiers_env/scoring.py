"""The environment's own rubric reward, stored as an imported score.

The reward is the environment's verdict on the rollout it ran, not something the harness
computes, so it is stored with `imported` set and only under the gold it was produced
for: the rollout records the digest of its task's hidden part, and judged against any
other item's gold (the shuffled-gold control) the reward does not apply and scores n/a.
The rubric's metrics travel in the score's detail.
"""

from __future__ import annotations

from dataclasses import replace

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext

REWARD = "env.reward"
TASK_DIGEST = "task_sha256"
RUBRIC = "rubric"


class EnvironmentReward:
    name = REWARD
    version = "1"
    definition = ("the verifiers environment's rubric reward for the rollout (imported: "
                  "computed by the environment; n/a under gold other than the rollout's)")
    kind: ScoreKind = "fraction"
    bound_to_gold = True
    """n/a under any gold but the rollout's own (see shuffled_gold)."""

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        state = trajectory.meta.get(RUBRIC) or {}
        reward = state.get("reward")
        produced_for = trajectory.meta.get(TASK_DIGEST)
        if reward is None or produced_for is None or produced_for != gold.truth.get(TASK_DIGEST):
            return ScoreValue(None, {"reason": "no reward for this gold"})
        detail = {"metrics": dict(state.get("metrics") or {}), "stop": state.get("stop")}
        return ScoreValue(float(reward), detail, imported=True)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        """The same rollout with its reward gone, as a rubric that crashed would leave it."""
        state = dict(t.meta.get(RUBRIC) or {})
        if not state.get("reward"):
            return None
        state["reward"] = 0.0
        return replace(t, meta={**t.meta, RUBRIC: state})
