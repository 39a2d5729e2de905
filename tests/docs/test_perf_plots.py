"""The performance page's plots (docs/assets/perf_*.svg) show the committed benchmark
figures: each plot carries the figures it was drawn from, and the check compares them with
reports/bench/, so a plot left behind by a new measurement is named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.generate import perf_plots

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_plots_show_the_committed_figures() -> None:
    assert perf_plots.main(["--check"]) == 0


def test_a_new_figure_makes_its_plot_stale(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(ROOT / "reports/bench", tmp_path / "bench")
    where = tmp_path / "bench/where.json"
    figures = json.loads(where.read_text())
    part = next(iter(figures["share"]))
    figures["share"][part] = round(figures["share"][part] + 0.01, 4)
    where.write_text(json.dumps(figures))
    assert perf_plots.main(["--check", "--reports", str(tmp_path)]) == 1
    assert "perf_where.svg does not show the figures" in capsys.readouterr().err


def test_a_drawn_plot_carries_what_it_was_drawn_from(tmp_path: Path) -> None:
    assert perf_plots.main(["--assets", str(tmp_path)]) == 0
    for name, (data_of, _) in perf_plots.PLOTS.items():
        drawn = perf_plots.drawn_from(tmp_path / name)
        assert drawn == json.loads(json.dumps(data_of(ROOT / "reports"), sort_keys=True))
    assert perf_plots.main(["--check", "--assets", str(tmp_path)]) == 0
