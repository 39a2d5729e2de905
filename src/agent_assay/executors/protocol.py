"""What an executor is, for the runner that drives one and the executors that are one.

An executor turns tasks (`hosting.jobs.Task`) into trajectories and never writes: the
runner stays the single writer. It hands them over in arrivals, either plain trajectories
for the writer to score or rows scored and prepared already (`scored_pool`). A `Backend`
makes executors; `processes` and `dask_cluster` are the two there are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent_assay.model import JSON, PublicSuite, Suite, Trajectory
from agent_assay.store.encoding import PreparedTrajectory

if TYPE_CHECKING:
    from agent_assay.adapters.loaded import LoadedSystem
    from agent_assay.hosting.jobs import Task

Arrival = Sequence[Trajectory] | Sequence[PreparedTrajectory]
"""Trajectories an executor hands the writer together (they finished together): for the
writer to score, or scored and prepared already (see `scored_pool`), which the writer
appends in one transaction."""


class Executor(Protocol):
    def run(self, tasks: Iterable[Task]) -> Iterator[Arrival]:
        """Yield every task's trajectory, in any order, in arrivals as they finish."""
        ...


@dataclass(frozen=True, slots=True)
class ScoringJob:
    """What scoring a run's trajectories outside the writer needs: the gold suite and the
    run they are written to (its id keys the state bases). Only scoring processes, which
    never run an agent, are handed one."""

    suite: Suite
    run_id: str


class ExecutorLost(Exception):
    """What ran the agents went away mid-run (a worker process that died, a scheduler that
    was lost). Nothing in flight was stored, so resuming the run runs those slots again."""


class Backend(Protocol):
    """Where executors come from. It is opened before a run is created, so a scheduler that
    cannot be reached is refused before anything is written, and closed after the run."""

    @property
    def recorded(self) -> Mapping[str, JSON]:
        """What a run's terminal event records of where its agents ran."""
        ...

    def executor(
        self, adapter: LoadedSystem, suite: PublicSuite, scoring: ScoringJob | None = None
    ) -> Executor:
        """An executor for the suite's public items; given `scoring`, one that may also
        score (the writer scores whatever comes back as a plain trajectory)."""
        ...
