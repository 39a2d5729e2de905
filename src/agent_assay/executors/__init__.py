"""Where agents run: in this process, in fresh worker processes, or on a Dask cluster.

An executor turns tasks into trajectories and never writes: the runner stays
the single writer, so an executor is added by implementing `Executor` (and a
`Backend` that makes it) without touching scorers or the store. The process
pool also scores, in processes that never run an agent (`scored_pool`); any
executor may instead hand back plain trajectories for the writer to score.

Worker processes are spawned, never forked: each starts a new interpreter, rebuilds
the system from its recipe and receives the suite's public items only, so nothing
the parent holds (gold, a cache an agent filled during an earlier run) reaches them.
A fresh process can also be given its own hash seed (identical_config's twins).
The Dask executor (`dask_cluster`) keeps the same rules; it is imported only when
asked for, so the default path never loads dask.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from time import perf_counter
from typing import Protocol

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.recipe import Recipe, rebuild, recipe_of
from agent_assay.errors import AgentUnreachable, AssayError, described
from agent_assay.llm.configs import is_model_config
from agent_assay.model import JSON, Config, Cost, PublicItem, PublicSuite, Suite, Trajectory
from agent_assay.store.prepared import PreparedTrajectory


@dataclass(frozen=True, slots=True)
class Task:
    item: PublicItem
    config: Config
    seed: int
    repetition: int


def act(system: LoadedSystem, task: Task) -> Trajectory:
    """Who acts on an item: the harness's model agent for a model config (driven through
    the system's episodes), else the system's own agent."""
    if is_model_config(task.config.params):
        from agent_assay.llm.drive import model_episode  # imports the OpenAI client

        return model_episode(
            system, task.item, task.config, seed=task.seed, repetition=task.repetition
        )
    return system.run_item(task.item, task.config, seed=task.seed, repetition=task.repetition)


def run_task(system: LoadedSystem, task: Task) -> Trajectory:
    """Run one item; an agent that raises yields a crashed trajectory, not a crashed run.

    A crash because the agent could not be reached (AgentUnreachable) is marked in meta, so
    `run` can tell a failed measurement from a measured failure."""
    started = perf_counter()
    try:
        trajectory = act(system, task)
    except Exception as exc:
        return crashed(
            task, started, described(exc),
            {"agent_unreachable": True} if isinstance(exc, AgentUnreachable) else {},
        )
    breach = contract_breach(task, trajectory)
    return trajectory if breach is None else crashed(task, started, breach, {})


def contract_breach(task: Task, trajectory: object) -> str | None:
    """What is wrong with what run_item returned for `task`, or None. A trajectory for
    another item or repetition would be stored in the wrong slot (or collide with one
    already stored), so it is recorded as a crash of the asked slot instead."""
    if not isinstance(trajectory, Trajectory):
        return f"adapter contract: run_item returned {type(trajectory).__name__}, not a Trajectory"
    asked = (task.item.item_id, task.repetition)
    got = (trajectory.item_id, trajectory.repetition)
    if got != asked:
        return (
            f"adapter contract: asked for item {asked[0]} repetition {asked[1]}, run_item "
            f"returned item {got[0]} repetition {got[1]}"
        )
    return None


def crashed(task: Task, started: float, error: str, meta: dict[str, JSON]) -> Trajectory:
    """The crashed trajectory of `task`'s slot, timed from `started` (a perf_counter)."""
    return Trajectory(
        item_id=task.item.item_id,
        repetition=task.repetition,
        latency_ms=(perf_counter() - started) * 1000.0,
        cost=Cost(0.0, "agent crashed before reporting cost"),
        crashed=True,
        error=error,
        meta=meta,
    )


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


GROUP_MAX = 16
"""The most trajectories the sequential executor hands over together (one commit)."""
GROUP_WAIT_S = 0.05
"""How long a finished trajectory may wait for others to share its commit, as foreseen
from the slowest of the last GROUP_MAX tasks."""


class SequentialExecutor:
    """Runs each task in this process and hands trajectories over in groups, so the writer
    commits several at once (group commit). A group closes at GROUP_MAX, or before a
    task that, if it takes as long as the slowest of the last few, would keep the group's
    first trajectory waiting past GROUP_WAIT_S: a slow agent's trajectories are written
    one by one as they finish, and so are those of an agent that is only sometimes slow
    (a model behind a cache, say, whose finished work is worth not losing); a fast
    agent's share a commit. A task that is interrupted (Ctrl-C) first hands over what
    finished before it, so that is stored."""

    def __init__(self, adapter: LoadedSystem) -> None:
        self.adapter = adapter

    def run(self, tasks: Iterable[Task]) -> Iterator[Arrival]:
        group: list[Trajectory] = []
        took: deque[float] = deque(maxlen=GROUP_MAX)
        first_done = 0.0
        for task in tasks:
            started = perf_counter()
            if group and (len(group) >= GROUP_MAX
                          or started - first_done + max(took) > GROUP_WAIT_S):
                yield group
                group = []
                started = perf_counter()
            try:
                trajectory = run_task(self.adapter, task)
            except BaseException:
                if group:
                    yield group
                raise
            done = perf_counter()
            took.append(done - started)
            if not group:
                first_done = done
            group.append(trajectory)
        if group:
            yield group


_worker_adapter: LoadedSystem | None = None
_worker_failure: str | None = None


def worker_system(recipe: Recipe, suite: PublicSuite) -> LoadedSystem:
    """The system built afresh from its recipe and prepared for the public suite, as a
    worker runs it; a failure is one line, raised to the parent by the worker's task."""
    try:
        system = rebuild(recipe)
        system.prepare(suite)
    except Exception as exc:
        why = str(exc) if isinstance(exc, AssayError) else f"{type(exc).__name__}: {exc}"
        raise AssayError(f"a worker process could not start the system: {why}") from exc
    return system


def init_worker(recipe: Recipe, suite: PublicSuite) -> None:
    """Build the system; a failure is kept and raised by the first task, so the parent
    gets one line instead of a broken pool."""
    global _worker_adapter, _worker_failure
    try:
        _worker_adapter = worker_system(recipe, suite)
    except AssayError as exc:
        _worker_failure = str(exc)


def run_in_worker(task: Task) -> Trajectory:
    if _worker_failure is not None or _worker_adapter is None:
        raise AssayError(str(_worker_failure))
    return run_task(_worker_adapter, task)


@contextmanager
def hash_seed(seed: int | None) -> Iterator[None]:
    """PYTHONHASHSEED for the processes started inside the block (None: leave it as is)."""
    if seed is None:
        yield
        return
    before = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = str(seed)
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONHASHSEED"]
        else:
            os.environ["PYTHONHASHSEED"] = before


class ProcessPoolExecutorBackend:
    """Run items in `workers` spawned processes, each rebuilding the system from its recipe."""

    def __init__(
        self, recipe: Recipe, workers: int, suite: PublicSuite, hash_seed: int | None = None
    ) -> None:
        self.recipe = recipe
        self.workers = workers
        self.suite = suite
        self.hash_seed = hash_seed

    def run(self, tasks: Iterable[Task]) -> Iterator[Arrival]:
        try:
            yield from self._run(iter(tasks))
        except BrokenProcessPool as exc:
            raise ExecutorLost("a worker process died (killed, or out of memory)") from exc

    def _run(self, pending_tasks: Iterator[Task]) -> Iterator[Arrival]:
        with hash_seed(self.hash_seed), ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=init_worker,
            initargs=(self.recipe, self.suite),
        ) as pool:
            in_flight: set[Future[Trajectory]] = set()
            for task in pending_tasks:  # keep a bounded window so memory stays flat
                in_flight.add(pool.submit(run_in_worker, task))
                if len(in_flight) >= self.workers * 4:
                    done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    yield [f.result() for f in done]
            for future in in_flight:
                yield [future.result()]


EXECUTOR_NAMES = ("process", "dask")


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
        if self.scheduler is not None and self.name != "dask":
            raise AssayError("--scheduler needs --executor dask")


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
    """This process for one worker, else `workers` spawned processes; with `hash_seed`,
    always spawned processes started with that PYTHONHASHSEED."""

    workers: int = 1
    hash_seed: int | None = None

    @property
    def recorded(self) -> Mapping[str, JSON]:
        """Nothing: processes run on the writer's host, which the session's events name."""
        return {}

    def executor(
        self, adapter: LoadedSystem, suite: PublicSuite, scoring: ScoringJob | None = None
    ) -> Executor:
        """In this process, unless several workers or a fresh hash seed are asked for (then
        every item runs in a spawned process, and given `scoring` and several workers,
        every trajectory is scored in spawned processes of their own)."""
        if self.workers <= 1 and self.hash_seed is None:
            return SequentialExecutor(adapter)
        workers = max(self.workers, 1)
        if scoring is not None and workers > 1:  # one agent process: scoring keeps up
            from agent_assay.executors.scored_pool import ScoredPool  # it imports this module

            return ScoredPool(recipe_of(adapter), workers, suite, scoring, self.hash_seed)
        return ProcessPoolExecutorBackend(recipe_of(adapter), workers, suite, self.hash_seed)


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
