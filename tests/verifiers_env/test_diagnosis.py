"""The first failing step of an environment's own plan, named from what its rollout showed:
nothing on a correct environment, and the environment's fault on each broken copy."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("verifiers", reason="verifiers is not installed (make install adds it)")

from agent_assay_bundled.verifiers_env.diagnosis import first_failure
from agent_assay_bundled.verifiers_env.rollout import load_environment, run_rollout, tasks
from agent_assay_bundled.verifiers_env.scripted import Call, Scripted

TINY = str(Path(__file__).resolve().parents[1] / "support" / "tiny_verifiers.py")
PLAN = [Call("lookup", {"word": "abc"}), Call("submit", {"code": "cba"})]


def _verdict(flaw: str) -> str | None:
    env = load_environment(TINY, {"flaw": flaw})
    return first_failure(PLAN, run_rollout(env, tasks(env)[0], Scripted(PLAN)), 1.0)


def test_a_correct_environment_has_no_failing_step() -> None:
    assert _verdict("none") is None


@pytest.mark.parametrize(("flaw", "verdict"), [
    ("never_offered", "step 2 (submit): the tool was never offered (offered: lookup)"),
    ("raises", "step 2 (submit): the tool raised RuntimeError: the ledger is read-only"),
    ("stingy", "every step of the plan ran without error, yet the reward is 0.0 against a "
               "ceiling of 1.0: the rubric did not credit the plan"),
])
def test_each_broken_copy_is_named_by_its_first_failing_step(flaw: str, verdict: str) -> None:
    assert _verdict(flaw) == verdict


def test_a_rollout_that_ends_early_says_so() -> None:
    env = load_environment(TINY)
    task = tasks(env)[0]
    short = run_rollout(env, task, Scripted(PLAN[:1]))
    assert first_failure(PLAN, short, 1.0) == (
        "the rollout ended after step 1 of 2 (stop condition no_tools), before the plan was "
        "done")
