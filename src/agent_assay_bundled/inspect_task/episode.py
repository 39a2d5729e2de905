"""One sample as an episode: the harness's calls go to the task's solver as its model's
tool calls, and the ending is what Inspect left when the sample finished.

A call of a tool the solver does not offer in the current turn is refused unexecuted; a
call after the solver stopped asking its model is refused too. The answer tool
(`tools.ANSWER`) is kept here and given, at `finish`, as the model's reply without a tool
call; every further turn the solver asks for gets the same reply (a solver may generate
more than once). The final state is the sample's store (Inspect's per-sample state that
tools and scorers share) with each key's ``.`` written ``%2E``, so a state path names one
entry. The task's scorer runs in every episode, as Inspect runs it after the solver, since
a scorer may write the store too (``store().get(key, default)`` sets the default): the
final state is the store as Inspect logs it, the same whoever drives the episode. A sample
that ends in error is the environment's failure, not the agent's.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.adapters.system import Ending, ToolOutcome, ToolSpec
from agent_assay.errors import EnvironmentFailed
from agent_assay.hashing import canonical_json
from agent_assay.model import ToolCall
from agent_assay_bundled.inspect_task.bridge import (
    Ended,
    SampleRun,
    Turn,
    reply_output,
    tool_call_output,
)
from agent_assay_bundled.inspect_task.tools import ANSWER, ANSWER_ARG, specs_of

MAX_REPLIES = 20
"""Turns a solver may still ask for once the answer is given, before it is called stuck."""


def state_of(store: Mapping[str, Any] | None) -> dict[str, Any]:
    return {"store": {str(k).replace("%", "%25").replace(".", "%2E"): v
                      for k, v in (store or {}).items()}}


def tool_reply(messages: list[Any], call_id: str) -> ToolOutcome:
    """The tool message answering `call_id` among `messages`."""
    for message in reversed(messages):
        if message.role == "tool" and getattr(message, "tool_call_id", None) == call_id:
            if message.error is not None:
                return ToolOutcome(False, None, f"{message.error.type}: {message.error.message}")
            return ToolOutcome(True, message.text)
    return ToolOutcome(False, None, "the task's solver did not execute the call")


class InspectEpisode:
    """One sample of the task, run by Inspect."""

    def __init__(self, task: Any, sample_id: Any) -> None:
        self.run = SampleRun(task, sample_id)
        self.answer: str | None = None
        self._ids = itertools.count(1)

    @property
    def offered(self) -> tuple[ToolSpec, ...]:
        """The tools the current turn offers (the answer tool always)."""
        current = self.run.current
        return specs_of(current.tools if isinstance(current, Turn) else [])

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolOutcome:
        if tool == ANSWER:
            text = args.get(ANSWER_ARG)
            if not isinstance(text, str):
                return ToolOutcome(False, None, f"ValidationError: {ANSWER_ARG} must be a string")
            self.answer = text
            return ToolOutcome(True, "answer recorded")
        if isinstance(self.run.current, Ended):
            return ToolOutcome(False, None, "the task's solver has finished: no more calls")
        if tool not in {spec.name for spec in self.offered}:
            return ToolOutcome(False, None, f"no tool {tool!r} is offered")
        call_id = f"call_{next(self._ids)}"
        after = self.run.turn(tool_call_output(tool, dict(args), call_id))
        if isinstance(after, Turn):
            return tool_reply(after.messages, call_id)
        return tool_reply(list(after.sample.messages) if after.sample else [], call_id)

    def finish(self) -> Ending:
        ended = self.run.current
        for _ in range(MAX_REPLIES):
            if isinstance(ended, Ended):
                break
            ended = self.run.turn(reply_output(self.answer or ""))
        if not isinstance(ended, Ended):
            raise EnvironmentFailed(f"the task's solver kept asking its model after "
                                    f"{MAX_REPLIES} replies")
        if ended.error is not None or ended.sample is None:
            raise EnvironmentFailed(f"Inspect's sample ended in error: {ended.error}")
        meta: dict[str, Any] = {} if self.answer is None else {"final_answer": self.answer}
        return Ending(state_of(ended.sample.store), None, meta)

    def scores(self) -> Mapping[str, Any]:
        """The finished sample's scores (Inspect's Score objects by scorer name)."""
        ended = self.run.current
        if not isinstance(ended, Ended) or ended.sample is None:
            return {}
        return dict(ended.sample.scores or {})


_ENDED: dict[int, tuple[Any, dict[str, dict[str, Any]]]] = {}
"""id(task) -> (the task, kept alive so its id is not reused; the states its samples ended
in, by sample and calls): building a suite asks for gold's end state and learning the
mutating tools for every prefix of it, so each is played once per loaded task. A task
loaded again (the second of the two builds that prove a suite pure) plays them again."""


def final_state(task: Any, sample_id: Any, calls: Sequence[ToolCall]) -> dict[str, Any]:
    """The state one sample ends in after `calls` (the answer tool's included)."""
    _, ended = _ENDED.setdefault(id(task), (task, {}))
    key = canonical_json([repr(sample_id), [[c.tool, dict(c.args)] for c in calls]])
    if key not in ended:
        episode = InspectEpisode(task, sample_id)
        for call in calls:
            episode.call(call.tool, call.args)
        ended[key] = dict(episode.finish().final_state or {})
    return dict(ended[key])
