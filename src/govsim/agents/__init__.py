"""The baseline registry: every agent with its role and whether it reads hidden state.

Promise: ``AGENTS`` maps a name to a callable ``(public_task, env, *, seed, repetition)``;
only agents flagged ``reads_hidden_state`` look past the public view.
Must not import agent_assay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from govsim.agents.controls import random_agent, search_only
from govsim.agents.guided import mock_agent, oracle_replay
from govsim.agents.heuristics import keyword_heuristic, naive_max_approval
from govsim.environment import Environment
from govsim.task import PublicTask

Role = Literal["negative_control", "baseline", "positive_control", "oracle_guided"]


class AgentFn(Protocol):
    def __call__(
        self, public: PublicTask, env: Environment, *, seed: int, repetition: int
    ) -> None: ...


@dataclass(frozen=True)
class AgentSpec:
    name: str
    run: AgentFn
    role: Role
    reads_hidden_state: bool

    def __call__(
        self, public: PublicTask, env: Environment, *, seed: int = 0, repetition: int = 0
    ) -> None:
        self.run(public, env, seed=seed, repetition=repetition)


AGENTS: dict[str, AgentSpec] = {
    spec.name: spec
    for spec in (
        AgentSpec("random", random_agent, "negative_control", False),
        AgentSpec("search_only", search_only, "negative_control", False),
        AgentSpec("naive_max_approval", naive_max_approval, "baseline", False),
        AgentSpec("keyword_heuristic", keyword_heuristic, "baseline", False),
        AgentSpec("oracle_replay", oracle_replay, "positive_control", True),
        AgentSpec("mock", mock_agent, "oracle_guided", True),
    )
}

__all__ = ["AGENTS", "AgentFn", "AgentSpec"]
