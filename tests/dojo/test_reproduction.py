"""tools/cases/reproduce_agentdojo.py: our utility against AgentDojo's own pipeline, with ==, and
a planted disagreement printed as a mismatch rather than "reproduced to the digit"."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agentdojo", reason="agentdojo is not installed (make install adds the "
                    "agentdojo extra)")

from tools.cases import reproduce_agentdojo

TASKS = ["user_task_0", "user_task_5"]  # banking: the first fails doing nothing, the second passes


def test_agreement_is_reproduced_to_the_digit() -> None:
    tool = reproduce_agentdojo
    rows = tool.compare("banking", "v1.2.2", TASKS)
    text, agreed = tool.render("banking", "v1.2.2", rows)
    assert agreed
    assert [(r.ours_gold, r.theirs_gold, r.ours_nothing, r.theirs_nothing) for r in rows] == [
        (1.0, True, 0.0, False), (1.0, True, 1.0, True)]
    assert text.endswith("banking: reproduced to the digit (2 tasks; AgentDojo's ground truth "
                         "passes 2, doing nothing passes 1)")


def test_a_planted_difference_is_printed_as_a_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = reproduce_agentdojo
    real = tool.theirs

    def flipped(suite: Any, task_id: str) -> tuple[bool, bool]:
        gold, nothing = real(suite, task_id)
        return gold, (not nothing) if task_id == "user_task_0" else nothing

    monkeypatch.setattr(tool, "theirs", flipped)
    text, agreed = tool.render("banking", "v1.2.2", tool.compare("banking", "v1.2.2", TASKS))
    assert not agreed
    assert "reproduced to the digit" not in text
    assert "  user_task_0          1.0      True          0.0      True  MISMATCH" in text
    assert text.endswith("banking: MISMATCH on 1 task(s): user_task_0")
