"""Importing real Inspect logs: samples are items, epochs repetitions, scores imported
metrics; a log imported twice is the same run and suite."""

from __future__ import annotations

import shutil
from pathlib import Path

from agent_assay import api
from agent_assay.store import open_store


def imported(log: Path, db: Path) -> str:
    return api.read_import("inspect", log).store(str(db)).run_id


def test_samples_epochs_scores_and_cost_are_mapped(logs: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    run_id = imported(logs["worse"], db)
    store = open_store(str(db))
    run = store.get_run(run_id)
    assert run.adapter == "inspect-log" and run.repeats == 2
    assert sorted(run.item_ids) == sorted(f"s{i}" for i in range(12))
    trajectories = store.trajectories(run_id)
    assert len(trajectories) == 24
    assert {t.repetition for t in trajectories} == {1, 2}
    first = trajectories[0]
    assert [s.call.tool for s in first.steps] == ["lookup"]
    assert first.steps[0].ok and "balance of A0" in str(first.steps[0].result)
    assert "10 tokens" in first.cost.reason  # two mock outputs of 5 tokens each
    scores = [s for s in store.current_scores(run_id) if s.scorer == "inspect.includes"]
    assert len(scores) == 24 and all(s.imported for s in scores)
    by_item = {s.item_id: s.value for s in scores}
    assert by_item["s0"] == 0.0 and by_item["s11"] == 1.0
    assert sum(s.value or 0 for s in scores) == 8  # 4 right samples x 2 epochs


def test_a_log_imported_twice_is_one_run_and_one_suite(logs: dict[str, Path],
                                                      tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    first, again = imported(logs["good"], db), imported(logs["good"], db)
    assert first == again
    elsewhere = tmp_path / "other.db"
    other = imported(logs["good"], elsewhere)
    a, b = open_store(str(db)).get_run(first), open_store(str(elsewhere)).get_run(other)
    assert (a.suite_hash, a.config_hash) == (b.suite_hash, b.config_hash)
    assert len(open_store(str(db)).trajectories(first)) == 24


def test_the_same_task_in_json_and_eval_is_one_suite(logs: dict[str, Path],
                                                    tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    store_runs = [imported(logs[k], db) for k in ("good", "json", "other")]
    store = open_store(str(db))
    good, json_log, other = (store.get_run(r) for r in store_runs)
    assert good.suite_hash == json_log.suite_hash  # content-addressed: task and samples
    assert good.suite_hash != other.suite_hash  # another task is another suite


def test_a_directory_imports_each_log_as_its_own_run(logs: dict[str, Path],
                                                    tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for key in ("good", "other"):
        shutil.copy(logs[key], folder / f"{key}.eval")
    report = api.read_import("inspect", folder).store(str(tmp_path / "assay.db"))
    run_ids = report.run_id.splitlines()
    assert len(run_ids) == 2 and len(set(run_ids)) == 2
    assert sum("imported from" in line for line in report.lines) == 2


def test_the_report_names_the_imported_headline(logs: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    report = api.report(imported(logs["good"], db), store=str(db))
    assert report.verdict.word == "INADMISSIBLE"  # no control has run on it yet
    assert any(line.startswith("inspect.includes * (imported)")
               for line in report.text.splitlines()), report.text
