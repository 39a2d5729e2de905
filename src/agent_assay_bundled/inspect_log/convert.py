"""One Inspect sample as agent-assay holds it: an item (public input, gold target) and a
trajectory (tool calls with their results, the messages, the answer, the published
scores, the cost). Pure: nothing here reads a file or touches a store.

A sample's id is its item id (as text; an integer id keeps its type in the item's input
so the exporter can write it back). Its epoch is the repetition. Every tool call an
assistant message made becomes a step, answered by the tool message that names its id;
a call no tool message answers is a failed step saying so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_assay.errors import AssayError
from agent_assay.model import Cost, Gold, Item, Step, ToolCall, Trajectory
from agent_assay_bundled.inspect_log.rules import mapped_value, shape_of, target_digest

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessage


def text_of(value: str | Sequence[ChatMessage]) -> str:
    """A sample's input as text: itself, or its messages as 'role: text' lines."""
    if isinstance(value, str):
        return value
    return "\n".join(f"{m.role}: {m.text}" for m in value)


def target_of(sample: EvalSample) -> str | list[str]:
    target = sample.target
    return target if isinstance(target, str) else [str(t) for t in target]


def item_of(sample: EvalSample, task: Mapping[str, Any]) -> Item:
    """The item: the task's identity and the sample's input public, its target gold."""
    return Item(
        item_id=str(sample.id),
        input={**task, "sample_id": sample.id, "input": text_of(sample.input),
               "choices": list(sample.choices or [])},
        gold=Gold(truth={"target": target_of(sample)}),
    )


def message_rows(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """The dialogue as stored in meta: role, text, and the tool calls or the call answered."""
    rows: list[dict[str, Any]] = []
    for m in messages:
        row: dict[str, Any] = {"role": m.role, "content": m.text}
        if m.role == "assistant" and m.tool_calls:
            row["tool_calls"] = [{"id": c.id, "function": c.function,
                                  "arguments": dict(c.arguments)} for c in m.tool_calls]
        if m.role == "tool":
            row["tool_call_id"] = m.tool_call_id
            row["function"] = m.function
            row["error"] = m.error.message if m.error is not None else None
        rows.append(row)
    return rows


def steps_of(rows: Sequence[Mapping[str, Any]]) -> tuple[Step, ...]:
    """Each call with the tool message that answers it, in the order they were made."""
    answers = {r.get("tool_call_id"): r for r in rows if r["role"] == "tool"}
    steps = []
    for row in rows:
        for call in row.get("tool_calls", ()):
            answer = answers.get(call["id"])
            tool_call = ToolCall(call["function"], call["arguments"])
            if answer is None:
                steps.append(Step(tool_call, ok=False, error="no tool message answers this call"))
            else:
                steps.append(Step(tool_call, ok=answer["error"] is None,
                                  result=answer["content"], error=answer["error"]))
    return tuple(steps)


def scores_of(sample: EvalSample, where: str) -> dict[str, dict[str, Any]]:
    """Each published score with the number it maps to; a value of an unknown shape is
    refused, naming the sample and the scorer."""
    found: dict[str, dict[str, Any]] = {}
    for key, score in (sample.scores or {}).items():
        mapped = mapped_value(score.value)
        if mapped is None:
            raise AssayError(
                f"{where}: score {key!r} is {shape_of(score.value)}, not one of C/I/P/N, "
                "a boolean or a finite number"
            )
        found[key] = {"value": score.value, "mapped": mapped, "answer": score.answer,
                      "explanation": score.explanation}
    return found


def cost_of(sample: EvalSample) -> tuple[Cost, dict[str, Any]]:
    """The model usage as a cost: the log's own total_cost where it records one (no price
    is invented), and the token counts either way."""
    usage = {model: u.model_dump(exclude_none=True) for model, u in
             (sample.model_usage or {}).items()}
    priced = [u["total_cost"] for u in usage.values() if "total_cost" in u]
    tokens = sum(int(u.get("total_tokens", 0)) for u in usage.values())
    if priced:
        return Cost(float(sum(priced)), f"Inspect's total_cost ({tokens} tokens)"), usage
    return Cost(0.0, f"no price in the Inspect log ({tokens} tokens, see meta.usage)"), usage


def trajectory_of(sample: EvalSample, gold: Gold, where: str) -> Trajectory:
    """The sample's trajectory at its epoch, published scores kept for the target they
    were judged against (see `scorers.InspectScore`)."""
    rows = message_rows(sample.messages)
    cost, usage = cost_of(sample)
    error = sample.error.message if sample.error is not None else None
    meta: dict[str, Any] = {
        "source": "inspect", "sample_id": sample.id, "epoch": sample.epoch,
        "answer": sample.output.completion if sample.output is not None else "",
        "scores": scores_of(sample, where), "target_sha256": target_digest(gold),
        "messages": rows, "usage": usage, "executed": False,
    }
    if error is not None:
        meta["crash_cause"] = "agent"
    return Trajectory(
        item_id=str(sample.id), repetition=sample.epoch, steps=steps_of(rows),
        latency_ms=float(sample.total_time or 0.0) * 1000.0, cost=cost,
        crashed=error is not None, error=error, meta=meta,
    )
