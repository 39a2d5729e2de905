"""Where agents run: in this process, or in a pool of worker processes.

An executor only turns tasks into trajectories; it never scores and never
writes. The runner stays the single writer, so a distributed executor can be
added later by implementing `Executor` without touching scorers or the store.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from time import perf_counter
from typing import Protocol

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.registry import load_adapter
from agent_assay.errors import AgentUnreachable
from agent_assay.llm.configs import is_model_config
from agent_assay.model import Config, Cost, PublicItem, Suite, Trajectory


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
        return act(system, task)
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" at {frame.filename}:{frame.lineno}" if frame else ""
        return Trajectory(
            item_id=task.item.item_id,
            repetition=task.repetition,
            latency_ms=(perf_counter() - started) * 1000.0,
            cost=Cost(0.0, "agent crashed before reporting cost"),
            crashed=True,
            error=f"{type(exc).__name__}: {exc}{where}",
            meta={"agent_unreachable": True} if isinstance(exc, AgentUnreachable) else {},
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


def _init_worker(adapter_name: str, suite: Suite) -> None:
    global _worker_adapter
    _worker_adapter = load_adapter(adapter_name)
    _worker_adapter.prepare(suite)


def _run_in_worker(task: Task) -> Trajectory:
    assert _worker_adapter is not None, "worker initialiser did not run"
    return run_task(_worker_adapter, task)


class ProcessPoolExecutorBackend:
    """Run items in `workers` processes; each loads the adapter by its registered name."""

    def __init__(self, adapter_name: str, workers: int, suite: Suite) -> None:
        self.adapter_name = adapter_name
        self.workers = workers
        self.suite = suite

    def run(self, tasks: Iterable[Task]) -> Iterator[Trajectory]:
        pending_tasks = iter(tasks)
        with ProcessPoolExecutor(
            max_workers=self.workers,
            initializer=_init_worker,
            initargs=(self.adapter_name, self.suite),
        ) as pool:
            in_flight: set[Future[Trajectory]] = set()
            for task in pending_tasks:  # keep a bounded window so memory stays flat
                in_flight.add(pool.submit(_run_in_worker, task))
                if len(in_flight) >= self.workers * 4:
                    done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    yield from (f.result() for f in done)
            for future in in_flight:
                yield future.result()


def make_executor(adapter: LoadedSystem, workers: int, suite: Suite) -> Executor:
    if workers <= 1:
        return SequentialExecutor(adapter)
    return ProcessPoolExecutorBackend(adapter.name, workers, suite)
