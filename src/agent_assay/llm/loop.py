"""A tool-calling agent loop over any OpenAI-compatible chat-completions endpoint.

The loop knows tools only as JSON-schema specs and one `execute(name, args)` callback;
it knows nothing about banks, worlds or gold. One episode:

1. send a system message (the caller's instructions, plus each tool's name and
   description) and the user's request, with the specs as ``tools`` and an explicit
   ``tool_choice`` (some servers ignore tools without one);
2. for every tool call in the reply, in order: arguments that are not a JSON object are
   recorded as a failed step and reported back to the model, never executed and never
   raised; a tool name that was not offered is a failed step too; anything else goes to
   `execute`, and its outcome is recorded and fed back as a ``tool`` message (or, for
   servers whose chat template drops those, in one ``user`` message per turn);
3. on a reply without tool calls, ask the episode for the user's next turn when it takes
   turns (`next_turn`): a granted turn is recorded as a turn-boundary step (see
   `model.USER_TURN`), its message sent, and its tools offered from then on;
4. stop on a reply without tool calls and no further user turn (the final answer), after
   a successful call to a terminal tool, when the turn budget (requests per episode) is
   spent, or when the endpoint refuses a later turn (400/422, e.g. the conversation
   outgrew the context window: stop "rejected", the steps so far stand).

Every request is recorded: model, temperature, seed, tool_choice, token usage, latency,
attempts. Timeouts, connection errors, 429 and 5xx answers are retried with exponential
backoff a bounded number of times; then, like an endpoint that refuses the credentials or
the model name, the episode raises `AgentUnreachable`. Any other refusal (400, 422, ...) of
the opening request raises `ModelRequestRejected`. Either way the runner records a crashed
trajectory.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Literal

import openai

from agent_assay.adapters.system import ToolOutcome, ToolSpec, UserTurn
from agent_assay.errors import AgentUnreachable
from agent_assay.llm.endpoint import Endpoint
from agent_assay.llm.settings import LoopSettings
from agent_assay.model import USER_TURN, Cost, Step, ToolCall

MALFORMED_KEY = "__malformed_arguments__"
"""A failed step's only argument when the model's arguments were not a JSON object: the
raw text it sent, so the trajectory keeps what was proposed."""

LOCAL_COST = Cost(0.0, "local model")
MAX_ERROR = 400
"""Characters of an endpoint's error kept in a message (servers can send pages)."""

StopReason = Literal["final_answer", "terminal_tool", "turn_budget", "rejected"]
RETRIED = (openai.APIConnectionError, openai.InternalServerError, openai.RateLimitError)
REFUSED = (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)


class ModelRequestRejected(RuntimeError):
    """The endpoint answered but refused the conversation (400, 422, ...): not retried."""


def openai_tool(spec: ToolSpec, max_string_length: int | None = None) -> dict[str, Any]:
    """A tool in the chat-completions ``tools`` shape."""
    parameters = dict(spec.parameters)
    if max_string_length is not None:
        parameters = bounded(parameters, max_string_length)
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": parameters,
        },
    }


def bounded(schema: Mapping[str, Any], limit: int) -> dict[str, Any]:
    """A copy of `schema` in which every free string carries maxLength `limit`."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if isinstance(value, Mapping):
            out[key] = bounded(value, limit)
        elif isinstance(value, list):
            out[key] = [bounded(v, limit) if isinstance(v, Mapping) else v for v in value]
        else:
            out[key] = value
    free = not ({"maxLength", "enum", "pattern", "const"} & out.keys())
    if out.get("type") == "string" and free:
        out["maxLength"] = limit
    return out


Execute = Callable[[str, dict[str, Any]], ToolOutcome]
NextTurn = Callable[[], UserTurn | None]


@dataclass(frozen=True)
class RequestRecord:
    """One chat-completions request as sent and answered."""

    turn: int
    model: str
    response_model: str | None
    temperature: float
    seed: int | None
    tool_choice: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float
    attempts: int
    retried_errors: tuple[str, ...]
    finish_reason: str | None
    tool_calls: int

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "model": self.model,
            "response_model": self.response_model,
            "temperature": self.temperature,
            "seed": self.seed,
            "tool_choice": self.tool_choice,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_ms": self.latency_ms,
            "attempts": self.attempts,
            "retried_errors": list(self.retried_errors),
            "finish_reason": self.finish_reason,
            "tool_calls": self.tool_calls,
        }


@dataclass(frozen=True)
class LoopResult:
    steps: tuple[Step, ...]
    stop: StopReason
    final_answer: str | None
    requests: tuple[RequestRecord, ...]
    malformed_calls: int = 0
    unexecuted_after_terminal: int = 0
    endpoint: Mapping[str, Any] = field(default_factory=dict)
    rejected: str | None = None
    """Why the endpoint refused a later turn, when that ended the episode."""

    def usage(self) -> dict[str, int]:
        return {
            "requests": len(self.requests),
            "prompt_tokens": sum(r.prompt_tokens or 0 for r in self.requests),
            "completion_tokens": sum(r.completion_tokens or 0 for r in self.requests),
        }

    def cost(self) -> Cost:
        """0.0 with its reason: free on a loopback endpoint, unpriced elsewhere."""
        if self.endpoint.get("loopback"):
            return LOCAL_COST
        usage = self.usage()
        return Cost(
            0.0,
            "not priced: remote endpoint; "
            f"{usage['prompt_tokens']} prompt and {usage['completion_tokens']} completion tokens",
        )

    def meta(self) -> dict[str, Any]:
        return {
            "agent": "openai-compatible tool-calling loop",
            "endpoint": dict(self.endpoint),
            "stop": self.stop,
            "final_answer": self.final_answer,
            "malformed_tool_calls": self.malformed_calls,
            "unexecuted_after_terminal": self.unexecuted_after_terminal,
            "rejected": self.rejected,
            "usage": self.usage(),
            "requests": [r.to_json() for r in self.requests],
        }


def describe(exc: BaseException) -> str:
    """The exception and, when the client wrapped one, its cause (e.g. connection refused)."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__
    if cause is not None and str(cause) and str(cause) not in text:
        text += f" ({type(cause).__name__}: {cause})"
    text = " ".join(text.split())  # one line, whatever the server sent
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 3] + "..."


def system_message(instructions: str, tools: Sequence[ToolSpec], describe_tools: bool) -> str:
    if not describe_tools:
        return instructions
    lines = [f"- {t.name}: {t.description}" for t in tools]
    return instructions.rstrip() + "\n\nTools you can call:\n" + "\n".join(lines)


def parse_arguments(raw: object) -> tuple[dict[str, Any] | None, str | None]:
    """(arguments, None) for a JSON object (an empty string counts as {}); else (None, why)."""
    if isinstance(raw, Mapping):
        return dict(raw), None
    if not isinstance(raw, str):
        return None, f"arguments are {type(raw).__name__}, not a JSON string"
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at char {exc.pos})"
    if not isinstance(value, dict):
        return None, f"JSON {type(value).__name__}, not an object"
    return value, None


def tool_feedback(outcome: ToolOutcome) -> str:
    if outcome.ok:
        return json.dumps({"ok": True, "result": outcome.result}, sort_keys=True, default=str)
    return json.dumps({"ok": False, "error": outcome.error}, sort_keys=True)


class AgentLoop:
    """One endpoint, one set of settings; `run` plays one episode."""

    def __init__(
        self,
        endpoint: Endpoint,
        settings: LoopSettings,
        *,
        client: openai.OpenAI | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if settings.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {settings.max_turns}")
        if settings.tool_result_role not in ("tool", "user"):
            raise ValueError(f"tool_result_role must be tool or user: {settings.tool_result_role}")
        if settings.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {settings.max_attempts}")
        self.endpoint = endpoint
        self.settings = settings
        self.client = client or openai.OpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            timeout=settings.timeout_s,
            max_retries=0,  # retries are ours, so each one is counted and recorded
        )
        self.sleep = sleep

    def run(
        self,
        instructions: str,
        request: str,
        tools: Sequence[ToolSpec],
        execute: Execute,
        next_turn: NextTurn | None = None,
    ) -> LoopResult:
        offered, specs = self._offer(tools)
        messages: list[dict[str, Any]] = [
            {
                "role": "system",
                "content": system_message(instructions, tools, self.settings.describe_tools),
            },
            {"role": "user", "content": request},
        ]
        steps: list[Step] = []
        records: list[RequestRecord] = []
        malformed = 0
        for turn in range(1, self.settings.max_turns + 1):
            try:
                message, record = self._request(messages, specs, turn)
            except ModelRequestRejected as exc:
                if turn == 1:  # the opening request itself: the setup is wrong, not the agent
                    raise
                # e.g. the conversation outgrew the context window: the episode ends here
                return self._result(steps, "rejected", None, records, malformed, rejected=str(exc))
            records.append(record)
            calls = list(getattr(message, "tool_calls", None) or [])
            user = next_turn() if not calls and next_turn is not None else None
            if user is not None:
                steps.append(Step(ToolCall(USER_TURN, {}), True, user.message))
                messages.append({"role": "assistant", "content": message.content or ""})
                messages.append({"role": "user", "content": user.message})
                if user.tools is not None:
                    offered, specs = self._offer(user.tools)
                continue
            if not calls:
                return self._result(steps, "final_answer", message.content, records, malformed)
            messages.append(assistant_message(message.content, calls, turn))
            left, bad = self._run_calls(calls, turn, offered, execute, steps, messages)
            malformed += bad
            if left is not None:
                return self._result(
                    steps, "terminal_tool", message.content, records, malformed, left
                )
        return self._result(steps, "turn_budget", None, records, malformed)

    def _run_calls(
        self,
        calls: Sequence[Any],
        turn: int,
        offered: set[str],
        execute: Execute,
        steps: list[Step],
        messages: list[dict[str, Any]],
    ) -> tuple[int | None, int]:
        """Run one turn's tool calls in order, each as a step with its feedback to the
        model: (the calls left unrun when a terminal tool succeeded, else None; how many
        had malformed arguments)."""
        malformed = 0
        results: list[str] = []
        for index, call in enumerate(calls):
            call_id = getattr(call, "id", None) or f"call_{turn}_{index}"
            name, step, outcome, bad = _made_call(call, offered, execute)
            malformed += bad
            steps.append(step)
            if self.settings.tool_result_role == "tool":
                messages.append(
                    {"role": "tool", "tool_call_id": call_id, "content": tool_feedback(outcome)}
                )
            else:
                results.append(f"Result of functions.{name}:\n{tool_feedback(outcome)}")
            if outcome.ok and name in self.settings.terminal_tools:
                return len(calls) - index - 1, malformed
        if results:
            messages.append({"role": "user", "content": "\n\n".join(results)})
        return None, malformed

    def _offer(self, tools: Sequence[ToolSpec]) -> tuple[set[str], list[dict[str, Any]]]:
        """The tools' names, and their specs as the request offers them."""
        return ({t.name for t in tools},
                [openai_tool(t, self.settings.max_string_length) for t in tools])

    def _result(
        self,
        steps: list[Step],
        stop: StopReason,
        answer: str | None,
        records: list[RequestRecord],
        malformed: int,
        unexecuted: int = 0,
        rejected: str | None = None,
    ) -> LoopResult:
        return LoopResult(
            steps=tuple(steps),
            stop=stop,
            final_answer=answer,
            requests=tuple(records),
            malformed_calls=malformed,
            unexecuted_after_terminal=unexecuted,
            endpoint=self.endpoint.public(),
            rejected=rejected,
        )

    def _body(self, messages: list[dict[str, Any]], specs: list[dict[str, Any]]) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": messages,
            "tools": specs,
            "tool_choice": s.tool_choice,
            "temperature": s.temperature,
        }
        if s.seed is not None:
            body["seed"] = s.seed
        if s.max_tokens is not None:
            body["max_tokens"] = s.max_tokens
        return body

    def _request(
        self, messages: list[dict[str, Any]], specs: list[dict[str, Any]], turn: int
    ) -> tuple[Any, RequestRecord]:
        s = self.settings
        retried: list[str] = []
        for attempt in range(1, s.max_attempts + 1):
            started = perf_counter()
            try:
                response = self.client.chat.completions.create(**self._body(messages, specs))
            except RETRIED as exc:
                retried.append(describe(exc))
                if attempt < s.max_attempts:
                    self.sleep(s.backoff_s * 2 ** (attempt - 1))
                    continue
                raise AgentUnreachable(
                    f"{self.endpoint.base_url}: no answer after {attempt} attempt(s); "
                    f"last: {retried[-1]}"
                ) from exc
            except REFUSED as exc:
                raise AgentUnreachable(
                    f"{self.endpoint.base_url} refused the request: {describe(exc)}"
                ) from exc
            except openai.APIStatusError as exc:
                raise ModelRequestRejected(
                    f"{self.endpoint.base_url} rejected turn {turn}: {describe(exc)}"
                ) from exc
            latency_ms = (perf_counter() - started) * 1000.0
            choices = getattr(response, "choices", None) or []
            if not choices:
                raise ModelRequestRejected(f"turn {turn}: the endpoint returned no choices")
            choice = choices[0]
            usage = getattr(response, "usage", None)
            record = RequestRecord(
                turn=turn,
                model=self.endpoint.model,
                response_model=getattr(response, "model", None),
                temperature=s.temperature,
                seed=s.seed,
                tool_choice=s.tool_choice,
                prompt_tokens=getattr(usage, "prompt_tokens", None),
                completion_tokens=getattr(usage, "completion_tokens", None),
                latency_ms=latency_ms,
                attempts=attempt,
                retried_errors=tuple(retried),
                finish_reason=getattr(choice, "finish_reason", None),
                tool_calls=len(getattr(choice.message, "tool_calls", None) or []),
            )
            return choice.message, record
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def assistant_message(content: str | None, calls: Sequence[Any], turn: int) -> dict[str, Any]:
    """The model's tool-calling reply, echoed back so the next turn sees what it asked for."""
    return {
        "role": "assistant",
        "content": content or "",  # some servers refuse null content beside tool calls
        "tool_calls": [
            {
                "id": getattr(call, "id", None) or f"call_{turn}_{index}",
                "type": "function",
                "function": {
                    "name": str(getattr(call.function, "name", "") or ""),
                    "arguments": raw_text(getattr(call.function, "arguments", None)),
                },
            }
            for index, call in enumerate(calls)
        ],
    }


def raw_text(raw: object) -> str:
    if isinstance(raw, str):
        return raw
    return json.dumps(raw, sort_keys=True, default=str)


def _made_call(
    call: Any, offered: set[str], execute: Execute
) -> tuple[str, Step, ToolOutcome, bool]:
    """One tool call the model made, as a step: its tool's name, the step, the outcome, and
    whether its arguments were malformed (then, as for a tool not offered, nothing runs)."""
    function = getattr(call, "function", None)
    name = str(getattr(function, "name", "") or "")
    raw = getattr(function, "arguments", None)
    args, problem = parse_arguments(raw)
    if args is None:
        outcome = ToolOutcome(False, None, f"malformed tool-call arguments: {problem}")
        step = Step(ToolCall(name, {MALFORMED_KEY: raw}), False, None, outcome.error)
        return name, step, outcome, True
    if name not in offered:
        outcome = ToolOutcome(False, None, f"unknown tool: {name}")
        return name, Step(ToolCall(name, args), False, None, outcome.error), outcome, False
    outcome = execute(name, args)
    step = Step(ToolCall(name, args), outcome.ok, outcome.result, outcome.error)
    return name, step, outcome, False
