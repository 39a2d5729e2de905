"""A scripted policy in the place of a model: verifiers' OpenAI client calls it as it
would call a server, and it answers each request with the policy's next tool call.

It also keeps what the environment showed at each request (the tools offered and the
tool messages sent back), which is how a control can say that a step failed because a
tool was never offered or because it raised, rather than because the policy was wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from openai.types.chat import ChatCompletion


@dataclass(frozen=True)
class Call:
    """One tool call a policy makes: the tool's name and its JSON arguments."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Turn:
    """One model request: the tools offered with it, the tool messages the environment had
    sent back since the previous request, and the call the policy answered with (None: it
    answered with a final message and no call)."""

    offered: tuple[str, ...]
    results: tuple[str, ...]
    call: Call | None


class Policy(Protocol):
    def next_call(self, turns: Sequence[Turn], offered: Sequence[str],
                  results: Sequence[str]) -> Call | None:
        """The call to make now, given the earlier turns, the tools offered and the tool
        messages since the last request; None to stop."""
        ...


@dataclass
class Scripted:
    """A fixed list of calls, made in order whatever the environment answers."""

    calls: Sequence[Call]

    def next_call(self, turns: Sequence[Turn], offered: Sequence[str],
                  results: Sequence[str]) -> Call | None:
        return self.calls[len(turns)] if len(turns) < len(self.calls) else None


class ScriptedModel:
    """What verifiers' `OpenAIChatCompletionsClient` wraps as its `AsyncOpenAI`: only
    `chat.completions.create` is used, and it is answered from `policy`."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.turns: list[Turn] = []
        self._seen_tool_messages = 0

    @property
    def chat(self) -> ScriptedModel:
        return self

    @property
    def completions(self) -> ScriptedModel:
        return self

    async def create(self, *, model: str, messages: Sequence[Mapping[str, Any]],
                     tools: Sequence[Mapping[str, Any]] | None = None,
                     **_: Any) -> ChatCompletion:
        offered = tuple(str(t.get("function", {}).get("name")) for t in tools or ())
        tool_messages = [_text(m.get("content")) for m in messages if m.get("role") == "tool"]
        results = tuple(tool_messages[self._seen_tool_messages:])
        self._seen_tool_messages = len(tool_messages)
        call = self.policy.next_call(tuple(self.turns), offered, results)
        self.turns.append(Turn(offered, results, call))
        return _completion(model, call, len(self.turns))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) if isinstance(part, Mapping) else str(part)
                       for part in content)
    return "" if content is None else str(content)


def _completion(model: str, call: Call | None, number: int) -> ChatCompletion:
    message: dict[str, Any] = {"role": "assistant", "content": None if call else "done"}
    if call is not None:
        message["tool_calls"] = [{
            "id": f"call_{number}", "type": "function",
            "function": {"name": call.tool, "arguments": json.dumps(dict(call.arguments))},
        }]
    return ChatCompletion.model_validate({
        "id": f"scripted-{number}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if call else "stop"}],
    })
