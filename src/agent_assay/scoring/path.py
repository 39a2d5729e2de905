"""Path scorers: does the agent's sequence of tool names match the gold sequence?"""

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence, by a rolling one-row table over what is
    left once a common prefix and suffix are taken off (each belongs to some longest
    common subsequence, so they count in full): often nothing is."""
    start, end = 0, min(len(a), len(b))
    while start < end and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    common = start + len(a) - end_a
    if start in (end_a, end_b):
        return common
    a, b = a[start:end_a], b[start:end_b]
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b, start=1):
            above = row[j]
            row[j] = diagonal + 1 if x == y else max(row[j], row[j - 1])
            diagonal = above
    return common + row[-1]


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
