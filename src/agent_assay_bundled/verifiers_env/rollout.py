"""Load a verifiers environment, list its tasks, and run one rollout of a policy on one.

The environment is loaded as its package says (`load_environment(**args)`), by module
name for an installed environment or from a `.py` file. Its evaluation rows are what a
trainer would feed a model; `Task.gold_of` separates what the model is shown (the prompt)
from what it must not see (everything else the task carries: answers, hidden worlds,
`info`). A rollout goes through `Env.rollout`, the path a model takes: the harness offers
the tools, parses the calls, runs the tools and the rubric.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay_bundled.verifiers_env.scripted import (
    Policy,
    RecordedServer,
    ScriptedModel,
    Turn,
    message_text,
    parsed_arguments,
)


def load_environment(source: str, args: Mapping[str, Any] | None = None) -> Any:
    """The environment `source` names (an installed module, or a path to a .py file),
    built with `args`; a one-line error when it cannot be found or does not build."""
    module = environment_module(source)
    build = getattr(module, "load_environment", None)
    if not callable(build):
        raise AssayError(f"verifiers environment {source}: its module has no "
                         "load_environment()")
    try:
        return build(**dict(args or {}))
    except Exception as exc:  # the environment's own code: say whose failure it is
        raise AssayError(f"verifiers environment {source}: load_environment() raised "
                         f"{type(exc).__name__}: {exc}") from exc


def environment_module(source: str) -> Any:
    """The module behind `source`, imported once per process."""
    path = Path(source)
    if path.suffix == ".py":
        if not path.is_file():
            raise AssayError(f"verifiers environment {source}: no such file")
        name = f"_assay_env_{path.stem}"
        known = sys.modules.get(name)
        if known is not None and Path(getattr(known, "__file__", "")) == path:
            return known
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise AssayError(f"verifiers environment {source}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(source.replace("-", "_"))
    except ModuleNotFoundError as exc:
        raise AssayError(f"verifiers environment {source}: not installed ({exc.msg}); "
                         "install its package next to verifiers") from exc


@dataclass(frozen=True)
class Task:
    """One evaluation row of an environment: the row the harness takes, and its task."""

    example_id: str
    row: Mapping[str, Any]
    task: Mapping[str, Any]

    @property
    def prompt(self) -> Sequence[Mapping[str, Any]]:
        """What the model is shown."""
        return list(self.task.get("prompt") or [])

    def gold_of(self) -> dict[str, Any]:
        """Everything the task carries beyond the prompt: the model must never see it."""
        return {key: value for key, value in self.task.items() if key != "prompt"}


def tasks(env: Any) -> list[Task]:
    """The environment's evaluation tasks, in dataset order."""
    rows = env.get_eval_dataset()
    found = []
    for index in range(len(rows)):
        row = dict(rows[index])
        task = env.taskset.to_task(row)
        found.append(Task(str(row.get("example_id", index)), row, dict(task)))
    return found


@dataclass(frozen=True)
class Raised:
    """An exception a tool call raised in the harness: its type, and the text the model got."""

    kind: str
    text: str


@dataclass(frozen=True)
class MadeCall:
    """One tool call as the rollout made it: at which model request, whether the tool was
    offered with that request, the tool message that came back (None: none did), and the
    exception's type when the call raised in the harness."""

    turn: int
    tool: str
    arguments: Mapping[str, Any]
    offered: bool
    result: str | None
    raised: str | None


@dataclass(frozen=True)
class Rollout:
    """What one rollout showed: the rubric's reward and metrics, every model request with
    the tools offered and the tool messages returned, each call made, the tool calls that
    raised (the harness hands the model only the exception's text, so they are recorded
    as it makes that text), and how it ended."""

    example_id: str
    reward: float | None
    metrics: Mapping[str, float]
    turns: tuple[Turn, ...]
    raised: tuple[Raised, ...]
    error: str | None
    stop: str | None
    calls: tuple[MadeCall, ...] = ()
    specs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def offered_ever(self) -> set[str]:
        return {name for turn in self.turns for name in turn.offered}


def run_rollout(env: Any, task: Task, policy: Policy, *, model: str = "scripted") -> Rollout:
    """Run `policy` on `task` through the environment's own rollout path."""
    return drive(env, task, ScriptedModel(policy), model=model)


def drive(env: Any, task: Task, stand_in: ScriptedModel | RecordedServer, *,
          model: str) -> Rollout:
    """One rollout of `task` with `stand_in` in the model's place."""
    from verifiers.clients import OpenAIChatCompletionsClient

    with _tool_exceptions() as raised:
        state = asyncio.run(env.rollout(dict(task.row), OpenAIChatCompletionsClient(stand_in),
                                        model))
    error = state.get("error")
    reward = state.get("reward")
    turns = tuple(stand_in.turns)
    return Rollout(
        example_id=task.example_id,
        reward=None if reward is None else float(reward),
        metrics={str(k): float(v) for k, v in (state.get("metrics") or {}).items()},
        turns=turns,
        raised=tuple(raised),
        error=None if not error else str(error.get("error_chain_str", error)
                                         if isinstance(error, Mapping) else error),
        stop=state.get("stop_condition"),
        calls=tuple(_calls_made(state.get("completion") or [], turns, raised)),
        specs=dict(stand_in.specs),
    )


def _calls_made(messages: Sequence[Mapping[str, Any]], turns: Sequence[Turn],
                raised: Sequence[Raised]) -> list[MadeCall]:
    """Each tool call in the rollout's completion, paired with its tool message and with
    the request it answered (the n-th assistant message answers the n-th request)."""
    answers = {str(m.get("tool_call_id")): message_text(m.get("content"))
               for m in messages if m.get("role") == "tool"}
    pending = list(raised)
    made: list[MadeCall] = []
    assistant = -1
    for message in messages:
        if message.get("role") != "assistant":
            continue
        assistant += 1
        offered = turns[assistant].offered if assistant < len(turns) else ()
        for tool_call in message.get("tool_calls") or ():
            function = tool_call.get("function") or tool_call
            name = str(function.get("name"))
            result = answers.get(str(tool_call.get("id")))
            kind = None
            for position, error in enumerate(pending):
                if result is not None and error.text == result:
                    kind = pending.pop(position).kind
                    break
            made.append(MadeCall(assistant, name, parsed_arguments(function.get("arguments")),
                                 name in offered, result, kind))
    return made


@contextmanager
def _tool_exceptions() -> Iterator[list[Raised]]:
    """Record each exception a tool call raises inside the harness while handing the model
    exactly the text the harness would have: an observation of the rollout path, not a
    change to it."""
    from verifiers.v1 import harness

    original = harness.tool_error_content
    raised: list[Raised] = []

    def recorded(error: Exception) -> Any:
        content = original(error)
        raised.append(Raised(type(error).__name__, str(content)))
        return content

    harness.tool_error_content = recorded
    try:
        yield raised
    finally:
        harness.tool_error_content = original
