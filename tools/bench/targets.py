"""`make bench-targets`: every target of the performance issue beside what was measured.

    python -m tools.bench.targets [--reports reports] [--out reports/bench/targets.txt]

Reads the figures the benchmarks wrote under reports/bench/ (nothing is measured here)
and writes one table: each target, the figure measured against it, whether it is met,
and the make target that measures it again. docs/performance.md shows the table as a
generated region, and a test renders it again from the committed figures, so it cannot
drift from them.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.docs_audit.regions import load_json, walk

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Target:
    what: str
    figure: str
    """`file.json#dotted.path` of the measured figure."""
    limit: str
    """`file.json#dotted.path` of the target it is held to."""
    met: str
    """`file.json#dotted.path` of the benchmark's own verdict."""
    sense: str
    """'<=' or '>=': how the figure must stand to the target."""
    command: str


TARGETS = (
    Target("report over ~1M scores, CPU s", "report.json#sizes.large.report_cpu_seconds",
           "report.json#targets.report_cpu_seconds_max",
           "report.json#meets_targets.report_cpu_seconds", "<=", "make bench-report"),
    Target("report over ~1M scores, peak MB", "report.json#sizes.large.report_peak_rss_mb",
           "report.json#targets.report_peak_rss_mb_max",
           "report.json#meets_targets.report_peak_rss_mb", "<=", "make bench-report"),
    Target("report CPU per score, 1M over 10k",
           "report.json#cpu_growth_per_score_largest_over_smallest",
           "report.json#targets.growth_at_most_linear",
           "report.json#meets_targets.growth_at_most_linear", "<=", "make bench-report"),
    Target("controls run / one run, banking x 10", "controls.json#ratio",
           "controls.json#targets.ratio_max", "controls.json#meets_targets.ratio", "<=",
           "make bench-controls"),
    Target("controls run peak MB, banking x 100", "controls_100.json#controls_peak_rss_mb",
           "controls_100.json#targets.controls_peak_rss_mb_max",
           "controls_100.json#meets_targets.controls_peak_rss_mb", "<=",
           "make bench-controls-100"),
    Target("bytes per banking trajectory", "controls.json#run_bytes_per_trajectory",
           "controls.json#targets.bytes_per_trajectory_max",
           "controls.json#meets_targets.bytes_per_trajectory", "<=", "make bench-controls"),
    Target("--workers 2 / --workers 1, banking", "workers.json#speedup_over_1.2",
           "workers.json#targets.speedup_at_2_min", "workers.json#meets_targets.speedup_at_2",
           ">=", "make bench-workers"),
    Target("harness CPU / raw-SQLite floor", "floor.json#ratio",
           "floor.json#targets.ratio_max", "floor.json#meets_targets.ratio", "<=",
           "make bench-floor"),
    Target("Inspect AI CPU / agent-assay CPU", "inspect.json#ratio",
           "inspect.json#targets.ratio_min", "inspect.json#meets_targets.ratio", ">=",
           "make bench-inspect"),
)


def table(reports: Path) -> str:
    """The table of every target, from the figures under `reports`/bench, read the way
    readme-check reads a generated value."""
    figures: dict[str, Any] = {}

    def read(ref: str) -> Any:
        name, path = ref.split("#")
        if name not in figures:
            figures[name] = load_json(reports, f"bench/{name}")
        return walk(figures[name], path, ref)

    rows = [("target", "measured", "held to", "met", "measured by")]
    for t in TARGETS:
        figure, limit, met = (read(ref) for ref in (t.figure, t.limit, t.met))
        if met != (figure <= limit if t.sense == "<=" else figure >= limit):
            raise SystemExit(f"{t.figure}: the benchmark's verdict {met} does not follow "
                             f"from {figure} {t.sense} {limit}")
        rows.append((t.what, f"{figure:,}", f"{t.sense} {limit:,}", "yes" if met else "NO",
                     t.command))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    met_count = sum(row[3] == "yes" for row in rows[1:])
    return "\n".join([*lines, "", f"{met_count} of {len(TARGETS)} targets met"]) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=Path, default=ROOT / "reports")
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/targets.txt")
    args = parser.parse_args()
    text = table(args.reports)
    args.out.write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
