"""Does a planned comparison reach the power `plan` promises, judged by compare's own test?

Usage: python -m tools.studies.stats_power [--draws 2000] [--out reports/stats/power.json]

Each design is a known generative model of two agents' item rates (or item means), an
effect and a number of repetitions. A pilot run of one agent (104 items, k=3, as the
banking runs have) is drawn from the model and planned from with `views.planning.size_from`,
the function `plan` calls; then `--draws` paired comparisons at the planned number of
items are drawn from the model with the effect, and each is judged by
`stats.paired.paired_difference`, the test `compare` runs. Achieved power is the share
judged significant at alpha, with its binomial standard error.

Beside it: the power the plan's own power function gives at the model's true spread
(which separates the test from the pilot's luck), and the power when an assumption is
wrong: a simulated one with the agents sharing none of the item effects, and the plan's
computed ones for a within or between variance 1.5 times the pilot's. In the JSON too:
the items the pilot's own estimate would need (what the margin for its uncertainty costs),
and the power at the true spread of the items a plan would ask for if it took both agents
to be as noisy as the pilot, as the sizing before #36 did (what carrying the noise to the
other agent's mean is for). Writes power.json and power.txt next to each other.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from agent_assay.stats.paired import paired_difference
from agent_assay.stats.power import (
    Pilot,
    difference_variance,
    items_for_paired_difference,
    paired_t_power,
    sizing_variance,
)
from agent_assay.views.planning import REPEATS, WORSE, size_from

ROOT = Path(__file__).resolve().parents[2]
SEED = 36
PILOT_ITEMS, PILOT_REPEATS = 104, 3
POWER, ALPHA, CORRELATION = 0.8, 0.05, 0.5
TOLERANCE = 0.02
CHUNK = 250  # draws simulated at once, to bound memory on the largest designs
TRUTH_DRAWS = 1_000_000

Draw = Callable[[np.random.Generator, int, float, float], np.ndarray]


@dataclass(frozen=True)
class Model:
    """Two agents on the same items. Item effects: a part both share (correlation
    `rho`) and a part of each agent's own, with standard deviation `spread` in all;
    the second agent's item means are `effect` higher."""

    name: str
    level: float
    spread: float
    parts: int | None
    """Coin flips per repetition (a 0/1 score is 1, a fraction of four checks 4); None
    for a measure, whose repetitions add centred exponential noise of sd `noise`."""
    noise: float = 0.0

    def item_means(self, rng: np.random.Generator, shape: tuple[int, ...],
                   shared: np.ndarray, rho: float, effect: float) -> np.ndarray:
        own = rng.normal(size=shape)
        means = self.level + effect + self.spread * (math.sqrt(rho) * shared
                                                     + math.sqrt(1 - rho) * own)
        return means if self.parts is None else np.clip(means, 0.0, 1.0)

    def repetitions(self, rng: np.random.Generator, means: np.ndarray,
                    repeats: int) -> np.ndarray:
        """Each item's mean over `repeats` repetitions, drawn in one go."""
        if self.parts is None:
            noise = rng.gamma(repeats, self.noise, means.shape) / repeats - self.noise
            return np.asarray(means + noise, dtype=np.float64)
        flips = self.parts * repeats
        return np.asarray(rng.binomial(flips, means) / flips, dtype=np.float64)

    def pilot(self, rng: np.random.Generator) -> list[list[float]]:
        """One agent's run, k = PILOT_REPEATS: per repetition values of each item."""
        means = self.item_means(rng, (PILOT_ITEMS,), rng.normal(size=PILOT_ITEMS), 0.0, 0.0)
        reps = np.stack([self.repetitions(rng, means, 1) for _ in range(PILOT_REPEATS)], 1)
        return [list(map(float, row)) for row in reps]

    def differences(self, rng: np.random.Generator, draws: int, items: int, repeats: int,
                    effect: float, rho: float) -> np.ndarray:
        """Per-item mean differences (second agent minus first), one row per draw."""
        shared = rng.normal(size=(draws, items))
        first = self.item_means(rng, (draws, items), shared, rho, 0.0)
        second = self.item_means(rng, (draws, items), shared, rho, effect)
        return np.asarray(self.repetitions(rng, second, repeats)
                          - self.repetitions(rng, first, repeats), dtype=np.float64)

    def truth(self, rng: np.random.Generator, repeats: int, effect: float,
              rho: float) -> tuple[float, float]:
        """(mean, variance) of one item's difference under the model, by a large draw of
        item means and the repetition variance each mean implies."""
        shared = rng.normal(size=TRUTH_DRAWS)
        first = self.item_means(rng, (TRUTH_DRAWS,), shared, rho, 0.0)
        second = self.item_means(rng, (TRUTH_DRAWS,), shared, rho, effect)
        if self.parts is None:
            noise = 2 * self.noise**2
        else:
            noise = float(np.mean(first * (1 - first) + second * (1 - second))) / self.parts
        return float(np.mean(second - first)), float(np.var(second - first)) + noise / repeats


MODELS = (  # named by the first agent's mean and its items' sd; the second is above it
    Model("binary, rate 0.5 sd 0.15", 0.5, 0.15, 1),
    Model("binary, rate 0.2 sd 0.08", 0.2, 0.08, 1),
    Model("binary, rate 0.7 sd 0.06", 0.7, 0.06, 1),
    Model("fraction of 4, rate 0.6 sd 0.12", 0.6, 0.12, 4),
    Model("measure, 2.0 sd 0.5, noise sd 0.8", 2.0, 0.5, None, 0.8),
)
DESIGNS = [(m, k, e) for m in MODELS[:3] for k in (1, 3, 5) for e in (0.05, 0.1, 0.2)] + [
    (MODELS[3], k, e) for k in (1, 3, 5) for e in (0.05, 0.1)] + [
    (MODELS[4], k, e) for k in (1, 3, 5) for e in (0.1, 0.2)]


def judged(model: Model, rng: np.random.Generator, draws: int, items: int, repeats: int,
           effect: float, rho: float) -> float:
    """Share of `draws` comparisons that compare's test finds significant at ALPHA."""
    hits = 0
    for start in range(0, draws, CHUNK):
        rows = model.differences(rng, min(CHUNK, draws - start), items, repeats, effect, rho)
        hits += sum(paired_difference(row.tolist()).p_value < ALPHA for row in rows)
    return hits / draws


def equal_noise_items(pilot: Pilot, repeats: int, effect: float) -> int:
    """The items the plan would ask for if it took the other agent's repetition noise to be
    the pilot's (as before #36), everything else the same."""
    flat = Pilot(replace(pilot.spread, coin_share=None),
                 tuple(replace(s, coin_share=None) for s in pilot.resampled))
    variance = sizing_variance(flat, effect, repeats=repeats, correlation=CORRELATION)
    return items_for_paired_difference(effect, variance=variance, power=POWER, alpha=ALPHA)


def design(index: int, model: Model, repeats: int, effect: float, draws: int) -> dict[str, Any]:
    rng = np.random.default_rng([SEED, index])
    sizing = size_from(model.pilot(rng), effects=[effect], power=POWER, alpha=ALPHA,
                       correlation=CORRELATION)
    assert sizing is not None and repeats in REPEATS
    row = next(r for r in sizing.rows if r.repeats == repeats)
    wrong = sizing.what_if_for(row)
    true_effect, true_variance = model.truth(rng, repeats, effect, CORRELATION)
    uncorrelated_variance = model.truth(rng, repeats, effect, 0.0)[1]
    achieved = judged(model, rng, draws, row.items, repeats, effect, CORRELATION)
    uncorrelated = judged(model, rng, draws, row.items, repeats, effect, 0.0)
    flat = equal_noise_items(sizing.pilot, repeats, effect)
    at_estimate = items_for_paired_difference(effect, variance=difference_variance(
        sizing.spread, effect, repeats=repeats, correlation=CORRELATION), power=POWER,
        alpha=ALPHA)
    return {
        "model": model.name, "repeats": repeats, "effect": effect, "items": row.items,
        "items_at_pilot_estimate": at_estimate,
        "promised": POWER, "at_pilot_estimate": row.power,
        "at_true_spread": paired_t_power(row.items, effect, true_variance, alpha=ALPHA),
        "true_effect": true_effect,
        "achieved": achieved, "se": math.sqrt(achieved * (1 - achieved) / draws),
        "correlation_0": {"computed": wrong.uncorrelated, "achieved": uncorrelated,
                          "at_true_spread": paired_t_power(row.items, effect,
                                                           uncorrelated_variance, alpha=ALPHA)},
        "within_worse_computed": wrong.within, "between_worse_computed": wrong.between,
        "equal_noise": {"items": flat, "at_true_spread": paired_t_power(
            flat, effect, true_variance, alpha=ALPHA)},
    }


def table(rows: list[dict[str, Any]], draws: int, summary: dict[str, Any]) -> str:
    lines = [
        f"plans at power {POWER}, alpha {ALPHA}, correlation {CORRELATION}, each from a pilot of "
        f"{PILOT_ITEMS} items x {PILOT_REPEATS}; {draws} comparisons per design",
        f"{'model':<36} {'k':<2} {'effect':<6} {'items':<5} {'achieved':<8} {'se':<5} "
        f"{'truth':<5} | {'correlation 0:':<15}{'plan':<6}{'truth':<6}{'sim':<6} | "
        f"within, between x{WORSE:g}",
    ]
    for r in rows:
        c0 = r["correlation_0"]
        lines.append(
            f"{r['model']:<36} {r['repeats']:<2} {r['effect']:<6} {r['items']:<5} "
            f"{r['achieved']:<8.3f} {r['se']:<5.3f} {r['at_true_spread']:<5.2f} | "
            f"{'':<15}{c0['computed']:<6.2f}{c0['at_true_spread']:<6.2f}"
            f"{c0['achieved']:<6.3f} | {r['within_worse_computed']:.2f}, "
            f"{r['between_worse_computed']:.2f}")
    lines += [
        "the second agent's mean is the first's plus the effect; achieved: share of comparisons",
        "paired_difference finds significant at alpha (se: its standard error);",
        "truth: the plan's power function at the model's true spread; correlation 0: the plan's "
        "figure,",
        "the power function at the true spread, and the simulated share, when the agents share "
        "no item effect;",
        f"within, between x{WORSE:g}: the plan's figures if that variance were {WORSE:g} times "
        "the pilot's",
        f"designs: {summary['designs']}; achieved >= {POWER} - {TOLERANCE}: "
        f"{summary['designs_within_tolerance']}; lowest achieved - promised: "
        f"{summary['lowest_achieved_minus_promised']:+.3f}; highest: "
        f"{summary['highest_achieved_minus_promised']:+.3f}",
    ]
    return "\n".join(lines) + "\n"


def spans(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Lowest and highest of each what-if figure over the designs, for the docs."""
    figures = {
        "correlation_0_achieved": [r["correlation_0"]["achieved"] for r in rows],
        "equal_noise_at_true_spread": [r["equal_noise"]["at_true_spread"] for r in rows],
        "within_worse_computed": [r["within_worse_computed"] for r in rows],
        "between_worse_computed": [r["between_worse_computed"] for r in rows],
    }
    out = {}
    for name, values in figures.items():
        out[f"{name}_lowest"] = min(values)
        out[f"{name}_highest"] = max(values)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/stats/power.json")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = []
    for index, (model, repeats, effect) in enumerate(DESIGNS):
        rows.append(design(index, model, repeats, effect, args.draws))
        r = rows[-1]
        print(f"[{index + 1}/{len(DESIGNS)}] {model.name}, k={repeats}, effect {effect}: "
              f"{r['items']} items, achieved {r['achieved']:.3f} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    gaps = [r["achieved"] - POWER for r in rows]
    summary: dict[str, Any] = {
        "designs": len(rows),
        "designs_within_tolerance": sum(g >= -TOLERANCE for g in gaps),
        "designs_at_or_above_promised": sum(g >= 0 for g in gaps),
        "lowest_achieved_minus_promised": min(gaps),
        "highest_achieved_minus_promised": max(gaps),
        "largest_truth_gap": max(abs(r["at_true_spread"] - r["achieved"]) for r in rows),
        "correlation_0_largest_truth_gap": max(
            abs(r["correlation_0"]["at_true_spread"] - r["correlation_0"]["achieved"])
            for r in rows),
        "margin_items_ratio_median": float(np.median(
            [r["items"] / r["items_at_pilot_estimate"] for r in rows])),
        "margin_items_ratio_highest": max(r["items"] / r["items_at_pilot_estimate"]
                                          for r in rows),
        **spans(rows),
    }
    text = table(rows, args.draws, summary)
    result = {"command": "python -m tools.studies.stats_power --out reports/stats/power.json",
              "draws": args.draws, "seed": SEED, "power": POWER, "alpha": ALPHA,
              "correlation": CORRELATION, "tolerance": TOLERANCE, "worse_factor": WORSE,
              "pilot_items": PILOT_ITEMS, "pilot_repeats": PILOT_REPEATS,
              **summary, "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, sort_keys=True, indent=2) + "\n")
    args.out.with_suffix(".txt").write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
