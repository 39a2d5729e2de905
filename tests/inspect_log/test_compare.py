"""Two imported logs of one task and dataset pair by sample (epochs averaged first);
logs of another task or scorer are refused as any comparison is."""

from __future__ import annotations

from pathlib import Path

from agent_assay import api
from tests.support.invoke import invoke


def both(logs: dict[str, Path], db: Path, a: str, b: str) -> tuple[str, str]:
    return tuple(api.read_import("inspect", logs[k]).store(str(db)).run_id  # type: ignore[return-value]
                 for k in (a, b))


def codes(result: api.ComparisonResult) -> set[str]:
    return {m.code for m in result.comparison.mismatches}


def test_a_worse_log_is_found_worse_paired_by_sample(logs: dict[str, Path],
                                                     tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    good, worse = both(logs, db, "good", "worse")
    result = api.compare(good, worse, store=str(db), force=True)
    # nothing but the verdicts stands between them: same suite, scorers, environment
    assert codes(result) == {"RUN_INADMISSIBLE"}
    [metric] = [m for m in result.comparison.metrics if m.metric == "inspect.includes"]
    assert metric.headline and metric.n_items == 12 and metric.differing == 8
    assert metric.mean_a == 1.0 and abs(metric.mean_b - 4 / 12) < 1e-12
    assert metric.differs and metric.ci is not None and metric.ci[1] < 0
    assert result.verdict_word == "UNSOUND"  # forced past the verdicts, and stamped so


def test_compare_refuses_unforced_and_names_why(logs: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    good, worse = both(logs, db, "good", "worse")
    done = invoke("compare", good, worse, "--db", str(db))
    assert done.traceback is None and done.code != 0
    assert "RUN_INADMISSIBLE" in done.out + done.err


def test_another_task_is_refused(logs: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    good, other = both(logs, db, "good", "other")
    result = api.compare(good, other, store=str(db))
    assert "SUITE_MISMATCH" in codes(result)
    assert result.exit_code != 0 and result.verdict_word == "REFUSED"


def test_another_scorer_is_refused(logs: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    good, matched = both(logs, db, "good", "matched")
    result = api.compare(good, matched, store=str(db))
    assert {"SUITE_MISMATCH", "SCORER_MISMATCH"} <= codes(result)
    detail = next(m.detail for m in result.comparison.mismatches if m.code == "SCORER_MISMATCH")
    assert "inspect.includes" in detail and "inspect.match" in detail


def test_two_certified_logs_compare_without_force(logs: dict[str, Path],
                                                  tmp_path: Path) -> None:
    from tests.inspect_log.test_controls import NEVER

    db = tmp_path / "assay.db"
    good, worse = both(logs, db, "good", "worse")
    for run_id in (good, worse):
        api.certify("inspect-log", store=str(db), run=run_id, allow_not_run=NEVER)
    result = api.compare(good, worse, store=str(db))
    assert codes(result) == set() and result.verdict_word != "UNSOUND"
    [metric] = [m for m in result.comparison.metrics if m.metric == "inspect.includes"]
    assert metric.differs and metric.ci is not None and metric.ci[1] < 0
