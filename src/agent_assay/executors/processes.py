"""Agents in agent processes on this host, and the backend an `ExecutorSpec` asks for.

On this host an agent never runs in the writer's process: every run, resume and
twin starts agent processes through `hosting.pool`, the one way there is, so nothing
an agent can observe tells a run from a control's execution of it. With several
workers the process backend also scores, in processes that never run an agent
(`scored_pool`). The Dask executor (`dask_cluster`) keeps the same rules; it is
imported only when asked for, so the default path never loads dask (an optional
dependency, not a cycle: it imports nothing from here).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.recipe import Recipe, recipe_of
from agent_assay.errors import AssayError
from agent_assay.executors.protocol import Arrival, Backend, Executor, ExecutorLost, ScoringJob
from agent_assay.executors.scored_pool import ScoredPool
from agent_assay.executors.spec import ExecutorSpec
from agent_assay.hosting.jobs import Task
from agent_assay.hosting.pool import AgentProcesses, ProcessesLost
from agent_assay.model import JSON, PublicSuite


class HostedExecutor:
    """Runs tasks in `workers` agent processes (`hosting.pool`) and hands trajectories over
    as they arrive together, so the writer commits what finished together at once."""

    def __init__(self, recipe: Recipe, workers: int, suite: PublicSuite) -> None:
        self.recipe, self.workers, self.suite = recipe, workers, suite

    def run(self, tasks: Iterable[Task]) -> Iterator[Arrival]:
        try:
            with AgentProcesses(self.recipe, self.suite, self.workers) as processes:
                yield from processes.run(tasks)
        except ProcessesLost as exc:
            raise ExecutorLost(str(exc)) from exc


@dataclass(frozen=True, slots=True)
class Processes:
    """`workers` agent processes on this host, started the one way (`hosting.pool`)."""

    workers: int = 1

    @property
    def recorded(self) -> Mapping[str, JSON]:
        """Nothing: processes run on the writer's host, which the session's events name."""
        return {}

    def executor(
        self, adapter: LoadedSystem, suite: PublicSuite, scoring: ScoringJob | None = None
    ) -> Executor:
        """Agent processes; given `scoring` and several workers, trajectories are also
        scored in spawned processes of their own, the writer scoring only what they cannot
        take in time (one agent process: the writer keeps up)."""
        workers = max(self.workers, 1)
        if scoring is not None and workers > 1:
            return ScoredPool(recipe_of(adapter), workers, suite, scoring)
        return HostedExecutor(recipe_of(adapter), workers, suite)


SEQUENTIAL = Processes()


@contextmanager
def open_backend(spec: ExecutorSpec) -> Iterator[Backend]:
    """The backend `spec` asks for, open for the block; dask is imported only here."""
    if spec.name == "process":
        yield Processes(spec.workers)
        return
    try:
        from agent_assay.executors.dask_cluster import dask_backend  # optional: dask
    except ImportError as exc:
        raise AssayError(
            f"--executor dask needs dask.distributed ({exc}): pip install 'agent-assay[dask]'"
        ) from exc
    with dask_backend(spec) as backend:
        yield backend
