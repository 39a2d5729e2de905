"""Path scorers: does the agent's sequence of tool names match the gold sequence?"""

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence, by a rolling one-row table."""
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b, start=1):
            above = row[j]
            row[j] = diagonal + 1 if x == y else max(row[j], row[j - 1])
            diagonal = above
    return row[-1]


class ExactPath:
    name = "trajectory.exact"
    version = "1"
    definition = "1 if the proposed tool names, in order, equal the gold tool names, else 0"
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(1.0 if ctx.view(trajectory).tools == ctx.view(gold).tools else 0.0)


class LcsRatio:
    name = "trajectory.lcs"
    version = "1"
    definition = "2*LCS(proposed names, gold names) / (len + len); 1.0 when both are empty"
    kind: ScoreKind = "fraction"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        proposed, expected = ctx.view(trajectory).tools, ctx.view(gold).tools
        total = len(proposed) + len(expected)
        if total == 0:
            return ScoreValue(1.0)
        return ScoreValue(2 * lcs_length(proposed, expected) / total)
