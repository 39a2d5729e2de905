"""A damaged log is one line naming the file and the sample, a non-zero exit, no
traceback, and nothing in the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.invoke import invoke


def damaged_json(log: Path, where: Path, edit: str) -> Path:
    data = json.loads(log.read_text())
    if edit == "drop id":
        del data["samples"][3]["id"]
    elif edit == "score schema":  # Inspect's own schema refuses a list inside a value
        data["samples"][0]["scores"]["includes"]["value"] = {"weird": [1, 2]}
    elif edit == "score shape":  # Inspect takes an object of numbers; no agreed number here
        data["samples"][0]["scores"]["includes"]["value"] = {"a": 1, "b": 0}
    elif edit == "shared id":  # another sample's id on a sample with its own input
        data["samples"][0]["id"] = data["samples"][-1]["id"]
    elif edit == "score letter":
        data["samples"][0]["scores"]["includes"]["value"] = "Q"
    where.write_text(json.dumps(data))
    return where


def refused(target: Path, db: Path) -> str:
    done = invoke("import", "inspect", str(target), "--db", str(db))
    assert done.traceback is None, done.traceback
    assert done.code != 0
    lines = done.err.strip().splitlines()
    assert len(lines) == 1, done.err
    return lines[0]


def no_runs(db: Path) -> bool:
    if not db.exists():
        return True
    from agent_assay.store import open_store

    return open_store(str(db)).list_runs() == []


def test_a_truncated_eval_log_is_one_line(logs: dict[str, Path], tmp_path: Path) -> None:
    cut = tmp_path / "cut.eval"
    data = logs["good"].read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    line = refused(cut, tmp_path / "assay.db")
    assert "cut.eval" in line and "error" in line.lower()
    assert no_runs(tmp_path / "assay.db")


def test_bad_json_is_one_line(logs: dict[str, Path], tmp_path: Path) -> None:
    cut = tmp_path / "cut.json"
    cut.write_text(logs["json"].read_text()[:5000])
    line = refused(cut, tmp_path / "assay.db")
    assert "cut.json" in line
    assert no_runs(tmp_path / "assay.db")


@pytest.mark.parametrize(("edit", "names"), [
    ("drop id", ["sample [3]", "id"]),
    ("score schema", ["sample [0]", "scores.includes.value"]),
    ("score shape", ["'s0'", "'includes'", "an object"]),
    ("score letter", ["'s0'", "'includes'", "'Q'"]),
    ("shared id", ["two samples share an id"]),
])
def test_a_damaged_sample_is_named(logs: dict[str, Path], tmp_path: Path, edit: str,
                                   names: list[str]) -> None:
    bad = damaged_json(logs["json"], tmp_path / "bad.json", edit)
    line = refused(bad, tmp_path / "assay.db")
    assert "bad.json" in line
    for name in names:
        assert name in line, line
    assert no_runs(tmp_path / "assay.db")


def test_a_damaged_log_in_a_directory_stores_none_of_its_neighbours(
        logs: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.eval").write_bytes(logs["good"].read_bytes())
    damaged_json(logs["json"], folder / "b.json", "score shape")
    line = refused(folder, tmp_path / "assay.db")
    assert "b.json" in line
    assert no_runs(tmp_path / "assay.db")


def test_a_flipped_score_is_imported_but_contradicted_aloud(logs: dict[str, Path],
                                                            tmp_path: Path) -> None:
    """A log edited to call a wrong answer correct: the published value is what the log
    says (stored as imported), and the import says the scorer re-run contradicts it."""
    data = json.loads(logs["json"].read_text())
    sample = data["samples"][0]
    sample["output"]["choices"][0]["message"]["content"] = "no idea"
    sample["output"]["completion"] = "no idea"
    sample["scores"]["includes"]["value"] = "C"
    flipped = tmp_path / "flipped.json"
    flipped.write_text(json.dumps(data))
    done = invoke("import", "inspect", str(flipped), "--db", str(tmp_path / "assay.db"))
    assert done.code == 0 and done.traceback is None, done.err
    line = next(x for x in done.err.splitlines() if "re-run by agent-assay" in x)
    assert "agrees with 23 of 24" in line and f"CONTRADICTS 1: {sample['id']}/" in line
