"""What an agent process is asked to do, and how it does it.

Three kinds of job reach an agent process, and every one of them reaches it the same
way (see `hosting.host`): run the system's agent on one public item (`Task`), replay a
path of calls through the system's environment (`Replay`: gold, a random agent, a
mutant, doing nothing), or run one of the system's own do-nothing agents (`NullRun`).
A job carries a public item, never gold, and nothing that names the control or the run
it belongs to.

This module imports no store and no scorer: an agent process loads it before any agent
code runs, and the less it loads, the sooner that process is ready.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from time import perf_counter

from agent_assay.adapters.loaded import NO_REPLAY, LoadedSystem
from agent_assay.errors import HARNESS_FAILURES, AgentUnreachable, AssayError, described
from agent_assay.llm.configs import is_model_config
from agent_assay.model import (
    AGENT_CRASH,
    CRASH_CAUSE,
    HARNESS_CRASH,
    JSON,
    UNREACHABLE,
    Config,
    Cost,
    CrashCause,
    PublicItem,
    ToolCall,
    Trajectory,
)


@dataclass(frozen=True, slots=True)
class Task:
    """Run the system's agent (or the harness's model agent) on one item's slot."""

    item: PublicItem
    config: Config
    seed: int
    repetition: int


@dataclass(frozen=True, slots=True)
class Replay:
    """Execute `calls`, in order, from the environment's baseline world."""

    item: PublicItem
    calls: tuple[ToolCall, ...]
    seed: int


@dataclass(frozen=True, slots=True)
class NullRun:
    """One of the system's own do-nothing agents (by name) on one item."""

    agent: str
    item: PublicItem
    config: Config


Job = Task | Replay | NullRun


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

    The crash is the agent's unless the adapter said otherwise by raising one of
    HARNESS_FAILURES (an agent that could not be reached is also marked as such in meta),
    so `run` and every figure can tell a failed measurement from a measured failure."""
    started = perf_counter()
    try:
        trajectory = act(system, task)
    except Exception as exc:
        harness = isinstance(exc, HARNESS_FAILURES)
        return crashed(
            task, started, described(exc),
            {UNREACHABLE: True} if isinstance(exc, AgentUnreachable) else {},
            HARNESS_CRASH if harness else AGENT_CRASH,
        )
    breach = contract_breach(task, trajectory)
    return trajectory if breach is None else crashed(task, started, breach, {})


def perform(system: LoadedSystem, job: Job) -> Trajectory:
    """Carry out one job in this process; an agent's failure is a crashed trajectory, an
    environment that raises during a replay raises (the control that asked says so)."""
    if isinstance(job, Task):
        return run_task(system, job)
    if isinstance(job, Replay):
        view = system.replay_view()
        if view is None:
            raise AssayError(f"adapter {system.name}: {NO_REPLAY}")
        replayed: Trajectory = view.replay(job.item, list(job.calls), seed=job.seed)
        return replayed
    agents = system.null_agents()
    if job.agent not in agents:
        raise AssayError(f"adapter {system.name} has no null agent named {job.agent!r}")
    return agents[job.agent](job.item, job.config)


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


def crashed(
    task: Task, started: float, error: str, meta: dict[str, JSON],
    cause: CrashCause = AGENT_CRASH,
) -> Trajectory:
    """The crashed trajectory of `task`'s slot, timed from `started` (a perf_counter), with
    whose failure it is recorded in its meta."""
    return Trajectory(
        item_id=task.item.item_id,
        repetition=task.repetition,
        latency_ms=(perf_counter() - started) * 1000.0,
        cost=Cost(0.0, "agent crashed before reporting cost"),
        crashed=True,
        error=error,
        meta={**meta, CRASH_CAUSE: cause},
    )


def attributed(trajectory: Trajectory) -> Trajectory:
    """`trajectory` as the writer stores it: a crash records one of the two causes (a value
    it does not know is the agent's), and a trajectory that did not crash records none.

    The cause comes from the agent process, which the agent's author controls: declaring
    a crash the harness's there is no more than an adapter may do by raising one of
    HARNESS_FAILURES. Such a crash leaves every figure, so it is counted in every view,
    `run` exits 1 on it, and a run with any crash is not admissible."""
    cause = trajectory.crash_cause
    if trajectory.meta.get(CRASH_CAUSE) == cause:
        return trajectory
    meta = {key: value for key, value in trajectory.meta.items() if key != CRASH_CAUSE}
    if cause is not None:
        meta[CRASH_CAUSE] = cause
    return replace(trajectory, meta=meta)
