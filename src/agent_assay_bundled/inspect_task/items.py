"""An Inspect task's samples as items: one item per sample, in the dataset's order.

The item id is the sample's id as a string; Inspect allows a sample without one (it then
numbers them itself), but an item id must name the same sample in every process and every
release, so a missing or repeated id is refused, naming the task and the sample. The public
input is the sample's input as text. Gold is the sample's target (``truth["target"]``) and
a path: the calls the sample's metadata names (`TaskSource.gold_calls`, when present),
then the answer tool carrying the first target, which is what the ``oracle`` config plays.
Gold's assertions are the store entries that path changes in Inspect, against the sample
run with no call (a removed entry is asserted through the nearest mapping still there), so
each sample is run twice in Inspect while the suite is built.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from agent_assay.errors import AssayError, EnvironmentFailed
from agent_assay.model import Gold, Item, ToolCall
from agent_assay.statepaths import asserted_changes
from agent_assay_bundled.inspect_task.episode import final_state
from agent_assay_bundled.inspect_task.source import TaskSource
from agent_assay_bundled.inspect_task.tools import ANSWER, ANSWER_ARG


def samples(source: TaskSource, task: Any) -> list[Any]:
    """The task's samples (the first `limit`), each with a distinct id."""
    chosen = list(task.dataset)[: source.limit]
    seen: set[str] = set()
    for number, sample in enumerate(chosen, 1):
        if sample.id is None:
            raise AssayError(f"task {source.label}: sample {number} (input "
                             f"{text_of(sample.input)[:40]!r}) has no id")
        if str(sample.id) in seen:
            raise AssayError(f"task {source.label}: sample {number} repeats the id "
                             f"{str(sample.id)!r}")
        seen.add(str(sample.id))
    return chosen


def sample_named(source: TaskSource, task: Any, item_id: str) -> Any:
    for sample in samples(source, task):
        if str(sample.id) == item_id:
            return sample
    raise AssayError(f"task {source.label} has no sample {item_id!r}")


def text_of(value: Any) -> str:
    """A sample input (a string or chat messages) as one text."""
    if isinstance(value, str):
        return value
    return "\n\n".join(f"{message.role}: {message.text}" for message in value)


def targets(sample: Any) -> list[str]:
    target = sample.target
    return [target] if isinstance(target, str) else [str(t) for t in target]


def gold_calls(source: TaskSource, sample: Any) -> tuple[ToolCall, ...]:
    """The calls the sample's metadata names as gold (none when the key is absent)."""
    listed = (sample.metadata or {}).get(source.gold_calls)
    if listed is None:
        return ()
    if not isinstance(listed, list) or not all(_is_call(c) for c in listed):
        raise AssayError(f"task {source.label}: sample {sample.id!r}: metadata "
                         f"{source.gold_calls!r} must be a list of {{tool, args}}")
    return tuple(ToolCall(c["tool"], dict(c.get("args") or {})) for c in listed)


def _is_call(value: object) -> bool:
    return (isinstance(value, Mapping) and isinstance(value.get("tool"), str)
            and isinstance(value.get("args") or {}, Mapping))


def gold_path(source: TaskSource, sample: Any) -> tuple[ToolCall, ...]:
    answer = (targets(sample) or [""])[0]
    return (*gold_calls(source, sample), ToolCall(ANSWER, {ANSWER_ARG: answer}))


def items(source: TaskSource, task: Any) -> Iterator[Item]:
    line = source.describe()
    for sample in samples(source, task):
        path = gold_path(source, sample)
        try:
            held = asserted_changes(final_state(task, sample.id, ()),
                              final_state(task, sample.id, path))
        except EnvironmentFailed as exc:
            raise AssayError(f"task {source.label}: sample {sample.id!r} cannot run: "
                             f"{exc}") from None
        truth = {"source": line, "sample_id": str(sample.id), "target": targets(sample)}
        yield Item(item_id=str(sample.id), input={"prompt": text_of(sample.input)},
                   gold=Gold(path=path, assertions=held, truth=truth),
                   tags=(f"task:{task.name}",))
