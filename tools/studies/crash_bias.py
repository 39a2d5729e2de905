"""How far crashed repetitions move pass^k, pass@k and the mean, before and after the rule.

Usage: python -m tools.studies.crash_bias [--sims 400] [--out reports/stats]

Agents of known per-item success rates (uniform on 0..1, 200 items, k=3) whose failures
are, in some share, crashes on which the scorer is n/a, and whose slots the harness loses
at some rate, independently of the agent. Each cell is the mean error over seeded
simulations against the truth (the mean over items of p^3, 1 - (1 - p)^3 and p): with
what was done before (a repetition without a value is left out) and with the rule in
`agent_assay.stats.crashes` (the agent's crash fails, the harness's measures nothing).
Writes crash_bias.txt and crash_bias.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

from agent_assay.model import AGENT_CRASH, HARNESS_CRASH, CrashCause
from agent_assay.stats.crashes import treat
from agent_assay.stats.passrates import pass_at_k, pass_hat_k

ROOT = Path(__file__).resolve().parents[2]
ITEMS, K = 200, 3
SCENARIOS = (
    ("failures answered", 0.0, 0.0),
    ("3 in 10 failures crash", 0.3, 0.0),
    ("every failure crashes", 1.0, 0.0),
    ("3 in 10 crash, harness loses 1 in 10", 0.3, 0.1),
)
FIGURES = ("pass^3", "pass@3", "mean")


def figures(items: npt.NDArray[np.int32], passed: npt.NDArray[np.bool_]) -> list[float]:
    """pass^k and pass@k over the items with k verdicts, and the mean of the item means."""
    n = np.bincount(items, minlength=ITEMS)
    c = np.bincount(items, weights=passed, minlength=ITEMS).astype(int)
    full = [(int(a), int(b)) for a, b in zip(n, c, strict=True) if a >= K]
    seen = n > 0
    return [float(np.mean([pass_hat_k(a, b, K) for a, b in full])),
            float(np.mean([pass_at_k(a, b, K) for a, b in full])),
            float(np.mean(c[seen] / n[seen]))]


def simulate(crash_share: float, harness_rate: float, rng: np.random.Generator
             ) -> tuple[list[float], list[float]]:
    """One simulated run: the errors of (before, with the rule) against the truth."""
    p = rng.uniform(0.0, 1.0, ITEMS)
    items = np.repeat(np.arange(ITEMS, dtype=np.int32), K)
    reps = np.tile(np.arange(1, K + 1, dtype=np.int32), ITEMS)
    success = rng.uniform(size=ITEMS * K) < p[items]
    crash = ~success & (rng.uniform(size=ITEMS * K) < crash_share)
    lost = rng.uniform(size=ITEMS * K) < harness_rate
    values = success.astype(np.float64)
    values[crash | lost] = np.nan  # the scorer is n/a on a crashed trajectory
    causes: dict[tuple[int, int], CrashCause] = {
        (int(items[i]), int(reps[i])): HARNESS_CRASH if lost[i] else AGENT_CRASH
        for i in np.flatnonzero(crash | lost)
    }
    known = ~np.isnan(values)
    before = figures(items[known], values[known] == 1.0)
    treated = treat("binary", items, reps, values, causes)
    judged = treated.verdicts >= 0
    after = figures(treated.items[judged], treated.verdicts[judged] == 1)
    truth = [float(np.mean(p**K)), float(np.mean(1 - (1 - p) ** K)), float(np.mean(p))]
    return ([b - t for b, t in zip(before, truth, strict=True)],
            [a - t for a, t in zip(after, truth, strict=True)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=400)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/stats")
    args = parser.parse_args()
    rng = np.random.default_rng(36)
    cells: dict[str, dict[str, dict[str, float]]] = {}
    for name, crash_share, harness_rate in SCENARIOS:
        runs = [simulate(crash_share, harness_rate, rng) for _ in range(args.sims)]
        cells[name] = {}
        for which, errors in (("before", [r[0] for r in runs]), ("rule", [r[1] for r in runs])):
            table = np.array(errors)
            cells[name][which] = {figure: float(np.mean(table[:, j]))
                                  for j, figure in enumerate(FIGURES)}
            cells[name][f"{which}_se"] = {
                figure: float(np.std(table[:, j], ddof=1) / np.sqrt(args.sims))
                for j, figure in enumerate(FIGURES)}
    lines = [f"mean error against the truth over {args.sims} seeded runs "
             f"({ITEMS} items, k={K}; +/- one standard error)",
             f"{'scenario':<38} {'figure':<7} {'before':>16} {'with the rule':>16}"]
    for name, cell in cells.items():
        for figure in FIGURES:
            lines.append(
                f"{name:<38} {figure:<7} "
                f"{cell['before'][figure]:>+8.4f} +/- {cell['before_se'][figure]:.4f} "
                f"{cell['rule'][figure]:>+8.4f} +/- {cell['rule_se'][figure]:.4f}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "crash_bias.txt").write_text("\n".join(lines) + "\n")
    result = {"command": "make crash-bias", "sims": args.sims, "items": ITEMS, "k": K,
              "cells": cells,
              "before_pass_hat_3_at_3_in_10": cells[SCENARIOS[1][0]]["before"]["pass^3"],
              "largest_rule_error": max(abs(v) for cell in cells.values()
                                        for v in cell["rule"].values())}
    (args.out / "crash_bias.json").write_text(json.dumps(result, sort_keys=True, indent=2) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
