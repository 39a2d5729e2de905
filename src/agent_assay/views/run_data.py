"""A loaded snapshot of one run: everything a renderer reads, read from the store once.

`views.load` builds a `RunData` after the integrity check (the verdict is part of it) and
hands it to the renderers; no renderer opens, queries or wraps a store, and none calls
`assess`. A snapshot holds what its caller asked `load_run_data` for: the figures (status,
manifest, score columns, path digests) unless the run is TAMPERED, and on request the
suite, the trajectories, the current score rows, the control outcomes, the mutation
pass and the run's history (events, config, retried slots, crash causes). Reading a part
that was not loaded is a programming error (`NotLoaded`), never a silent store read.

This module imports no store and no integrity check: the types it names are for the
type checker only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_assay.model import Config, CrashCause, Run, Suite, Trajectory

if TYPE_CHECKING:
    from agent_assay.aggregates import Clustering, RunStatus
    from agent_assay.importers import TrajectoryFault
    from agent_assay.integrity.admissibility import Admissibility, SinglePass
    from agent_assay.store import RetriedSlot, RunEvent, ScoreRecord, StoredOutcome
    from agent_assay.store.encoding import ScoreColumns

class NotLoaded(LookupError):
    """A renderer read a part of the snapshot its loader was not asked for."""


def _loaded[T](value: T | None, part: str) -> T:
    if value is None:
        raise NotLoaded(f"RunData was loaded without its {part}")
    return value


@dataclass(frozen=True)
class RunData:
    """One run as the renderers see it (see the module's docstring)."""

    run: Run
    verdict_: Admissibility | None = None
    """None when loaded without a verdict (figures for a test or a tool)."""
    single_: SinglePass | None = None
    """Whether a k=1 headline may stand; None with no verdict, or a tampered one."""
    cluster: str | None = None
    """How items are clustered for the clustered interval (None: not asked)."""
    clustering: Clustering | None = None
    status_: RunStatus | None = None
    manifest_: Mapping[str, Any] | None = None
    columns_: ScoreColumns | None = None
    paths_: Mapping[tuple[str, int], str] | None = None
    """Each stored slot's path digest (consistency is made of these)."""
    suite_: Suite | None = None
    trajectories_: tuple[Trajectory, ...] | None = None
    """The newest attempt at every stored slot, in the store's order."""
    scores_: tuple[ScoreRecord, ...] | None = None
    """The current score rows, in the store's order."""
    outcomes_: Mapping[str, StoredOutcome] | None = None
    mutation_: tuple[Mapping[str, Any], ...] | None = None
    """The newest stored mutation pass: operator rows, then its summary (empty: none)."""
    faults_: tuple[TrajectoryFault, ...] | None = None
    """The trajectory faults importers declare (`views.faults`), in declaration order."""
    events_: tuple[RunEvent, ...] | None = None
    config_: Config | None = None
    retried_: Mapping[tuple[str, int], RetriedSlot] | None = None
    crash_causes_: Mapping[tuple[str, int], CrashCause] | None = None

    @property
    def verdict(self) -> Admissibility:
        return _loaded(self.verdict_, "verdict")

    @property
    def tampered(self) -> bool:
        return self.verdict_ is not None and self.verdict_.tampered

    @property
    def single(self) -> SinglePass:
        return _loaded(self.single_, "single-pass judgement")

    @property
    def status(self) -> RunStatus:
        return _loaded(self.status_, "status")

    @property
    def manifest(self) -> Mapping[str, Any]:
        return _loaded(self.manifest_, "manifest")

    @property
    def columns(self) -> ScoreColumns:
        return _loaded(self.columns_, "score columns")

    @property
    def paths(self) -> Mapping[tuple[str, int], str]:
        return _loaded(self.paths_, "path digests")

    @property
    def suite(self) -> Suite:
        return _loaded(self.suite_, "suite")

    @property
    def trajectories(self) -> tuple[Trajectory, ...]:
        return _loaded(self.trajectories_, "trajectories")

    @property
    def scores(self) -> tuple[ScoreRecord, ...]:
        return _loaded(self.scores_, "score rows")

    @property
    def outcomes(self) -> Mapping[str, StoredOutcome]:
        return _loaded(self.outcomes_, "control outcomes")

    @property
    def mutation(self) -> Sequence[Mapping[str, Any]]:
        return _loaded(self.mutation_, "mutation pass")

    @property
    def faults(self) -> tuple[TrajectoryFault, ...]:
        return _loaded(self.faults_, "declared trajectory faults")

    @property
    def events(self) -> tuple[RunEvent, ...]:
        return _loaded(self.events_, "events")

    @property
    def config(self) -> Config:
        return _loaded(self.config_, "config")

    @property
    def retried(self) -> Mapping[tuple[str, int], RetriedSlot]:
        return _loaded(self.retried_, "retried slots")

    @property
    def crash_causes(self) -> Mapping[tuple[str, int], CrashCause]:
        return _loaded(self.crash_causes_, "crash causes")

    def item_tags(self) -> dict[str, tuple[str, ...]]:
        """Each of the run's items and its tags, from the stored suite, in the run's order."""
        by_id = self.suite.by_id()
        return {item_id: by_id[item_id].tags for item_id in self.run.item_ids}
