"""The bfcl system through the CLI: a few entries to a verdict, and one-line errors."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from pathlib import Path

import pytest

from tests.bfcl.support import need_bfcl, source
from tests.support.invoke import invoke

need_bfcl()


def test_a_few_entries_of_each_kind_reach_a_verdict(registered: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    spec = source(tmp_path, "multi_turn_miss_func@2026.3.23", (3, 7))
    built = invoke("suite", "build", "--adapter", "bfcl", "--source", str(spec), "--db", db)
    assert built.code == 0, built.err
    assert "3 items" in built.out and "multi_turn_miss_func" in built.out
    ran = invoke("run", "--adapter", "bfcl", "--config", "oracle", "--source", str(spec),
                 "--db", db)
    assert ran.code == 0, ran.err + (ran.traceback or "")
    run_id = ran.out.strip().splitlines()[-1]
    shown = invoke("report", run_id, "--db", db, "--exit-zero")
    assert shown.traceback is None
    assert "bfcl.valid" in shown.out and "INADMISSIBLE" in shown.out  # no controls yet
    assert "1.000" in shown.out  # gold's replay passes BFCL's own check


@pytest.mark.parametrize(("benchmark", "words"), [
    ("multi_turn_composite", ["unknown category 'multi_turn_composite'", "covered:",
                              "memory (", "web_search ("]),
    ("memory_kv", ["unknown category 'memory_kv'", "is left out:", "faiss"]),
    ("multi_turn_base@2025.1.1", ["version 2025.1.1 is not the installed bfcl-eval",
                                  "--no-deps"]),
])
def test_unknown_category_or_version_is_one_line(registered: Path, tmp_path: Path,
                                                 benchmark: str, words: list[str]) -> None:
    done = invoke("suite", "build", "--adapter", "bfcl", "--source",
                  str(source(tmp_path, benchmark)), "--db", str(tmp_path / "e.db"))
    assert done.code != 0 and done.traceback is None
    [line] = done.err.strip().splitlines()
    assert line.startswith("error: ") and all(w in line for w in words), line
    assert not (tmp_path / "e.db").exists() or "suite" not in done.out


def test_the_package_absent_is_one_line(registered: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def absent(name: str) -> str:
        raise PackageNotFoundError(name)

    monkeypatch.setattr("agent_assay_bundled.bfcl.source.version", absent)
    done = invoke("suite", "build", "--adapter", "bfcl", "--db", str(tmp_path / "e.db"))
    assert done.code != 0 and done.traceback is None
    [line] = done.err.strip().splitlines()
    assert "needs bfcl-eval, which is not installed" in line and "docs/bfcl.md" in line
