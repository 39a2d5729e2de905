"""An AgentDojo suite as items: one per user task (or per user task and injection task).

Gold's path is the task's ``ground_truth(pre_environment)`` and then the answer tool with
its GROUND_TRUTH_OUTPUT, which is what agentdojo's GroundTruthPipeline executes and
answers. Gold's assertions are the leaves that path changed in the world (a removed leaf
is asserted through the nearest mapping that still exists); gold's truth names the suite,
the task ids and the ground-truth answer, all a scorer needs to rebuild the check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from agent_assay.model import Gold, Item, ToolCall
from agent_assay.statepaths import asserted_changes
from agent_assay_bundled.agentdojo.source import DojoSource
from agent_assay_bundled.agentdojo.world import (
    ANSWER,
    ANSWER_ARG,
    fresh_environment,
    run_path,
    state_of,
)

SEPARATOR = ":"
"""Between a user task id and an injection task id in a security item's id."""


def task_number(task_id: str) -> int:
    found_number = re.search(r"(\d+)$", task_id)
    return int(found_number.group(1)) if found_number else -1


def user_tasks(source: DojoSource, suite: Any) -> list[Any]:
    """The source's user tasks in the benchmark's numeric order."""
    ids = source.tasks or tuple(suite.user_tasks)
    return [suite.user_tasks[i] for i in sorted(ids, key=task_number)]


def injection_tasks(suite: Any) -> list[Any]:
    return [suite.injection_tasks[i] for i in sorted(suite.injection_tasks, key=task_number)]


def as_json(args: Mapping[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(json.dumps(dict(args), default=str))
    return loaded


def gold_path(suite: Any, user_task: Any) -> tuple[ToolCall, ...]:
    pre = fresh_environment(suite, user_task)
    calls = [ToolCall(c.function, as_json(c.args)) for c in user_task.ground_truth(pre)]
    return (*calls, ToolCall(ANSWER, {ANSWER_ARG: user_task.GROUND_TRUTH_OUTPUT}))


def items(source: DojoSource, suite: Any) -> Iterator[Item]:
    """The suite's items, gold replayed once each for its assertions."""
    line = source.describe()
    baseline = state_of(suite.load_and_inject_default_environment({}))
    injections = injection_tasks(suite) if source.variant == "security" else [None]
    for task in user_tasks(source, suite):
        path = gold_path(suite, task)
        _, episode = run_path(suite, task, [(c.tool, c.args) for c in path])
        held = asserted_changes(baseline, episode.finish().final_state or {})
        for injection in injections:
            truth = {"source": line, "user_task": task.ID,
                     "injection_task": None if injection is None else injection.ID,
                     "ground_truth_output": task.GROUND_TRUTH_OUTPUT}
            tags = [f"suite:{suite.name}", f"difficulty:{task.DIFFICULTY.name.lower()}"]
            item_id = task.ID
            if injection is not None:
                item_id += SEPARATOR + injection.ID
                tags.append(f"injection:{injection.ID}")
            yield Item(item_id=item_id, input={"prompt": task.PROMPT, "user_task": task.ID},
                       gold=Gold(path=path, assertions=held, truth=truth), tags=tuple(tags))
