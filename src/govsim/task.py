"""A generated task and the public view an agent is allowed to see.

Promise: ``Task`` holds the hidden world, rule graph and receipt secret; ``PublicTask``
holds only the request and tool names, so no hidden rule can leak through it.
Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from govsim.graph import Node
from govsim.ids import digest
from govsim.quantities import Scalar
from govsim.toolspecs import CREATE_TOOLS, tools_for
from govsim.world import World


@dataclass(frozen=True)
class ActionRequest:
    """What the requester asks for; ``payload`` is exactly the create tool's arguments."""

    family: str
    entity_id: str
    day: date
    payload: Mapping[str, Scalar]
    prompt: str


@dataclass(frozen=True)
class PublicTask:
    task_id: str
    split: str
    difficulty: str
    family: str
    entity_id: str
    as_of_date: str
    prompt: str
    request: Mapping[str, Scalar]
    create_tool: str
    tools: tuple[str, ...]
    max_turns: int
    preflight_budget: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "split": self.split,
            "difficulty": self.difficulty,
            "family": self.family,
            "entity_id": self.entity_id,
            "as_of_date": self.as_of_date,
            "prompt": self.prompt,
            "request": dict(self.request),
            "create_tool": self.create_tool,
            "tools": list(self.tools),
            "max_turns": self.max_turns,
            "preflight_budget": self.preflight_budget,
        }


@dataclass(frozen=True)
class Task:
    task_id: str
    split: str
    difficulty: str
    template_id: str
    family: str
    world: World
    graph: Node
    request: ActionRequest
    max_turns: int
    preflight_budget: int
    secret: str

    @property
    def action_id(self) -> str:
        """Deterministic so replays match, secret-derived so it cannot be guessed."""
        return f"act_{digest(self.secret, 'action')[:12]}"

    def public(self) -> PublicTask:
        return PublicTask(
            task_id=self.task_id,
            split=self.split,
            difficulty=self.difficulty,
            family=self.family,
            entity_id=self.request.entity_id,
            as_of_date=self.request.day.isoformat(),
            prompt=self.request.prompt,
            request=dict(self.request.payload),
            create_tool=CREATE_TOOLS[self.family].name,
            tools=tuple(t.name for t in tools_for(self.family)),
            max_turns=self.max_turns,
            preflight_budget=self.preflight_budget,
        )
