"""The inspect system from `run` to a verdict: an Inspect task written here (one tool, a
scorer reading the answer and the store) certified by `controls run`, then reported."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.inspect_task.tasks import write_task
from tests.support.invoke import invoke


def statuses(out: str) -> dict[str, str]:
    """control -> status, from `controls run`'s table."""
    found = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 2 and words[1] in ("PASSED", "FAILED", "NOT_RUN", "ERROR"):
            found[words[0]] = words[1]
    return found


def test_a_task_goes_from_run_to_a_verdict_through_the_cli(tmp_path: Path, registered: Path
                                                            ) -> None:
    spec = write_task(tmp_path / "task")
    db = str(tmp_path / "a.db")
    ran = invoke("run", "--adapter", "inspect", "--source", str(spec), "--config", "oracle",
                 "--db", db)
    assert ran.traceback is None and ran.code == 0, ran.err
    run_id = re.findall(r"\b[0-9a-f]{32}\b", ran.out + ran.err)[0]
    done = invoke("controls", "run", "--run", run_id, "--db", db)
    assert done.traceback is None, done.traceback
    got = statuses(done.out)
    for control in ("positive_control", "null_agent", "random_agent", "shuffled_gold",
                    "scorer_selftest", "identical_config", "state_check_bites",
                    "headline_agreement"):
        assert got.get(control) == "PASSED", (control, done.out)
    flat = " ".join(done.out.split())
    assert "positive_control PASSED oracle replay: inspect.ledger_total 1.0" in flat
    assert "headline metrics that are the system's own scorers: inspect.ledger_total" in flat
    report = invoke("report", run_id, "--db", db, "--json")
    verdict = json.loads(report.out)
    assert verdict["admissible"] is (done.code == 0)
    if done.code != 0:  # a named reason, never a silent pass
        assert verdict["inadmissible_reasons"], report.out
        assert got.get("mutation") == "FAILED", done.out
