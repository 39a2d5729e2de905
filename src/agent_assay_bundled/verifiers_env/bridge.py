"""What an environment knows that the verifiers framework has no name for: its oracle plan.

verifiers has no standard way for an environment to say how its tasks are solved, yet the
positive control and the mutation pass need exactly that: the calls a perfect agent
makes, to drive through the rollout path. A *bridge* supplies them. An environment module
may define `agent_assay_bridge()` returning one; otherwise a bridge registered for the
environment's id under the `agent_assay.verifiers_bridges` entry-point group is used
(this package registers one for valid-action). Without a bridge an environment still
runs, but gold has no path and the controls that replay it say so.

A bridge may also expose the environment's offline path (its core functions called
directly, as its authors' own scripts do), which is what the side-by-side comparison
with the framework path reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from agent_assay.errors import AssayError
from agent_assay_bundled.verifiers_env.rollout import Task
from agent_assay_bundled.verifiers_env.scripted import Call

GROUP = "agent_assay.verifiers_bridges"
MODULE_HOOK = "agent_assay_bridge"


@runtime_checkable
class Bridge(Protocol):
    ceiling: float
    """The reward the oracle plan earns on every task (the positive control's target)."""

    def oracle_plan(self, task: Task) -> Sequence[Call]:
        """The calls that solve `task`, with the tool names the framework offers."""
        ...

    def tags(self, task: Task) -> tuple[str, ...]:
        """Tags for the task's item (a family, a difficulty)."""
        ...


@dataclass(frozen=True)
class OfflineCall:
    """One call of a plan run offline: whether the tool existed and returned, and what."""

    ok: bool
    result: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class OfflineResult:
    """What the environment's core functions give a plan, with the framework out of it:
    the reward its scoring computes, each call's outcome in plan order, and metrics."""

    reward: float
    calls: tuple[OfflineCall, ...]
    metrics: Mapping[str, float] = field(default_factory=dict)


@runtime_checkable
class OfflinePath(Protocol):
    def offline_reward(self, task: Task, plan: Sequence[Call]) -> OfflineResult:
        """`plan` run through the environment's core functions on `task`'s world, one
        outcome per call."""
        ...


@runtime_checkable
class ArgumentPools(Protocol):
    def argument_pools(self, tasks: Sequence[Task]) -> Mapping[str, Sequence[Any]]:
        """argument name -> values valid somewhere in `tasks`, for random and mutated
        calls (the generic fallback draws from each parameter's JSON type)."""
        ...


def bridge_for(env_id: str, module: Any) -> Bridge | None:
    """The environment module's own bridge, else the one registered for `env_id`."""
    hook = getattr(module, MODULE_HOOK, None)
    if callable(hook):
        found = hook()
    else:
        registered = {ep.name: ep for ep in entry_points(group=GROUP)}
        if env_id not in registered:
            return None
        try:
            found = registered[env_id].load()()
        except Exception as exc:  # a third party's bridge: say whose failure it is
            raise AssayError(f"verifiers bridge {env_id} failed to load: "
                             f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(found, Bridge):
        raise AssayError(f"verifiers bridge for {env_id}: {type(found).__name__} lacks "
                         "ceiling, oracle_plan or tags")
    return found
