"""The tools an episode offers: the task's own, as Inspect hands them to its model, and
one more, the answer tool.

Inspect reads a sample's answer from the model's last reply without a tool call; the
harness's episodes have no such channel, so each offers `ANSWER`, whose argument becomes
that reply. A replayed gold path ends with it; the model agent may call it, and a model that
ends with plain text has that text recorded as ``final_answer`` in the trajectory's meta,
which is where the answer tool's text goes too, so the scorer reads one place. A task
tool of the same name is shadowed (`docs/inspect.md` says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.adapters.system import ToolSpec

ANSWER = "submit_answer"
ANSWER_ARG = "answer"
ANSWER_SPEC = ToolSpec(
    ANSWER,
    "Give your final answer. Call it once, when you are done.",
    {"type": "object",
     "properties": {ANSWER_ARG: {"type": "string", "description": "the final answer"}},
     "required": [ANSWER_ARG]},
)


def spec_of(info: Any) -> ToolSpec:
    """Inspect's ToolInfo (what its model sees) as the harness's ToolSpec."""
    parameters = info.parameters.model_dump(exclude_none=True)
    return ToolSpec(str(info.name), str(info.description), parameters)


def specs_of(infos: Sequence[Any]) -> tuple[ToolSpec, ...]:
    """The task's tools and the answer tool (which shadows a task tool of its name)."""
    return (*(spec_of(info) for info in infos if info.name != ANSWER), ANSWER_SPEC)


def answer_of(meta: Mapping[str, Any]) -> str:
    """The answer a trajectory recorded, else empty."""
    answer = meta.get("final_answer")
    return answer if isinstance(answer, str) else ""
