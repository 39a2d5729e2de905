"""Facts learned from a loaded AgentDojo suite, for the harness's `LearnsFacts` hook.

AgentDojo declares no list of tools that change the world, and a name does not say it:
``get_unread_emails`` marks what it returns as read. So the mutating tools are learned by
running the benchmark's own ground truths: every user task's and injection task's
``ground_truth`` is replayed call by call in a fresh world, and a tool is mutating when
one of its calls left the environment unequal (pydantic equality) to the environment
before it. A tool no ground truth calls is never learned this way; the set is a lower
bound, and the suite's source line fixes it, so every process learns the same set.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_assay_bundled.agentdojo.world import DojoEpisode


def mutating_tools(suite: Any, user_tasks: Iterable[Any]) -> tuple[str, ...]:
    """Tools some ground truth call of `user_tasks` or of the suite's injection tasks
    changed the environment with, sorted."""
    from agentdojo.base_tasks import BaseUserTask

    changing: set[str] = set()
    tasks = [*user_tasks, *suite.injection_tasks.values()]
    first = next(iter(suite.user_tasks.values()))
    for task in tasks:
        # an injection task's ground truth runs in a user task's world, as agentdojo's
        # suite check runs it (the first user task's)
        episode = DojoEpisode(suite, task if isinstance(task, BaseUserTask) else first)
        for call in task.ground_truth(episode.environment.model_copy(deep=True)):
            before = episode.environment.model_copy(deep=True)
            episode.call(call.function, dict(call.args))
            if episode.environment != before:
                changing.add(call.function)
    return tuple(sorted(changing))
