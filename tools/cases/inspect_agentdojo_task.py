"""inspect_evals' AgentDojo port (banking, no sandbox, no injections) with gold written in.

The port ships its suites' data in the package, so it runs offline; what it does not put on
a sample is the user task's ground truth. This task is the port's own ``agentdojo`` task,
each sample given, in its metadata, the calls of its user task's ``ground_truth`` on the
suite's default environment (``gold_calls``, which the inspect system's oracle plays) and,
as target, the task's ground-truth answer, so a positive control exists. Dataset, setup,
solver, tools and scorer are the port's, untouched.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

SUITE = "banking"


def plain(value: Any) -> Any:
    """A ground-truth argument as JSON (the suites pass dates and numbers as they are)."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


@task
def agentdojo_banking_gold() -> Task:
    from inspect_evals.agentdojo.agentdojo import agentdojo
    from inspect_evals.agentdojo.dataset import TASK_SUITES

    built = agentdojo(with_sandbox_tasks="no", workspace=SUITE, with_injections=False)
    suite = TASK_SUITES[SUITE]
    environment = suite.load_and_inject_default_environment(suite.get_injection_vector_defaults())
    for sample in built.dataset:
        user_task = suite.user_tasks[int(sample.metadata["task_id"])]
        calls = user_task.ground_truth(environment.model_copy(deep=True))
        sample.metadata["gold_calls"] = [{"tool": c.function, "args": plain(c.arguments)}
                                         for c in calls]
        sample.target = str(user_task.GROUND_TRUTH_OUTPUT)
    return built
