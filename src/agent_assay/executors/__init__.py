"""Where agents run: in agent processes on this host, or on a Dask cluster.

An executor turns tasks into trajectories and never writes: the runner stays
the single writer, so an executor is added by implementing `Executor` (and a
`Backend` that makes it) without touching scorers or the store. With several
workers the process backend also scores, in processes that never run an agent
(`scored_pool`); any executor may instead hand back plain trajectories for the
writer to score.

On this host an agent never runs in the writer's process: every run, resume and
twin starts agent processes through `hosting.pool`, the one way there is, so nothing
an agent can observe tells a run from a control's execution of it. The Dask executor
(`dask_cluster`) keeps the same rules; it is imported only when asked for, so the
default path never loads dask.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.recipe import Recipe, recipe_of
from agent_assay.errors import AssayError
from agent_assay.hosting.jobs import Task, act, run_task
from agent_assay.hosting.pool import AgentProcesses, ProcessesLost
from agent_assay.model import JSON, PublicSuite, Suite, Trajectory
from agent_assay.store.encoding import PreparedTrajectory

__all__ = ["Task", "act", "run_task"]  # where agents are run; kept here for callers


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


EXECUTOR_NAMES = ("process", "dask")
MAX_WORKERS = 256
"""The most agent processes (or local Dask workers) a run starts. Every trajectory is
stored by one writer, which keeps up with about a thousand a second (see
`dask_cluster.batch_size`): 256 agents of even a quarter of a second each already
saturate it, while each process costs an interpreter's memory and the writer two pipe
descriptors, under the usual limit of 1,024 open files. A number past it is a typo or
an attack on the host, refused before anything is started or stored."""
SCHEDULER_SCHEMES = ("tcp", "tls")
"""The Dask scheduler addresses `--scheduler` takes: SCHEME://HOST:PORT."""


def scheduler_address(address: str) -> tuple[str, int]:
    """The host and port of a Dask scheduler address, or a one-line refusal: anything but
    tcp://HOST:PORT (or tls://) would leave the Dask client retrying for its whole
    timeout before failing."""
    parts = urlsplit(address)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in SCHEDULER_SCHEMES or not parts.hostname or port is None \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise AssayError(f"--scheduler {address!r} is not a Dask scheduler address "
                         "(tcp://HOST:PORT)")
    return parts.hostname, port


@dataclass(frozen=True, slots=True)
class ExecutorSpec:
    """Where agents run, as asked for: `process` runs them in this process (one worker) or
    in `workers` spawned processes; `dask` on a Dask cluster, the scheduler at `scheduler`,
    else a local cluster of `workers` processes started for the occasion."""

    name: str = "process"
    workers: int = 1
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.name not in EXECUTOR_NAMES:
            known = ", ".join(EXECUTOR_NAMES)
            raise AssayError(f"unknown executor {self.name!r} (known: {known})")
        if self.workers < 1:
            raise AssayError(f"--workers must be at least 1, got {self.workers}")
        if self.workers > MAX_WORKERS:
            raise AssayError(f"--workers {self.workers} is more than {MAX_WORKERS}, the most "
                             "agent processes one writer can use")
        if self.scheduler is not None and self.name != "dask":
            raise AssayError("--scheduler needs --executor dask")
        if self.scheduler is not None:
            scheduler_address(self.scheduler)


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
        """Agent processes; given `scoring` and several workers, every trajectory is also
        scored in spawned processes of its own (one agent process: the writer keeps up)."""
        workers = max(self.workers, 1)
        if scoring is not None and workers > 1:
            from agent_assay.executors.scored_pool import ScoredPool  # it imports this module

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
        from agent_assay.executors.dask_cluster import dask_backend
    except ImportError as exc:
        raise AssayError(
            f"--executor dask needs dask.distributed ({exc}): pip install 'agent-assay[dask]'"
        ) from exc
    with dask_backend(spec) as backend:
        yield backend
