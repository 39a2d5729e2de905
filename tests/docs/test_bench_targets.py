"""The table of performance targets (reports/bench/targets.txt, shown in
docs/performance.md) is what tools/bench/targets.py renders from the committed figures,
and refuses figures whose recorded verdict does not follow from them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.bench import targets

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_table_is_the_committed_figures() -> None:
    committed = (ROOT / "reports/bench/targets.txt").read_text(encoding="utf-8")
    assert targets.table(ROOT / "reports") == committed


def test_a_figure_the_table_reads_moves_its_row(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "reports/bench", tmp_path / "bench")
    floor = tmp_path / "bench/floor.json"
    figures = json.loads(floor.read_text())
    figures["ratio"], figures["meets_targets"]["ratio"] = 1.5, True
    floor.write_text(json.dumps(figures))
    row = next(line for line in targets.table(tmp_path).splitlines()
               if line.startswith("harness CPU / raw-SQLite floor"))
    assert row.split()[5:9] == ["1.5", "<=", "2.0", "yes"]


def test_a_verdict_that_does_not_follow_from_its_figure_is_refused(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "reports/bench", tmp_path / "bench")
    workers = tmp_path / "bench/workers.json"
    figures = json.loads(workers.read_text())
    figures["meets_targets"]["speedup_at_2"] = not figures["meets_targets"]["speedup_at_2"]
    workers.write_text(json.dumps(figures))
    with pytest.raises(SystemExit, match=r"speedup_over_1\.2: the benchmark's verdict"):
        targets.table(tmp_path)
