"""Where agents run: in this process, or in fresh worker processes.

An executor only turns tasks into trajectories; it never scores and never
writes. The runner stays the single writer, so a distributed executor can be
added later by implementing `Executor` without touching scorers or the store.

Worker processes are spawned, never forked: each starts a new interpreter, rebuilds
the system from its recipe and receives the suite's public items only, so nothing
the parent holds (gold, a cache an agent filled during an earlier run) reaches them.
A fresh process can also be given its own hash seed (identical_config's twins).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from time import perf_counter
from typing import Protocol

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.recipe import Recipe, rebuild, recipe_of
from agent_assay.errors import AgentUnreachable, AssayError, described
from agent_assay.llm.configs import is_model_config
from agent_assay.model import JSON, Config, Cost, PublicItem, PublicSuite, Trajectory


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
        return _crashed(
            task, started, described(exc),
            {"agent_unreachable": True} if isinstance(exc, AgentUnreachable) else {},
        )
    breach = contract_breach(task, trajectory)
    return trajectory if breach is None else _crashed(task, started, breach, {})


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


def _crashed(task: Task, started: float, error: str, meta: dict[str, JSON]) -> Trajectory:
    return Trajectory(
        item_id=task.item.item_id,
        repetition=task.repetition,
        latency_ms=(perf_counter() - started) * 1000.0,
        cost=Cost(0.0, "agent crashed before reporting cost"),
        crashed=True,
        error=error,
        meta=meta,
    )


class Executor(Protocol):
    def run(self, tasks: Iterable[Task]) -> Iterator[Trajectory]:
        """Yield one trajectory per task, in any order."""
        ...


class SequentialExecutor:
    def __init__(self, adapter: LoadedSystem) -> None:
        self.adapter = adapter

    def run(self, tasks: Iterable[Task]) -> Iterator[Trajectory]:
        for task in tasks:
            yield run_task(self.adapter, task)


_worker_adapter: LoadedSystem | None = None
_worker_failure: str | None = None


def _init_worker(recipe: Recipe, suite: PublicSuite) -> None:
    """Build the system afresh; a failure is kept and raised by the first task, so the
    parent gets one line instead of a broken pool."""
    global _worker_adapter, _worker_failure
    try:
        _worker_adapter = rebuild(recipe)
        _worker_adapter.prepare(suite)
    except Exception as exc:
        why = str(exc) if isinstance(exc, AssayError) else f"{type(exc).__name__}: {exc}"
        _worker_failure = why


def _run_in_worker(task: Task) -> Trajectory:
    if _worker_failure is not None or _worker_adapter is None:
        raise AssayError(f"a worker process could not start the system: {_worker_failure}")
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

    def run(self, tasks: Iterable[Task]) -> Iterator[Trajectory]:
        pending_tasks = iter(tasks)
        with hash_seed(self.hash_seed), ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(self.recipe, self.suite),
        ) as pool:
            in_flight: set[Future[Trajectory]] = set()
            for task in pending_tasks:  # keep a bounded window so memory stays flat
                in_flight.add(pool.submit(_run_in_worker, task))
                if len(in_flight) >= self.workers * 4:
                    done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    yield from (f.result() for f in done)
            for future in in_flight:
                yield future.result()


def make_executor(
    adapter: LoadedSystem, workers: int, suite: PublicSuite, *, fresh_hash_seed: int | None = None
) -> Executor:
    """In this process, unless several workers are asked for or a fresh process with its
    own hash seed is (then every item runs in a spawned process)."""
    if workers <= 1 and fresh_hash_seed is None:
        return SequentialExecutor(adapter)
    return ProcessPoolExecutorBackend(recipe_of(adapter), max(workers, 1), suite, fresh_hash_seed)
