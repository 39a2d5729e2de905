"""Every control that does not pass tells the reader what to do next."""

from __future__ import annotations

from agent_assay.adapters.loaded import NO_REPLAY
from agent_assay.controls.next_steps import FAILED, next_step
from agent_assay.controls.registry import control_kinds
from agent_assay.views.gates import control_table


def test_every_control_kind_has_a_remedy_for_failing() -> None:
    assert set(FAILED) == set(control_kinds())
    assert all(next_step(kind, "FAILED", "") == FAILED[kind] for kind in control_kinds())
    assert next_step("mutation", "PASSED", "") == ""


def test_the_table_shows_the_remedy_under_a_red_line_only() -> None:
    rows = [
        {"kind": "identical_config", "status": "FAILED", "summary": "2 differing paths"},
        {"kind": "random_agent", "status": "NOT_RUN", "summary": NO_REPLAY, "reason": NO_REPLAY},
        {"kind": "judge_calibration", "status": "NOT_RUN", "summary": "no judge",
         "reason": "no judge", "allowed_not_run": True},
        {"kind": "null_agent", "status": "PASSED", "summary": "fine"},
    ]
    text = " ".join(control_table(rows).split())
    assert "-> next: the config is not deterministic" in text
    assert "-> next: give the system the episodes capability" in text
    assert text.count("-> next:") == 2  # nothing under the allowed NOT_RUN or the PASSED
