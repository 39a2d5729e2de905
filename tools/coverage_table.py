"""The simulated coverage of the intervals the reports print, against Wilson's.

Usage: python tools/coverage_table.py [--draws 2000] [--out reports/stats]

Agents of known success rate p on n items, 0/1 scores (k=1) and fractions (the mean of
three 0/1 repetitions, as a k=3 run gives). Each cell is the share of seeded draws whose
95% interval covers p: the exact binomial interval agent-assay prints, and Wilson's
(the interval it printed before) for contrast. Writes coverage.txt and coverage.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

from agent_assay.stats import intervals

ROOT = Path(__file__).resolve().parents[1]
RATES = (0.05, 0.3, 0.5, 0.9)
SIZES = (11, 20, 50, 104)


def wilson(values: np.ndarray) -> tuple[float, float]:
    """Wilson's interval on the rounded count (what the reports printed before)."""
    ci = binomtest(round(float(values.sum())), len(values)).proportion_ci(method="wilson")
    return float(ci.low), float(ci.high)


def cell(p: float, n: int, repetitions: int, draws: int) -> dict[str, float]:
    rng = np.random.default_rng(1000 * n + int(100 * p) + repetitions)
    exact = old = 0
    for _ in range(draws):
        values = (rng.random((n, repetitions)) < p).mean(axis=1)
        low, high = intervals.mean_interval(list(values)) or (1.0, 0.0)
        exact += low <= p <= high
        if repetitions == 1:
            low, high = wilson(values)
            old += low <= p <= high
    row = {"exact": exact / draws}
    if repetitions == 1:
        row["wilson"] = old / draws
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/stats")
    args = parser.parse_args()
    table = {
        kind: {f"p={p} n={n}": cell(p, n, reps, args.draws) for p in RATES for n in SIZES}
        for kind, reps in (("binary", 1), ("fraction_of_3", 3))
    }
    lines = [f"95% interval coverage over {args.draws} seeded draws per cell (nominal 0.95)",
             "scores         p      n     exact (printed)   wilson (before)"]
    for kind, cells in table.items():
        for name, row in cells.items():
            p, n = (part.split("=")[1] for part in name.split())
            lines.append(f"{kind:<14} {p:<6} {n:<5} {row['exact']:<17.3f} "
                         f"{row.get('wilson', float('nan')):.3f}".replace("nan", "-"))
    lowest = min(row["exact"] for cells in table.values() for row in cells.values())
    lines.append(f"lowest exact cell: {lowest:.3f}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "coverage.txt").write_text("\n".join(lines) + "\n")
    result = {"command": "make coverage", "draws": args.draws, "cells": table,
              "lowest_exact": lowest,
              "lowest_wilson": min(r["wilson"] for r in table["binary"].values())}
    (args.out / "coverage.json").write_text(json.dumps(result, sort_keys=True, indent=2) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
