"""What stands in the model's place on the rollout path: a scripted policy, or a real
OpenAI-compatible server with a recorder in front of it.

verifiers' `OpenAIChatCompletionsClient` wraps an `AsyncOpenAI`; only
`chat.completions.create` is used. Both stand-ins here keep what the environment showed at
each request (the tools offered, with their parameters, and the tool messages sent back),
which is how a control can say that a step failed because a tool was never offered or
because it raised, rather than because the policy was wrong.
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
    sent back since the previous request, and the call answered with (None: a final
    message and no call)."""

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


class _Recording:
    """The bookkeeping both stand-ins share: turns, tool specs, tool messages seen."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.specs: dict[str, Mapping[str, Any]] = {}
        self._seen_tool_messages = 0

    @property
    def chat(self) -> _Recording:
        return self

    @property
    def completions(self) -> _Recording:
        return self

    def _observe(self, messages: Sequence[Mapping[str, Any]],
                 tools: Sequence[Mapping[str, Any]] | None) -> tuple[tuple[str, ...],
                                                                      tuple[str, ...]]:
        offered = []
        for tool in tools or ():
            function = tool.get("function", {})
            name = str(function.get("name"))
            offered.append(name)
            self.specs.setdefault(name, dict(function.get("parameters") or {}))
        tool_messages = [message_text(m.get("content")) for m in messages
                         if m.get("role") == "tool"]
        results = tuple(tool_messages[self._seen_tool_messages:])
        self._seen_tool_messages = len(tool_messages)
        return tuple(offered), results


class ScriptedModel(_Recording):
    """Answers each request from `policy`."""

    def __init__(self, policy: Policy) -> None:
        super().__init__()
        self.policy = policy

    async def create(self, *, model: str, messages: Sequence[Mapping[str, Any]],
                     tools: Sequence[Mapping[str, Any]] | None = None,
                     **_: Any) -> ChatCompletion:
        offered, results = self._observe(messages, tools)
        call = self.policy.next_call(tuple(self.turns), offered, results)
        self.turns.append(Turn(offered, results, call))
        return _completion(model, call, len(self.turns))


class RecordedServer(_Recording):
    """Forwards each request to a real OpenAI-compatible client and records the first tool
    call of its answer (the one the harness's step record is keyed by)."""

    def __init__(self, client: Any) -> None:
        super().__init__()
        self.client = client

    async def create(self, *, messages: Sequence[Mapping[str, Any]],
                     tools: Sequence[Mapping[str, Any]] | None = None,
                     **kwargs: Any) -> ChatCompletion:
        offered, results = self._observe(messages, tools)
        request: dict[str, Any] = {"messages": messages, **kwargs}
        if tools is not None:
            request["tools"] = tools
        answer: ChatCompletion = await self.client.chat.completions.create(**request)
        made = (answer.choices[0].message.tool_calls or []) if answer.choices else []
        call = None
        if made:
            function = getattr(made[0], "function", None)
            call = Call(str(getattr(function, "name", "")), parsed_arguments(
                getattr(function, "arguments", "")))
        self.turns.append(Turn(offered, results, call))
        return answer


def parsed_arguments(raw: Any) -> Mapping[str, Any]:
    """A call's arguments as a mapping (a model may send text that is not a JSON object)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        parsed = json.loads(raw or "{}")
    except (TypeError, json.JSONDecodeError):
        return {"_unparsed": str(raw)}
    return parsed if isinstance(parsed, dict) else {"_unparsed": str(raw)}


def message_text(content: Any) -> str:
    """A message's content as plain text."""
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
