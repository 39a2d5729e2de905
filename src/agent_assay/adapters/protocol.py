"""The adapter protocol: the only place where a system under test meets the harness.

Everything above an adapter speaks in Items and Trajectories. An adapter
builds the suite from its source, runs one public item at a time, and states
the facts about its system that a generic scorer or control must not guess:
which tools mutate the world, how arguments normalise, what the world looks
like before the agent acts, and how to replay a list of proposals.

This module imports no system under test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agent_assay.model import Config, PublicItem, Suite, ToolCall, Trajectory
from agent_assay.scoring.base import Scorer

NullAgent = Callable[[PublicItem, Config], Trajectory]
"""A do-nothing (or nearly nothing) agent: it must make no tool calls."""


@runtime_checkable
class AgentAdapter(Protocol):
    name: str
    version: str

    def build_suite(self, source: Path | None = None) -> Suite:
        """A pure function of what is on disk: same source, same suite hash."""
        ...

    def prepare(self, suite: Suite) -> None:
        """Receive the stored suite before anything of it is run, replayed or scored.

        A fresh process (a resumed run, a control, a worker) has the suite only from the
        store; an adapter whose hidden worlds come from its source rebuilds them here.
        """
        ...

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        """Named configurations; each becomes a content-hashed Config."""
        ...

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        """Run the agent on one public item. Gold is not reachable from `item`."""
        ...

    def null_agents(self) -> Mapping[str, NullAgent]:
        """Agents that do nothing; a suite they score well on measures nothing."""
        ...

    def deterministic(self, config: Config) -> bool:
        """A claim that repeats of this config give identical trajectories."""
        ...

    def arg_normalisers(self) -> Mapping[str, Mapping[str, tuple[str, ...]]]:
        """tool -> argument -> names of generic normalisers (see scoring.base.NORMALISERS)."""
        ...

    def mutating_tools(self) -> tuple[str, ...]: ...

    def order_anchor_tool(self) -> str | None:
        """The tool that must succeed before any mutating call (e.g. identity verification)."""
        ...

    def baseline_snapshot(self, seed: int | None = None) -> dict[str, Any]:
        """The world before any agent acts, in the shape trajectories' final_state uses."""
        ...

    def environment(self, config: Config) -> Mapping[str, Any]:
        """Facts recorded with a run (versions, seeds, model ids)."""
        ...

    def affects_results(self) -> frozenset[str]:
        """Which environment keys make two runs incomparable when they differ."""
        ...

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        """Execute `calls` in order from the baseline world: the same path a real agent uses."""
        ...

    def extra_scorers(self) -> Sequence[Scorer]:
        """Scorers specific to this system, appended to the generic set."""
        ...

    def headline_metrics(self) -> tuple[str, ...]:
        """The metrics this system's claims rest on; controls judge these."""
        ...

    def tool_catalogue(self) -> Mapping[str, Mapping[str, Any]]:
        """tool name -> JSON-schema parameters, so a random agent can make well-formed calls."""
        ...

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        """argument name -> valid values (e.g. every account id), for random and mutated calls."""
        ...

    def nondeterministic_fields(self) -> tuple[str, ...]:
        """Trajectory fields and score names allowed to differ between identical runs."""
        ...
