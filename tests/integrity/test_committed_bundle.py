"""The committed evidence bundle verifies here, on a machine that never saw its database,
and renders the same report the database did when the artifacts were made."""

from __future__ import annotations

from pathlib import Path

from tests.support.invoke import invoke

REPORTS = Path(__file__).resolve().parents[2] / "reports" / "synthworld"
BUNDLE = REPORTS / "evidence_auditor.jsonl"


def test_the_committed_bundle_verifies() -> None:
    checked = invoke("verify", str(BUNDLE))
    assert checked.traceback is None, checked.traceback
    assert checked.code == 0, checked.out + checked.err
    assert checked.out.splitlines()[-1] == "verify: 1 run(s), 0 finding(s) -- nothing is off"


def test_the_bundle_renders_the_report_the_database_did() -> None:
    shown = invoke("report", str(BUNDLE), "--headline-only")
    assert shown.code == 3, shown.err  # the auditor's run is INADMISSIBLE
    assert shown.out == (REPORTS / "report_auditor.txt").read_text()
