"""The episode driver: turn budget, JSON envelopes, call log and final snapshot.

Promise: ``Environment.call`` never raises on agent input; every call is logged and
answered with an envelope carrying remaining turns, preflight credits, action status and
the terminal flag. Must not import agent_assay.
"""

from __future__ import annotations

import json
from typing import Any

from govsim.errors import ToolError
from govsim.handlers import Toolbox
from govsim.schema import problems
from govsim.state import EpisodeState
from govsim.task import Task
from govsim.toolspecs import ToolSpec, tools_for

DEFAULT_MAX_SEARCH_RESULTS = 5


class Environment:
    def __init__(
        self,
        task: Task,
        *,
        preflight_budget: int | None = None,
        max_search_results: int = DEFAULT_MAX_SEARCH_RESULTS,
    ) -> None:
        self.task = task
        self.state = EpisodeState()
        self.log: list[dict[str, Any]] = []
        self.specs: dict[str, ToolSpec] = {s.name: s for s in tools_for(task.family)}
        budget = task.preflight_budget if preflight_budget is None else preflight_budget
        self.toolbox = Toolbox(task, self.state, budget, max_search_results)

    @property
    def terminal(self) -> bool:
        return self.state.execution is not None or self.state.turns_used >= self.task.max_turns

    def tool_specs(self) -> list[dict[str, Any]]:
        return [s.as_dict() for s in self.specs.values()]

    def call(self, tool: object, args: object = None) -> dict[str, Any]:
        """Run one tool call; bad input yields an error envelope, never an exception."""
        name = tool if isinstance(tool, str) else repr(tool)
        if self.terminal:
            envelope = self._envelope(name, None, "the episode is over; no further calls")
        else:
            self.state.turns_used += 1
            try:
                envelope = self._envelope(name, self._dispatch(tool, args), None)
            except ToolError as exc:
                self.state.tool_errors += 1
                envelope = self._envelope(name, None, str(exc))
        self.log.append(
            {
                "turn": self.state.turns_used,
                "tool": name,
                "args": _json_safe(args),
                "response": envelope,
            }
        )
        return envelope

    def snapshot(self) -> dict[str, Any]:
        return self.state.snapshot(self.task.task_id)

    def _dispatch(self, tool: object, args: object) -> dict[str, Any]:
        spec = self.specs.get(tool) if isinstance(tool, str) else None
        if spec is None:
            raise ToolError(f"unknown tool {tool!r}; available: {sorted(self.specs)}")
        args = {} if args is None else args
        found = problems(spec.parameters, args)
        if found or not isinstance(args, dict):
            raise ToolError("; ".join(found))
        return self.toolbox.handlers[spec.name](args)

    def _envelope(
        self, tool: str, result: dict[str, Any] | None, error: str | None
    ) -> dict[str, Any]:
        action = self.state.action
        return {
            "ok": error is None,
            "tool": tool,
            "result": result,
            "error": error,
            "remaining_turns": max(0, self.task.max_turns - self.state.turns_used),
            "preflight_remaining": max(
                0, self.toolbox.preflight_budget - self.state.preflight_used
            ),
            "action_status": self.state.status,
            "action_id": action.action_id if action else None,
            "terminal": self.terminal,
        }


def _json_safe(value: object) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return repr(value)
