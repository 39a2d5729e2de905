"""State scorers: judge the world the agent left, not what it said.

Paths are dot-separated keys into the nested snapshot an adapter returns
(``cards.SYN-CARD-0007.status``). An assertion on a mapping covers every leaf
beneath it, which is how gold declares a whole new record as expected.
"""

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay.statepaths import changed_paths, covered, same, value_at


class StateAssertions:
    name = "state.assertions"
    version = "1"
    definition = "share of gold assertions on the final state that hold; n/a without assertions"
    kind: ScoreKind = "fraction"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if not gold.assertions:
            return ScoreValue(None, {"reason": "gold asserts nothing about state"})
        final = trajectory.final_state or {}
        failed = [a.path for a in gold.assertions if not same(value_at(final, a.path), a.equals)]
        held = len(gold.assertions) - len(failed)
        return ScoreValue(held / len(gold.assertions), {"failed": failed} if failed else None)


class StateCollateral:
    name = "state.collateral"
    version = "1"
    definition = "number of changed state leaves that no gold assertion covers (0 is best)"
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if ctx.baseline_state is None or trajectory.final_state is None:
            return ScoreValue(None, {"reason": "no baseline or no final state"})
        asserted = [a.path for a in gold.assertions]
        stray = [
            p
            for p in changed_paths(ctx.baseline_state, trajectory.final_state)
            if not covered(p, asserted)
        ]
        return ScoreValue(float(len(stray)), {"paths": stray[:20]} if stray else None)
