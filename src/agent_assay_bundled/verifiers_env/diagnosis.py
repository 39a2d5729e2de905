"""Why an environment's own plan, driven through the rollout path, fell short of its
ceiling: the first step that failed, named from what the rollout showed.

When the positive control (the environment's oracle plan, replayed as a model would make
its calls) cannot reach the reward the environment promises, the fault is the
environment's or the framework's, not an agent's. Saying which step failed is what makes
that verdict useful to the environment's author.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_assay_bundled.verifiers_env.rollout import Rollout
from agent_assay_bundled.verifiers_env.scripted import Call


def first_failure(plan: Sequence[Call], rollout: Rollout, ceiling: float) -> str | None:
    """The first failing step of `plan` in `rollout`, or None when its reward reached
    `ceiling`: a tool not offered when it was called, a call that raised, a rollout that
    stopped before the plan was done, or every call run and the reward still short."""
    if rollout.reward is not None and rollout.reward >= ceiling:
        return None
    raised = {error.text: error.kind for error in rollout.raised}
    turns = rollout.turns
    made = 0
    for position, turn in enumerate(turns):
        if turn.call is None:
            break
        made += 1
        step = f"step {made} ({turn.call.tool})"
        if turn.call.tool not in turn.offered:
            offered = ", ".join(turn.offered) or "no tool"
            return f"{step}: the tool was never offered (offered: {offered})"
        answers = turns[position + 1].results if position + 1 < len(turns) else ()
        if answers and answers[0] in raised:
            return f"{step}: the tool raised {raised[answers[0]]}: {answers[0]}"
    if made < len(plan):
        why = rollout.error or f"stop condition {rollout.stop}"
        return (f"the rollout ended after step {made} of {len(plan)} ({why}), before the "
                "plan was done")
    return (f"every step of the plan ran without error, yet the reward is {rollout.reward} "
            f"against a ceiling of {ceiling}: the rubric did not credit the plan")
