"""A stored trajectory's dialogue as Inspect chat messages, for the exporter.

A trajectory imported from an Inspect log kept its messages in ``meta.messages``, so they
are written back as they were. Any other trajectory (a run agent-assay executed) is
written as its tool path: the item's input as the user's message, each step as an
assistant tool call answered by a tool message (an error where the step failed), and
the answer, if any, as a last assistant message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.tool import ToolCall, ToolCallError

from agent_assay.model import Trajectory


def from_rows(rows: Sequence[Mapping[str, Any]]) -> list[ChatMessage]:
    """Messages as `convert.message_rows` stored them."""
    out: list[ChatMessage] = []
    for row in rows:
        role, content = row.get("role"), str(row.get("content") or "")
        if role == "system":
            out.append(ChatMessageSystem(content=content))
        elif role == "user":
            out.append(ChatMessageUser(content=content))
        elif role == "assistant":
            calls = [ToolCall(id=str(c["id"]), function=str(c["function"]),
                              arguments=dict(c.get("arguments") or {}))
                     for c in row.get("tool_calls") or ()]
            out.append(ChatMessageAssistant(content=content, tool_calls=calls or None))
        elif role == "tool":
            error = row.get("error")
            out.append(ChatMessageTool(
                content=content, tool_call_id=row.get("tool_call_id"), function=row.get("function"),
                error=ToolCallError("unknown", str(error)) if error is not None else None))
    return out


def from_steps(prompt: str, trajectory: Trajectory, answer: str) -> list[ChatMessage]:
    """A trajectory with no stored dialogue, written as its calls (see the module doc)."""
    out: list[ChatMessage] = [ChatMessageUser(content=prompt)]
    for n, step in enumerate(trajectory.steps, start=1):
        call_id = f"call_{n}"
        out.append(ChatMessageAssistant(content="", tool_calls=[ToolCall(
            id=call_id, function=step.call.tool, arguments=dict(step.call.args))]))
        result = step.result if isinstance(step.result, str) else json.dumps(step.result)
        out.append(ChatMessageTool(
            content=result if step.ok else str(step.error or ""), tool_call_id=call_id,
            function=step.call.tool,
            error=None if step.ok else ToolCallError("unknown", str(step.error or "failed"))))
    if answer:
        out.append(ChatMessageAssistant(content=answer))
    return out
