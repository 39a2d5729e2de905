"""valid-action through its own rollout path: the tool a task says it shows, the one its
oracle plan starts with, is never offered to the model, so no policy can earn the reward
the environment's offline oracle gets (1.0 on every world)."""

from __future__ import annotations

import pytest

pytest.importorskip("verifiers", reason="verifiers is not installed (make install adds it)")
pytest.importorskip("valid_action", reason="valid-action is not installed: make install "
                    "installs it from ../shared/data/valid-action when that folder is there")

from agent_assay_bundled.verifiers_env.diagnosis import first_failure
from agent_assay_bundled.verifiers_env.rollout import load_environment, run_rollout, tasks
from agent_assay_bundled.verifiers_env.scripted import Call, Scripted


def test_the_create_tool_a_task_shows_is_never_offered() -> None:
    env = load_environment("valid_action", {"num_eval": 2})
    for task in tasks(env):
        shown = task.task["toolsets"]["action_create"]["show"]
        assert len(shown) == 1 and shown[0].startswith("create_")
        request = task.task["info"]["world"]["action_request"]
        plan = [Call(shown[0], {"entity_id": request["entity_id"],
                                "effective_date": request["action_date"]})]
        done = run_rollout(env, task, Scripted(plan))
        offered = done.offered_ever()
        assert offered and not any(name.startswith("create_") for name in offered), offered
        assert done.reward == 0.0
        verdict = first_failure(plan, done, 1.0)
        assert verdict is not None
        assert verdict.startswith(f"step 1 ({shown[0]}): the tool was never offered"), verdict
