"""A real model as the agent: an OpenAI-compatible tool-calling loop, domain-free.

`AgentLoop` drives any chat-completions endpoint that supports ``tools``; an adapter
hands it instructions, the request, its tools as JSON-schema `ToolSpec`s and an
`execute` callback, and turns the `LoopResult` into a Trajectory with `trajectory_of`.
`local_server` starts and stops a llama.cpp server for a GGUF file on loopback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.llm.endpoint import Endpoint, is_loopback, resolve_endpoint
from agent_assay.llm.loop import (
    MALFORMED_KEY,
    AgentLoop,
    LoopResult,
    LoopSettings,
    ModelRequestRejected,
    RequestRecord,
    ToolOutcome,
    ToolSpec,
)
from agent_assay.model import Trajectory

__all__ = [
    "MALFORMED_KEY",
    "AgentLoop",
    "Endpoint",
    "LoopResult",
    "LoopSettings",
    "ModelRequestRejected",
    "RequestRecord",
    "ToolOutcome",
    "ToolSpec",
    "is_loopback",
    "resolve_endpoint",
    "trajectory_of",
]


def trajectory_of(
    result: LoopResult,
    *,
    item_id: str,
    repetition: int,
    final_state: Mapping[str, Any] | None,
    outcome: str | None,
    latency_ms: float,
) -> Trajectory:
    """The episode as the harness stores it; request records and usage go to meta."""
    return Trajectory(
        item_id=item_id,
        repetition=repetition,
        steps=result.steps,
        final_state=final_state,
        outcome=outcome,
        latency_ms=latency_ms,
        cost=result.cost(),
        meta=result.meta(),
    )
