"""Facts learned from a loaded task, for the harness's `LearnsFacts` hook: which tools change
the world.

Inspect declares no such list, and a tool's name does not say it. So every sample's gold
calls are played in Inspect one prefix at a time, and a tool is mutating when adding its
call changed the sample's store. A tool gold never calls is never learned this way: the set
is a lower bound, fixed by the suite's source line, so every process learns the same set.
"""

from __future__ import annotations

from typing import Any

from agent_assay_bundled.inspect_task.episode import final_state
from agent_assay_bundled.inspect_task.items import gold_calls, samples
from agent_assay_bundled.inspect_task.source import TaskSource

_LEARNED: dict[str, tuple[str, ...]] = {}
"""source line -> its mutating tools, learned once per process."""


def mutating_tools(source: TaskSource, task: Any) -> tuple[str, ...]:
    """Tools some gold call changed the store with, sorted."""
    line = source.describe()
    if line not in _LEARNED:
        changing: set[str] = set()
        for sample in samples(source, task):
            calls = gold_calls(source, sample)
            before = final_state(task, sample.id, ()) if calls else {}
            for end in range(1, len(calls) + 1):
                after = final_state(task, sample.id, calls[:end])
                if after != before:
                    changing.add(calls[end - 1].tool)
                before = after
        _LEARNED[line] = tuple(sorted(changing))
    return _LEARNED[line]
