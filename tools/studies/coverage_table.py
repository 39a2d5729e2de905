"""The simulated coverage of the intervals the reports print, by metric kind.

Usage: python -m tools.studies.coverage_table [--draws 2000] [--out reports/stats]

Every cell draws n items of a known shape (binary p, fractions, counts, measures) and asks
`stats.intervals.mean_interval` for the interval on their mean, with the kind a scorer of
that shape declares, as the reports do. A cell's coverage is the share of its printed
intervals that hold the true mean; its refused share is the share of draws given no
interval. A cell where more than half the draws are refused is marked refused and is not
held to the bar (its coverage still shows how the printed minority did); every other cell
must cover at least 0.93. Binary cells also show Wilson's interval on the rounded count,
which the reports printed before the exact one. Writes coverage.txt and coverage.json;
exits 1 when a cell held to the bar falls below it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest

from agent_assay.scoring.base import ScoreKind
from agent_assay.stats import intervals

ROOT = Path(__file__).resolve().parents[2]
SIZES = (11, 20, 50, 104, 500)
BAR = 0.93
REFUSED_ABOVE = 0.5
Sampler = Callable[[np.random.Generator, int, int], np.ndarray]
"""(generator, draws, n) -> a draws x n array of item values."""


@dataclass(frozen=True)
class Shape:
    kind: ScoreKind
    name: str
    truth: float
    draw: Sampler


def _binary(p: float) -> Sampler:
    return lambda rng, d, n: (rng.random((d, n)) < p).astype(np.float64)


def _mean_of_3(p: float) -> Sampler:
    return lambda rng, d, n: (rng.random((d, n, 3)) < p).mean(axis=2)


def _lognormal(sigma: float) -> Sampler:
    return lambda rng, d, n: rng.lognormal(0.0, sigma, (d, n))


def _pareto(alpha: float) -> Sampler:
    """Pareto with minimum 1 (mean alpha / (alpha - 1)); skewness is infinite for alpha <= 3."""
    return lambda rng, d, n: (1.0 - rng.random((d, n))) ** (-1.0 / alpha)


def _negbin(mean: float, size: float) -> Sampler:
    return lambda rng, d, n: rng.negative_binomial(size, size / (size + mean), (d, n)) * 1.0


SHAPES: tuple[Shape, ...] = (
    *(Shape("binary", f"p={p}", p, _binary(p)) for p in (0.05, 0.3, 0.5, 0.9)),
    *(Shape("fraction", f"mean_of_3(p={p})", p, _mean_of_3(p)) for p in (0.05, 0.3, 0.9)),
    Shape("fraction", "beta(2,5)", 2 / 7, lambda rng, d, n: rng.beta(2.0, 5.0, (d, n))),
    Shape("fraction", "beta(5,1)", 5 / 6, lambda rng, d, n: rng.beta(5.0, 1.0, (d, n))),
    Shape("count", "poisson(0.2)", 0.2, lambda rng, d, n: rng.poisson(0.2, (d, n)) * 1.0),
    Shape("count", "poisson(0.2)_mean_of_3", 0.2,
          lambda rng, d, n: rng.poisson(0.2, (d, n, 3)).mean(axis=2)),
    Shape("count", "2_or_3(p3=0.2)", 2.2, lambda rng, d, n: 2.0 + (rng.random((d, n)) < 0.2)),
    Shape("count", "poisson(3)", 3.0, lambda rng, d, n: rng.poisson(3.0, (d, n)) * 1.0),
    Shape("count", "negbin(mean=1.5,size=0.5)", 1.5, _negbin(1.5, 0.5)),
    Shape("measure", "normal(10,3)", 10.0, lambda rng, d, n: rng.normal(10.0, 3.0, (d, n))),
    *(Shape("measure", f"lognormal(sigma={s})", float(np.exp(s * s / 2)), _lognormal(s))
      for s in (0.5, 1.0, 1.5)),
    *(Shape("measure", f"pareto(alpha={a})", a / (a - 1), _pareto(a)) for a in (3.0, 2.2)),
    Shape("measure", "money(70%_zero)", 0.3 * 0.02 * float(np.exp(0.5)),
          lambda rng, d, n: (rng.random((d, n)) >= 0.7) * 0.02 * rng.lognormal(0, 1, (d, n))),
)
"""money: 70% of items cost nothing, the rest 0.02 x lognormal(sigma=1)."""


def wilson(values: np.ndarray) -> tuple[float, float]:
    """Wilson's interval on the rounded count (what the reports printed before)."""
    ci = binomtest(round(float(values.sum())), len(values)).proportion_ci(method="wilson")
    return float(ci.low), float(ci.high)


def cell(shape: Shape, n: int, draws: int, seed: int) -> dict[str, Any]:
    """One cell: every draw through `mean_interval` with the shape's kind."""
    samples = shape.draw(np.random.default_rng([seed, n]), draws, n)
    printed = covered = wilson_covered = 0
    for values in samples:
        ci = intervals.mean_interval(values.tolist(), shape.kind)
        if ci is not None:
            printed += 1
            covered += ci[0] <= shape.truth <= ci[1]
        if shape.kind == "binary":
            low, high = wilson(values)
            wilson_covered += low <= shape.truth <= high
    refused = 1 - printed / draws
    coverage = covered / printed if printed else None
    status = ("refused" if refused > REFUSED_ABOVE
              else "ok" if coverage is not None and coverage >= BAR else "BELOW")
    row: dict[str, Any] = {"truth": shape.truth, "printed": printed, "refused_share": refused,
                           "coverage": coverage, "status": status}
    if shape.kind == "binary":
        row["wilson"] = wilson_covered / draws
    return row


def grid(draws: int) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
    """kind -> shape -> n -> cell, printing progress to stderr."""
    table: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    start = time.monotonic()
    for seed, shape in enumerate(SHAPES):
        table.setdefault(shape.kind, {})[shape.name] = {
            str(n): cell(shape, n, draws, seed) for n in SIZES
        }
        print(f"  {shape.kind:<9} {shape.name:<28} done at {time.monotonic() - start:5.0f} s",
              file=sys.stderr)
    return table


def _cells(table: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    return [(kind, name, n, row) for kind, shapes in table.items()
            for name, by_n in shapes.items() for n, row in by_n.items()]


def summary(table: dict[str, Any]) -> dict[str, Any]:
    """What a doc reads: the lowest coverage held to the bar, per kind and overall, and
    which cells were refused and how their printed minority did."""
    rows = _cells(table)
    held = [(r["coverage"], f"{k} {s} n={n}") for k, s, n, r in rows if r["status"] != "refused"]
    refused = [(k, s, n, r) for k, s, n, r in rows if r["status"] == "refused"]
    by_kind = {
        kind: min(r["coverage"] for k, _, _, r in rows if k == kind and r["status"] != "refused")
        for kind in table
    }
    exact = [r["coverage"] for k, _, _, r in rows if k in ("binary", "fraction")]
    minority = [r["coverage"] for *_, r in refused if r["coverage"] is not None]
    return {
        "cells_total": len(rows),
        "lowest_printed_coverage": min(held)[0],
        "lowest_printed_cell": min(held)[1],
        "lowest_by_kind": by_kind,
        "lowest_exact": min(exact),
        "lowest_wilson": min(r["wilson"] for k, _, _, r in rows if k == "binary"),
        "below_bar": [name for c, name in held if c < BAR],
        "refused_cells": len(refused),
        "refused": [f"{k} {s} n={n}" for k, s, n, _ in refused],
        "refused_minority_lowest_coverage": min(minority) if minority else None,
        "highest_refused_share_printed_cell": max(
            (r["refused_share"] for *_, r in rows if r["status"] != "refused"), default=0.0),
    }


def text(table: dict[str, Any], result: dict[str, Any], draws: int) -> str:
    lines = [
        f"95% interval coverage through stats.intervals.mean_interval, {draws} seeded draws "
        f"per cell (nominal 0.95, bar {BAR})",
        "coverage = share of printed intervals holding the true mean; refused = share of "
        "draws given no interval.",
        f"A cell with more than {REFUSED_ABOVE:.0%} of its draws refused is 'refused' and "
        "is not held to the bar; its coverage column is the printed minority's.",
        "",
        f"{'kind':<9} {'shape':<27} {'n':>4}  {'refused':>7}  {'coverage':>8}  {'status':<8} "
        f"{'wilson (before)':>15}",
    ]
    for kind, shape, n, row in _cells(table):
        coverage = "-" if row["coverage"] is None else f"{row['coverage']:.3f}"
        before = f"{row['wilson']:.3f}" if "wilson" in row else ""
        lines.append(f"{kind:<9} {shape:<27} {n:>4}  {row['refused_share']:>7.3f}  "
                     f"{coverage:>8}  {row['status']:<8} {before:>15}".rstrip())
    lines += [
        "",
        f"lowest coverage held to the bar: {result['lowest_printed_coverage']:.3f} "
        f"({result['lowest_printed_cell']})",
        "lowest by kind: " + ", ".join(f"{k} {v:.3f}"
                                       for k, v in result["lowest_by_kind"].items()),
        f"cells below the bar: {len(result['below_bar'])}"
        + (f" ({', '.join(result['below_bar'])})" if result["below_bar"] else ""),
        f"refused cells: {result['refused_cells']} of {result['cells_total']}"
        + ("" if result["refused_minority_lowest_coverage"] is None else
           f"; their printed minority covered as little as "
           f"{result['refused_minority_lowest_coverage']:.3f}"),
        f"lowest exact (binary, fraction) cell: {result['lowest_exact']:.3f}; "
        f"lowest Wilson cell: {result['lowest_wilson']:.3f}",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/stats")
    args = parser.parse_args()
    table = grid(args.draws)
    result = summary(table)
    report = text(table, result, args.draws)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "coverage.txt").write_text(report)
    document = {"command": "make coverage", "draws": args.draws, "sizes": list(SIZES),
                "bar": BAR, "refused_above": REFUSED_ABOVE, "cells": table} | result
    (args.out / "coverage.json").write_text(json.dumps(document, sort_keys=True, indent=2)
                                            + "\n")
    print(report, end="")
    return 1 if result["below_bar"] else 0


if __name__ == "__main__":
    sys.exit(main())
