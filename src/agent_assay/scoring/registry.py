"""The default scorer set and the one function that applies a set to a trajectory."""

from collections.abc import Sequence

from agent_assay.errors import AssayError
from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import Scorer, ScoreValue, ScoringContext
from agent_assay.scoring.outcome import OutcomeMatch
from agent_assay.scoring.path import ExactPath, LcsRatio
from agent_assay.scoring.resources import CostUsd, LatencyTotal
from agent_assay.scoring.state import StateAssertions, StateCollateral
from agent_assay.scoring.tools import (
    ArgsMatch,
    MissingTools,
    OrderViolations,
    RedundantTools,
    ToolRecall,
    WrongTools,
)


def default_scorers(gold_paths: bool = True) -> tuple[Scorer, ...]:
    """Every generic scorer, in report order; without the ones that read gold's tool path
    when gold carries none (`gold_paths` False: a target answer is all an item holds)."""
    every = (
        ExactPath(),
        LcsRatio(),
        OutcomeMatch(),
        StateAssertions(),
        StateCollateral(),
        ArgsMatch(),
        ToolRecall(),
        WrongTools(),
        MissingTools(),
        RedundantTools(),
        OrderViolations(),
        LatencyTotal(),
        CostUsd(),
    )
    return every if gold_paths else tuple(s for s in every if s.name not in PATH_SCORERS)


PATH_SCORERS = frozenset({
    "trajectory.exact", "trajectory.lcs", "args.match", "tools.recall", "tools.wrong",
    "tools.missing", "tools.redundant", "tools.order_violations",
})
"""The generic scorers that hold a trajectory's calls against gold's: against a gold with
no calls they would score every tool call wrong and doing nothing perfect."""


def score_all(
    scorers: Sequence[Scorer], gold: Gold, trajectory: Trajectory, ctx: ScoringContext
) -> list[tuple[Scorer, ScoreValue]]:
    """Apply every scorer; a scorer that raises is a named, one-line error."""
    results: list[tuple[Scorer, ScoreValue]] = []
    with ctx.memoised():  # the scorers share each call's normalised form
        for scorer in scorers:
            try:
                results.append((scorer, scorer.score(gold, trajectory, ctx)))
            except Exception as exc:  # a scorer bug must name the scorer and the item
                raise AssayError(
                    f"scorer {scorer.name} v{scorer.version} raised on item "
                    f"{trajectory.item_id} repetition {trajectory.repetition}: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
    return results
