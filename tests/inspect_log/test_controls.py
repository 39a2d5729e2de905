"""The controls stored data allows on an imported Inspect log, as tau-bench's: the
do-nothing agent and deranged targets through the log's scorer where agent-assay can
re-run it, the scorer self-test on the target as the answer; the rest NOT_RUN with the
reason. A task's own scorer is not re-run, and the controls that need it say so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_assay import api

NEVER = ("identical_config", "positive_control", "random_agent", "state_check_bites",
         "mutation")


def certified(log: Path, db: Path) -> dict[str, Any]:
    run_id = api.read_import("inspect", log).store(str(db)).run_id
    done = api.certify("inspect-log", store=str(db), run=run_id, allow_not_run=NEVER)
    return {o["kind"]: o for o in done.outcomes}


def test_a_built_in_scorer_is_re_run_for_the_controls(logs: dict[str, Path],
                                                       tmp_path: Path) -> None:
    found = certified(logs["good"], tmp_path / "assay.db")
    null = found["null_agent"]
    assert null["status"] == "PASSED", null["summary"]
    nothing = null["measured"]["agents"]["do_nothing"]
    assert nothing["scores"] == {"inspect.includes": 0.0} and nothing["tool_calls"] == 0
    assert nothing["passes"]["inspect.includes"] == [0, 12]
    shuffled = found["shuffled_gold"]
    assert shuffled["status"] == "PASSED", shuffled["summary"]
    assert "inspect.includes 1.0000 -> 0.0000" in shuffled["summary"]
    selftest = found["scorer_selftest"]["measured"]["scorers"]["inspect.includes"]
    assert selftest["red"] is True and selftest["went_red"] == selftest["probed"] > 0
    for kind in NEVER:
        assert found[kind]["status"] == "NOT_RUN" and "Inspect" in found[kind]["summary"]
    # What keeps an imported Inspect run inadmissible today (LIMITATIONS.md, 36): the
    # generic path scorers, with no gold path to stand on. When this changes, so do the docs.
    failed = {kind for kind, o in found.items() if o["status"] == "FAILED"}
    assert failed == {"scorer_selftest", "headline_agreement"}
    never_probed = found["scorer_selftest"]["summary"].split("never probed")[1]
    assert "trajectory.exact" in never_probed and "inspect.includes" not in never_probed


def test_a_task_s_own_scorer_leaves_those_controls_not_run(logs: dict[str, Path],
                                                           tmp_path: Path) -> None:
    found = certified(logs["custom"], tmp_path / "assay.db")
    for kind in ("null_agent", "shuffled_gold"):
        assert found[kind]["status"] == "NOT_RUN", found[kind]
        assert "does not re-run" in found[kind]["summary"]
    selftest = found["scorer_selftest"]["measured"]["scorers"]["inspect.said_code"]
    assert selftest["red"] is None  # nothing could be planted: named, not passed
