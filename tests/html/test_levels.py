"""The forest plot's rows carry each control's verdict on their own metric.

A control that failed on one headline metric passed on the others; the row beside a dot
the run cleared must not read FAILED, and the control's overall status stays visible.
"""

from __future__ import annotations

from typing import Any

from agent_assay.store import StoredOutcome
from agent_assay.views.html.levels import levels, null_levels


def stored(kind: str, status: str, **payload: Any) -> StoredOutcome:
    return StoredOutcome("r", "s", "c", {"kind": kind, "status": status, **payload}, "now")


NULL = stored(
    "null_agent", "FAILED", band={"min_margin": 0.2},
    measured={"agents": {"idle": {"scores": {"solved": 0.1, "steps": 0.5},
                                  "twin_margin": {"solved": 0.7, "steps": 0.05}}}},
)
RANDOM = stored(
    "random_agent", "FAILED",
    measured={"seeds": 5, "metrics": {
        "solved": {"chance_mean": 0.1, "required_margin": 0.1, "rule": "r", "cleared": True},
        "steps": {"chance_mean": 0.5, "required_margin": 0.1, "rule": "r", "cleared": False},
    }},
)
POSITIVE = stored("positive_control", "FAILED",
                  measured={"scores": {"solved": 1.0, "steps": 0.9}})
OUTCOMES = {"null_agent": NULL, "random_agent": RANDOM, "positive_control": POSITIVE}


def test_a_failed_control_passes_the_metric_it_cleared_and_says_so() -> None:
    rows = levels(OUTCOMES, "solved", "fraction")
    assert [lv.status for lv in rows] == ["PASSED", "PASSED", "PASSED"]
    assert [lv.caption for lv in rows] == [
        "null agent idle · PASSED here (control FAILED)",
        "random agent, 5 seeds · PASSED here (control FAILED)",
        "positive control (gold replayed) · PASSED here (control FAILED)",
    ]


def test_the_metric_it_failed_reads_failed() -> None:
    rows = levels(OUTCOMES, "steps", "fraction")
    assert [lv.caption for lv in rows] == [
        "null agent idle · FAILED",
        "random agent, 5 seeds · FAILED",
        "positive control (gold replayed) · FAILED",
    ]


def test_without_a_stored_verdict_the_row_keeps_the_control_status() -> None:
    bare = stored("null_agent", "PASSED", band={"min_margin": 0.2},
                  measured={"agents": {"idle": {"scores": {"solved": 0.1}}}})
    (row,) = null_levels(bare, "solved", "fraction")
    assert row.caption == "null agent idle · PASSED"
