"""What scoring a run's trajectories needs, set up once (`RunContext`).

The runner, the scoring processes beside agent processes (`executors.scored_pool`),
re-scoring, mutation and the controls all start from one, so it sits below all of them:
it imports the plugin surface, the scorers and the store's record type, and nothing that
runs a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.model import Item, Run, Suite, Trajectory
from agent_assay.scoring.base import ScoreKind, Scorer, ScoringContext
from agent_assay.scoring.registry import score_all
from agent_assay.store import ScoreRecord, Store
from agent_assay.store.encoding import ScoreSet

SystemLike = object
"""A loaded system, or any object implementing the plugin surface (checked on use by
`load_system`, so a script can hand its own system object to any of these functions)."""


@dataclass(frozen=True)
class RunContext:
    """What scoring a run's trajectories needs, set up once: the system prepared for the
    stored suite, its items by id, the scorer set, the scoring context, each scorer's kind.
    The runner, re-scoring, mutation and the controls all start from one."""

    system: LoadedSystem
    suite: Suite
    items: Mapping[str, Item]
    scorers: tuple[Scorer, ...]
    scoring: ScoringContext

    @property
    def kinds(self) -> dict[str, ScoreKind]:
        return {s.name: s.kind for s in self.scorers}

    def score(self, trajectory: Trajectory) -> list[ScoreRecord]:
        return score_records(self.scorers, self.items[trajectory.item_id], trajectory, self.scoring)

    def score_set(self, trajectory: Trajectory) -> ScoreSet:
        """The same scores as `score`, as a `ScoreSet`: the writer packs them without
        making a record per score (one is made only for whoever reads them as records)."""
        item = self.items[trajectory.item_id]
        return ScoreSet(trajectory.item_id, trajectory.repetition, [
            (scorer.name, scorer.version, result.imported, result.value, result.detail)
            for scorer, result in score_all(self.scorers, item.gold, trajectory, self.scoring)
        ])


def run_context(store: Store, system: SystemLike, run: Run) -> RunContext:
    return suite_context(system, store.get_suite(run.suite_hash))


def suite_context(system: SystemLike, suite: Suite) -> RunContext:
    """The scoring context of `suite` (with its gold): the system prepared for it, its
    scorers. Where there is no store at hand, a scoring process say."""
    loaded = load_system(system)
    loaded.prepare(suite)
    return RunContext(loaded, suite, suite.by_id(), loaded.scorers(), loaded.scoring_context())


def score_records(
    scorers: Sequence[Scorer], item: Item, trajectory: Trajectory, ctx: ScoringContext
) -> list[ScoreRecord]:
    return [
        ScoreRecord(
            item_id=trajectory.item_id,
            repetition=trajectory.repetition,
            scorer=scorer.name,
            scorer_version=scorer.version,
            value=result.value,
            detail=result.detail,
            imported=result.imported,
        )
        for scorer, result in score_all(scorers, item.gold, trajectory, ctx)
    ]
