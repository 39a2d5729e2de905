"""`make bench-targets`: every target of the performance issue beside what was measured.

    python -m tools.bench.targets [--reports reports] [--out reports/bench/targets.txt]

Reads the figures the benchmarks wrote under reports/bench/ (nothing is measured here)
and writes one table: each target, the figure measured, what it was measured against in
the same benchmark (its like-for-like floor, or the other side of a comparison) and their
ratio, the target the ratio (or, for a target on the figure alone, the figure) is held to,
whether it is met, and the make target that measures it again. docs/performance.md
shows the table as a generated region, and a test renders it again from the committed
figures, so it cannot drift from them.
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
    measured: str
    """`file.json#dotted.path` of the measured figure."""
    against: str | None
    """`file.json#dotted.path` of what it is measured against in the same benchmark (its
    floor, or the other side of the comparison); None: the target is on the figure alone."""
    ratio: str | None
    """`file.json#dotted.path` of the benchmark's measured / against (None: no `against`)."""
    limit: str
    """`file.json#dotted.path` of the target the ratio (else the figure) is held to."""
    met: str
    """`file.json#dotted.path` of the benchmark's own verdict."""
    sense: str
    """'<=' or '>=': how the ratio (else the figure) must stand to the target."""
    command: str


def _on_figure(what: str, file: str, figure: str, limit: str, met: str, sense: str,
               command: str) -> Target:
    return Target(what, f"{file}#{figure}", None, None, f"{file}#{limit}", f"{file}#{met}",
                  sense, command)


def _on_ratio(what: str, file: str, measured: str, against: str, ratio: str, limit: str,
              met: str, sense: str, command: str) -> Target:
    return Target(what, f"{file}#{measured}", f"{file}#{against}", f"{file}#{ratio}",
                  f"{file}#{limit}", f"{file}#{met}", sense, command)


TARGETS = (
    _on_ratio("write path, CPU ms per trajectory", "floor.json", "median.harness",
              "median.floor", "ratio", "targets.ratio_max", "meets_targets.ratio", "<=",
              "make bench-floor"),
    _on_ratio("PostgreSQL / SQLite writer, trajectories/s", "postgres.json",
              "trajectories_per_second.median.postgresql",
              "trajectories_per_second.median.sqlite", "ratio", "targets.ratio_min",
              "meets_targets.ratio", ">=", "make bench-postgres"),
    _on_ratio("report over ~1M scores, CPU s", "report.json",
              "sizes.large.report_cpu_seconds", "sizes.large.floor_cpu_seconds",
              "sizes.large.report_over_floor", "targets.report_over_floor_max",
              "meets_targets.report_over_floor", "<=", "make bench-report"),
    _on_figure("report over ~1M scores, CPU s", "report.json",
               "sizes.large.report_cpu_seconds", "targets.report_cpu_seconds_max",
               "meets_targets.report_cpu_seconds", "<=", "make bench-report"),
    _on_figure("report over ~1M scores, peak MB", "report.json",
               "sizes.large.report_peak_rss_mb", "targets.report_peak_rss_mb_max",
               "meets_targets.report_peak_rss_mb", "<=", "make bench-report"),
    _on_figure("tiny report, CPU s", "report.json", "tiny.report_cpu_seconds",
               "targets.tiny_report_cpu_seconds_max", "meets_targets.tiny_report_cpu_seconds",
               "<=", "make bench-report"),
    _on_figure("report CPU per score, 1M over 10k", "report.json",
               "cpu_growth_per_score_largest_over_smallest", "targets.growth_at_most_linear",
               "meets_targets.growth_at_most_linear", "<=", "make bench-report"),
    _on_ratio("controls run, banking x 10, CPU s", "controls.json", "controls_cpu_seconds",
              "run_cpu_seconds", "ratio", "targets.ratio_max", "meets_targets.ratio", "<=",
              "make bench-controls"),
    _on_figure("controls run peak MB, banking x 100", "controls_100.json",
               "controls_peak_rss_mb", "targets.controls_peak_rss_mb_max",
               "meets_targets.controls_peak_rss_mb", "<=", "make bench-controls-100"),
    _on_ratio("--workers 2 / 1, banking trajectories/s", "workers.json",
              "trajectories_per_second.median.2", "trajectories_per_second.median.1",
              "speedup_over_1.2", "targets.speedup_at_2_min", "meets_targets.speedup_at_2",
              ">=", "make bench-workers"),
    _on_ratio("Inspect AI / agent-assay, CPU ms per extra sample", "inspect.json",
              "median_marginal_ms.inspect_ai", "median_marginal_ms.agent_assay", "ratio",
              "targets.ratio_min", "meets_targets.ratio", ">=", "make bench-inspect"),
)


RATIO_ROUNDING = 0.01
"""How far a recorded ratio may stand from measured / against, both rounded when written."""


def _shown(value: Any) -> str:
    return f"{value:,}" if isinstance(value, (int, float)) else str(value)


def table(reports: Path) -> str:
    """The table of every target, from the figures under `reports`/bench, read the way
    readme-check reads a generated value. A ratio is measured / against, as the benchmark
    computed it from its medians; a row whose recorded verdict does not follow from its
    figures is refused."""
    figures: dict[str, Any] = {}

    def read(ref: str | None) -> Any:
        if ref is None:
            return None
        name, path = ref.split("#")
        if name not in figures:
            figures[name] = load_json(reports, f"bench/{name}")
        return walk(figures[name], path, ref)

    rows = [("target", "measured", "against", "ratio", "held to", "met", "measured by")]
    for t in TARGETS:
        measured, against, ratio, limit, met = (
            read(ref) for ref in (t.measured, t.against, t.ratio, t.limit, t.met))
        held = measured if ratio is None else ratio
        if ratio is not None and abs(measured / against - ratio) > RATIO_ROUNDING * ratio:
            raise SystemExit(f"{t.ratio}: the benchmark's ratio {ratio} is not "
                             f"{measured} / {against}")
        if met != (held <= limit if t.sense == "<=" else held >= limit):
            raise SystemExit(f"{t.ratio or t.measured}: the benchmark's verdict {met} does "
                             f"not follow from {held} {t.sense} {limit}")
        rows.append((t.what, _shown(measured), "-" if against is None else _shown(against),
                     "-" if ratio is None else _shown(ratio), f"{t.sense} {_shown(limit)}",
                     "yes" if met else "NO", t.command))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    met_count = sum(row[5] == "yes" for row in rows[1:])
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
