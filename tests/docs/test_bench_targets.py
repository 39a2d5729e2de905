"""The table of performance targets (reports/bench/targets.txt, shown in
docs/performance.md) is what tools/bench/targets.py renders from the committed figures,
and refuses figures whose recorded verdict does not follow from them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tools.bench import targets

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_table_is_the_committed_figures() -> None:
    committed = (ROOT / "reports/bench/targets.txt").read_text(encoding="utf-8")
    assert targets.table(ROOT / "reports") == committed


def _row(table: str, what: str) -> list[str]:
    line = next(line for line in table.splitlines() if line.startswith(what))
    return re.split(r"\s{2,}", line)


def test_a_figure_the_table_reads_moves_its_row(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "reports/bench", tmp_path / "bench")
    floor = tmp_path / "bench/floor.json"
    figures = json.loads(floor.read_text())
    figures["median"] = {"harness": 0.06, "floor": 0.04}
    figures["ratio"], figures["meets_targets"]["ratio"] = 1.5, True
    floor.write_text(json.dumps(figures))
    assert _row(targets.table(tmp_path), "write path") == [
        "write path, CPU ms per trajectory", "0.06", "0.04", "1.5",
        f"<= {figures['targets']['ratio_max']}", "yes", "make bench-floor"]


def test_a_ratio_that_is_not_its_figures_is_refused(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "reports/bench", tmp_path / "bench")
    floor = tmp_path / "bench/floor.json"
    figures = json.loads(floor.read_text())
    figures["median"] = {"harness": 0.3, "floor": 0.04}
    figures["ratio"], figures["meets_targets"]["ratio"] = 1.5, True
    floor.write_text(json.dumps(figures))
    with pytest.raises(SystemExit, match=r"ratio: the benchmark's ratio 1\.5 is not 0\.3 / 0\.04"):
        targets.table(tmp_path)


def test_a_verdict_that_does_not_follow_from_its_figure_is_refused(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "reports/bench", tmp_path / "bench")
    workers = tmp_path / "bench/workers.json"
    figures = json.loads(workers.read_text())
    figures["meets_targets"]["speedup_at_2"] = not figures["meets_targets"]["speedup_at_2"]
    workers.write_text(json.dumps(figures))
    with pytest.raises(SystemExit, match=r"speedup_over_1\.2: the benchmark's verdict"):
        targets.table(tmp_path)
