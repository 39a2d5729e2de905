"""Draw the performance page's plots from the committed benchmark figures.

    python -m tools.generate.perf_plots [--check] [--reports reports] [--assets docs/assets]

Two SVG files: `perf_growth.svg` (the write path's CPU per trajectory against the run's
size, and the report's CPU against the scores it covers, each beside its floor where the
benchmark measured one) and `perf_where.svg` (where the write path's and the report's CPU
goes). Each file carries the figures it was drawn from, as JSON in its description, so
`--check` can say, without drawing anything, whether a plot still shows what
reports/bench/ holds (exit 1 naming the file). Nothing in a plot is typed by hand.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from pathlib import Path
from typing import Any

from tools.docs_audit.regions import load_json

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "docs" / "assets"
REPORT_SIZES = ("small", "medium", "large")
_DESCRIPTION = re.compile(r"<dc:description>(.*?)</dc:description>", re.S)


def growth_data(reports: Path) -> dict[str, Any]:
    growth = load_json(reports, "bench/growth.json")
    report = load_json(reports, "bench/report.json")
    sizes = [*([report["tiny"]] if "tiny" in report else []),
             *(report["sizes"][label] for label in REPORT_SIZES)]
    data: dict[str, Any] = {
        "write_ms_per_trajectory": growth["ms_per_trajectory"],
        "report_cpu_seconds": {str(s["scores"]): s["report_cpu_seconds"] for s in sizes},
    }
    if "floor_ms_per_trajectory" in growth:
        data["write_floor_ms_per_trajectory"] = growth["floor_ms_per_trajectory"]
    if all("floor_cpu_seconds" in s for s in sizes):
        data["report_floor_cpu_seconds"] = {str(s["scores"]): s["floor_cpu_seconds"]
                                            for s in sizes}
    return data


def where_data(reports: Path) -> dict[str, Any]:
    large = load_json(reports, "bench/report.json")["sizes"]["large"]
    parts = ("imports", "integrity", "figures")
    spent = {part: large[f"{part}_cpu_seconds"] for part in parts}
    total = sum(spent.values())
    return {
        "write": load_json(reports, "bench/where.json")["share"],
        "report": {part: round(spent[part] / total, 4) for part in parts},
        "report_scores": large["scores"],
    }


def _by_size(figures: dict[str, float]) -> tuple[list[int], list[float]]:
    pairs = sorted((int(k), v) for k, v in figures.items())
    return [k for k, _ in pairs], [v for _, v in pairs]


def draw_growth(data: dict[str, Any], out: Path) -> None:
    import matplotlib.pyplot as plt

    fig, (write, report) = plt.subplots(1, 2, figsize=(9, 3.4))
    write.plot(*_by_size(data["write_ms_per_trajectory"]), marker="o", label="agent-assay")
    if "write_floor_ms_per_trajectory" in data:
        write.plot(*_by_size(data["write_floor_ms_per_trajectory"]), marker="s",
                   linestyle="--", label="floor")
    write.set(xscale="log", xlabel="trajectories in the run", ylim=(0, None),
              ylabel="CPU ms per trajectory", title="Write path")
    report.plot(*_by_size(data["report_cpu_seconds"]), marker="o", label="agent-assay report")
    if "report_floor_cpu_seconds" in data:
        report.plot(*_by_size(data["report_floor_cpu_seconds"]), marker="s", linestyle="--",
                    label="floor")
    report.set(xscale="log", ylim=(0, None), xlabel="scores in the run",
               ylabel="CPU seconds, whole process", title="Report")
    for axes in (write, report):
        axes.grid(alpha=0.3)
        axes.legend(frameon=False)
    _save(fig, out, data)


def draw_where(data: dict[str, Any], out: Path) -> None:
    import matplotlib.pyplot as plt

    rows = [("write path", data["write"]),
            (f"report, {data['report_scores']:,} scores", data["report"])]
    fig, axes = plt.subplots(figsize=(9, 3.2))
    colours = plt.get_cmap("tab20").colors
    colour_of: dict[str, Any] = {}
    for y, (_, shares) in enumerate(rows):
        left = 0.0
        for part, share in sorted(shares.items(), key=lambda kv: -kv[1]):
            first = part not in colour_of  # each part named once in the legend
            colour = colour_of.setdefault(part, colours[len(colour_of) % len(colours)])
            axes.barh(y, share, left=left, color=colour, edgecolor="white",
                      label=part if first else None)
            if share >= 0.06:
                axes.text(left + share / 2, y, f"{share:.0%}", ha="center", va="center",
                          fontsize=8)
            left += share
    axes.set(yticks=range(len(rows)), yticklabels=[name for name, _ in rows], xlim=(0, 1),
             xlabel="share of the CPU", title="Where the time goes")
    axes.invert_yaxis()
    axes.legend(frameon=False, fontsize=8, ncol=4, loc="upper center",
                bbox_to_anchor=(0.5, -0.38))
    _save(fig, out, data)


def _save(fig: Any, out: Path, data: dict[str, Any]) -> None:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={
        "Date": None, "Description": json.dumps(data, sort_keys=True)})
    plt.close(fig)


def drawn_from(svg: Path) -> dict[str, Any] | None:
    """The figures a committed plot says it was drawn from (None: it says none)."""
    found = _DESCRIPTION.search(svg.read_text(encoding="utf-8"))
    if found is None:
        return None
    got: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return got


PLOTS = {"perf_growth.svg": (growth_data, draw_growth),
         "perf_where.svg": (where_data, draw_where)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare each plot's figures with reports/bench; draw nothing")
    parser.add_argument("--reports", type=Path, default=ROOT / "reports")
    parser.add_argument("--assets", type=Path, default=ASSETS)
    args = parser.parse_args(argv)
    if not args.check:
        import matplotlib

        matplotlib.use("svg")
        matplotlib.rcParams["svg.hashsalt"] = "agent-assay"
    stale = []
    for name, (data_of, draw) in PLOTS.items():
        out = args.assets / name
        data = json.loads(json.dumps(data_of(args.reports), sort_keys=True))
        if args.check:
            if not out.is_file() or drawn_from(out) != data:
                stale.append(name)
        else:
            draw(data, out)
            print(f"wrote {out}")
    if stale:
        print(f"{args.assets / stale[0]} does not show the figures under "
              f"{args.reports / 'bench'}: run python -m tools.generate.perf_plots",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
