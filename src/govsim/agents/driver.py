"""A thin client that public-view agents use to talk to an environment.

Promise: agents built on ``Driver`` touch the environment only through ``call`` and see
only envelopes, exactly as an external agent would. Must not import agent_assay.
"""

from __future__ import annotations

from typing import Any, Protocol

from govsim.task import PublicTask

Rows = list[dict[str, Any]]


class CallsTools(Protocol):
    def call(self, tool: object, args: object = None) -> dict[str, Any]: ...


class Driver:
    def __init__(self, env: CallsTools, public: PublicTask) -> None:
        self.env = env
        self.public = public
        self.remaining = public.max_turns
        self.over = False

    def call(self, tool: str, **args: Any) -> dict[str, Any] | None:
        """The result on success, None on an error envelope or once the episode is over."""
        if self.over:
            return None
        envelope = self.env.call(tool, args)
        self.remaining = int(envelope["remaining_turns"])
        self.over = bool(envelope["terminal"])
        result = envelope["result"]
        return result if envelope["ok"] and isinstance(result, dict) else None

    def create(self) -> str | None:
        result = self.call(self.public.create_tool, **dict(self.public.request))
        return None if result is None else str(result["action_id"])

    def rows(self, register: str, entity_id: str | None = None) -> Rows:
        result = self.call(
            "inspect_register",
            entity_id=entity_id or self.public.entity_id,
            register=register,
            as_of_date=self.public.as_of_date,
        )
        return [] if result is None else list(result["rows"])

    def execute(self, action_id: str, signatory: str) -> None:
        self.call("execute_action", action_id=action_id, signatory_person_id=signatory)
