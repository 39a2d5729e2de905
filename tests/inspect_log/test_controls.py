"""The controls stored data allows on an imported Inspect log, as tau-bench's: the
do-nothing agent and deranged targets through the log's scorer where agent-assay can
re-run it, the scorer self-test on the target as the answer; the rest NOT_RUN with the
reason, so the run is at best ADMISSIBLE WITH WAIVERS, each named. A task's own scorer is
not re-run, and the controls that need it say so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_assay import api

NEVER = ("identical_config", "positive_control", "random_agent", "state_check_bites",
         "mutation")


def certification(log: Path, db: Path) -> api.Certification:
    run_id = api.read_import("inspect", log).store(str(db)).run_id
    return api.certify("inspect-log", store=str(db), run=run_id, allow_not_run=NEVER)


def certified(log: Path, db: Path) -> dict[str, Any]:
    return {o["kind"]: o for o in certification(log, db).outcomes}


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
    # gold is a target answer (gold_paths=False): no generic path scorer is in the set, so
    # none sits never-probed in the self-test or lends headline_agreement a blind lens
    assert not {kind for kind, o in found.items() if o["status"] == "FAILED"}
    assert "trajectory.exact" not in found["scorer_selftest"]["measured"]["scorers"]


def test_an_imported_log_is_admissible_only_with_every_missing_control_waived(
        logs: dict[str, Path], tmp_path: Path) -> None:
    verdict = certification(logs["good"], tmp_path / "assay.db").verdict
    assert verdict.word == "ADMISSIBLE WITH WAIVERS"
    for kind in NEVER:
        assert any(kind in waiver for waiver in verdict.waivers), (kind, verdict.waivers)


def test_a_task_s_own_scorer_leaves_those_controls_not_run(logs: dict[str, Path],
                                                           tmp_path: Path) -> None:
    found = certified(logs["custom"], tmp_path / "assay.db")
    for kind in ("null_agent", "shuffled_gold"):
        assert found[kind]["status"] == "NOT_RUN", found[kind]
        assert "does not re-run" in found[kind]["summary"]
    selftest = found["scorer_selftest"]["measured"]["scorers"]["inspect.said_code"]
    assert selftest["red"] is None  # nothing could be planted: named, not passed
