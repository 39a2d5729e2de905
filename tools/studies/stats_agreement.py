"""Does `compare` say one thing per metric? A seeded simulation of its paired difference.

Usage: python -m tools.studies.stats_agreement --out reports/stats/agreement.json
       [--draws 2000] [--cluster-draws 3000]

Every draw goes through the project's own code: independent items through
`integrity.comparability.paired` (what `compare` calls per metric), clustered items through
`stats.paired.paired_difference` (what `paired` calls, reached directly so that cluster
counts below the floor `compare` refuses can be measured too). It measures:

(a) how often the interval leaves out 0 exactly when p < ALPHA (by construction, always);
(b) the ordinary test's false-positive rate when the two runs do not differ;
(c) the interval's coverage of a known difference;
(d) the clustered test's false-positive rate when the effect varies by cluster with mean
    zero, clusters of unequal size, beside the ordinary test's on the same draws. From (d)
    come the two cluster counts `compare --cluster` enforces: the fewest clusters from
    which every symmetric scenario keeps the rate at or under FPR_BOUND (the floor, below
    which it refuses), and from which every scenario, skewed ones too, does (trusted,
    below which it warns).

Writes the JSON to --out and a text table beside it (same name, .txt).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agent_assay.integrity.comparability import paired
from agent_assay.stats.intervals import Interval
from agent_assay.stats.paired import (
    ALPHA,
    CLUSTERS_FLOOR,
    CLUSTERS_TRUSTED,
    FPR_BOUND,
    paired_difference,
)

SIZES = (11, 20, 50, 104, 500)
CLUSTER_COUNTS = (2, 3, 4, 6, 8, 10, 15, 20, 40)
"""The grid asked for (4 to 40) and two below it, so the floor is found, not assumed."""
CLUSTERED_ITEMS = 104
CLUSTERED_REPEATS = 3

Rng = np.random.Generator
Values = np.ndarray


@dataclass(frozen=True)
class Kind:
    """Scores of one kind for two runs on the same items; B is shifted by `effect`."""

    name: str
    kind: str
    repeats: int
    effect: float
    draw: Callable[[Rng, int, int, float], tuple[Values, Values]]
    """(rng, items, repeats, shift) -> A's and B's values, items x repeats."""


def _binary(rng: Rng, n: int, k: int, shift: float) -> tuple[Values, Values]:
    rate = rng.uniform(0.2, 0.8, n)[:, None]
    return (rng.random((n, k)) < rate).astype(float), (rng.random((n, k)) < rate + shift)\
        .astype(float)


def _fraction(rng: Rng, n: int, k: int, shift: float) -> tuple[Values, Values]:
    rate = rng.uniform(0.2, 0.8, n)[:, None]
    return rng.binomial(4, rate, (n, k)) / 4, rng.binomial(4, rate + shift, (n, k)) / 4


def _count(rng: Rng, n: int, k: int, shift: float) -> tuple[Values, Values]:
    rate = rng.uniform(0.05, 0.5, n)[:, None]
    return rng.poisson(rate, (n, k)).astype(float), rng.poisson(rate + shift, (n, k))\
        .astype(float)


def _skewed(rng: Rng, n: int, k: int, shift: float) -> tuple[Values, Values]:
    """A latency-like measure: lognormal around an item's own level."""
    level = rng.normal(0.0, 0.5, n)[:, None]
    return (np.exp(level + 0.8 * rng.standard_normal((n, k))),
            np.exp(level + 0.8 * rng.standard_normal((n, k))) + shift)


KINDS = (
    Kind("binary k=1", "binary", 1, 0.1, _binary),
    Kind("binary k=3", "binary", 3, 0.1, _binary),
    Kind("fraction", "fraction", 1, 0.1, _fraction),
    Kind("count", "count", 1, 0.2, _count),
    Kind("skewed measure", "measure", 1, 0.3, _skewed),
)


def _as_items(values: Values) -> dict[str, list[float]]:
    return {f"i{j:03d}": row.tolist() for j, row in enumerate(values)}


def _excludes_zero(ci: Interval | None) -> bool:
    return ci is not None and (ci[0] > 0.0 or ci[1] < 0.0)


def _rejects(p: float | None) -> bool:
    return p is not None and p < ALPHA


def independent_cell(kind: Kind, n: int, effect: bool, draws: int) -> dict[str, object]:
    """(a)-(c) for one kind, size and truth, through `comparability.paired`."""
    rng = np.random.default_rng([KINDS.index(kind), n, int(effect)])
    truth = kind.effect if effect else 0.0
    agree = rejected = covered = without = 0
    for _ in range(draws):
        a, b = kind.draw(rng, n, kind.repeats, truth)
        found = paired("m", kind.kind, _as_items(a), _as_items(b))
        assert found is not None
        agree += _excludes_zero(found.ci) == _rejects(found.p_value)
        rejected += _rejects(found.p_value)
        without += found.ci is None
        covered += found.ci is not None and found.ci[0] <= truth <= found.ci[1]
    return {"kind": kind.name, "n": n, "truth": truth, "draws": draws,
            "agreement": agree / draws, "rejected": rejected / draws,
            "coverage": covered / draws, "no_interval": without / draws}


@dataclass(frozen=True)
class Scenario:
    """How B's effect varies by cluster (mean zero) and how unequal the clusters are."""

    name: str
    shape: str
    spread: float
    symmetric: bool = True


SCENARIOS = (
    *(Scenario(f"{shape}, spread {spread}", shape, spread)
      for shape in ("equal", "linear", "dominant", "geometric") for spread in (0.15, 0.4)),
    Scenario("linear, skewed 0.3", "linear", 0.3, symmetric=False),
)
"""Symmetric: the cluster effect is uniform on [-spread, spread]. Skewed (reported, not part
of the criterion): +spread in a fifth of the clusters, -spread/4 in the rest."""


def cluster_sizes(shape: str, g: int, n: int) -> list[int]:
    """Sizes summing to n, at least one item each: equal; proportional to 1..G (linear);
    one cluster holding half (dominant); growing by half each time (geometric)."""
    weights = {
        "equal": np.ones(g),
        "linear": np.arange(1.0, g + 1),
        "dominant": np.array([1.0] * (g - 1) + [max(1.0, g - 1.0)]),
        "geometric": 1.5 ** np.arange(g, dtype=float),
    }[shape]
    raw = 1 + weights / weights.sum() * (n - g)
    sizes = np.floor(raw).astype(int)
    for i in np.argsort(sizes - raw)[: n - int(sizes.sum())]:  # largest remainders first
        sizes[i] += 1
    return [int(s) for s in sizes]


def _cluster_effects(rng: Rng, scenario: Scenario, g: int) -> Values:
    if scenario.symmetric:
        return rng.uniform(-scenario.spread, scenario.spread, g)
    return np.where(rng.random(g) < 0.2, scenario.spread, -scenario.spread / 4)


def clustered_cell(scenario: Scenario, g: int, draws: int) -> dict[str, object]:
    """(d): the clustered and the ordinary test on draws where B differs from A by an
    effect drawn per cluster with mean zero, so the true mean difference is 0."""
    rng = np.random.default_rng([SCENARIOS.index(scenario), g, 7])
    sizes = cluster_sizes(scenario.shape, g, CLUSTERED_ITEMS)
    member = np.repeat(np.arange(g), sizes)
    labels = [f"c{c}" for c in member]
    low = scenario.spread if scenario.symmetric else scenario.spread / 4
    high = 1 - scenario.spread
    clustered = ordinary = agree = 0
    for _ in range(draws):
        rate = rng.uniform(low, high, CLUSTERED_ITEMS)
        shift = _cluster_effects(rng, scenario, g)[member]
        k = CLUSTERED_REPEATS
        a = (rng.random((CLUSTERED_ITEMS, k)) < rate[:, None]).mean(axis=1)
        b = (rng.random((CLUSTERED_ITEMS, k)) < (rate + shift)[:, None]).mean(axis=1)
        diffs = (b - a).tolist()
        robust = paired_difference(diffs, labels)
        clustered += _rejects(robust.p_value)
        agree += _excludes_zero(robust.ci) == _rejects(robust.p_value)
        ordinary += _rejects(paired_difference(diffs).p_value)
    return {"scenario": scenario.name, "symmetric": scenario.symmetric, "clusters": g,
            "sizes": sizes, "draws": draws, "fpr_clustered": clustered / draws,
            "fpr_ordinary": ordinary / draws, "agreement": agree / draws}


def fewest_from(by_g: dict[int, float], bound: float) -> int | None:
    """The fewest clusters from which the rate stays at or under `bound` at every larger
    count measured (None: it never does)."""
    ok = [g for g in sorted(by_g) if all(by_g[h] <= bound for h in by_g if h >= g)]
    return ok[0] if ok else None


def _worst_by_g(cells: list[dict[str, object]]) -> dict[int, float]:
    """The highest clustered false-positive rate among `cells` at each cluster count."""
    return {g: max(float(c["fpr_clustered"]) for c in cells if c["clusters"] == g)  # type: ignore[arg-type]
            for g in CLUSTER_COUNTS}


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure(draws: int, cluster_draws: int) -> dict[str, object]:
    started = time.monotonic()
    independent = []
    for kind in KINDS:
        for n in SIZES:
            for effect in (False, True):
                independent.append(independent_cell(kind, n, effect, draws))
        _say(f"  {kind.name}: done ({time.monotonic() - started:.0f} s)")
    clustered = []
    for g in CLUSTER_COUNTS:
        for scenario in SCENARIOS:
            clustered.append(clustered_cell(scenario, g, cluster_draws))
        _say(f"  {g} clusters: done ({time.monotonic() - started:.0f} s)")
    nulls = [c for c in independent if c["truth"] == 0.0]
    effects = [c for c in independent if c["truth"] != 0.0]
    symmetric = [c for c in clustered if c["symmetric"]]
    by_g = _worst_by_g(symmetric)
    every = _worst_by_g(clustered)
    return {
        "alpha": ALPHA,
        "draws": draws,
        "cluster_draws": cluster_draws,
        "clustered_items": CLUSTERED_ITEMS,
        "clustered_repeats": CLUSTERED_REPEATS,
        "fpr_bound": FPR_BOUND,
        "agreement_min": min(float(c["agreement"]) for c in [*independent, *clustered]),  # type: ignore[arg-type]
        "fpr_max_ordinary": max(float(c["rejected"]) for c in nulls),  # type: ignore[arg-type]
        "coverage_min": min(float(c["coverage"]) for c in effects),  # type: ignore[arg-type]
        "clustered_fpr_by_G": {str(g): v for g, v in by_g.items()},
        "clustered_fpr_any_case_by_G": {str(g): v for g, v in every.items()},
        "clustered_fpr_min_G10_max": max(v for g, v in by_g.items() if g >= 10),
        "ordinary_fpr_clustered_max": max(float(c["fpr_ordinary"]) for c in symmetric),  # type: ignore[arg-type]
        "skewed_fpr_by_G": {str(c["clusters"]): c["fpr_clustered"]
                            for c in clustered if not c["symmetric"]},
        "floor_clusters": fewest_from(by_g, FPR_BOUND),
        "trusted_from_clusters": fewest_from(every, FPR_BOUND),
        "enforced": {"floor": CLUSTERS_FLOOR, "trusted": CLUSTERS_TRUSTED},
        "independent": independent,
        "clustered": clustered,
    }


def table(result: dict[str, object]) -> str:
    """The text artifact: every cell, then the figures a document quotes."""
    lines = [
        f"compare's paired difference, {result['draws']} seeded draws per cell "
        f"(alpha {result['alpha']:.2f})",
        "(a)-(c) independent items, through comparability.paired:",
        "scores           n     agree   FPR (no difference)   coverage (difference)",
    ]
    cell = {(c["kind"], c["n"], bool(c["truth"])): c
            for c in result["independent"]}  # type: ignore[attr-defined]
    for kind in KINDS:
        for n in SIZES:
            null, effect = cell[kind.name, n, False], cell[kind.name, n, True]
            agree = min(null["agreement"], effect["agreement"])
            lines.append(f"{kind.name:<16} {n:<5} {agree:.3f}   {null['rejected']:.3f}"
                         f"                 {effect['coverage']:.3f}")
    lines += [
        "",
        f"(d) effect varying by cluster, mean zero; {result['clustered_items']} items, "
        f"k={result['clustered_repeats']}, {result['cluster_draws']} draws per cell; "
        "false-positive rate, clustered/ordinary, by scenario:",
    ]
    names = [s.name for s in SCENARIOS]
    lines += [f"  {chr(ord('A') + i)}: {name}" for i, name in enumerate(names)]
    lines.append("clusters  " + "  ".join(f"{chr(ord('A') + i):<11}"
                                          for i in range(len(names))).rstrip())
    cells = {(c["clusters"], c["scenario"]): c for c in result["clustered"]}  # type: ignore[attr-defined]
    for g in CLUSTER_COUNTS:
        parts = [f"{cells[g, n]['fpr_clustered']:.3f}/{cells[g, n]['fpr_ordinary']:.3f}"
                 for n in names]
        lines.append(f"{g:<9} " + "  ".join(parts))
    lines += [
        "",
        f"agreement, lowest cell: {result['agreement_min']:.3f}",
        f"ordinary test's false-positive rate, highest cell: {result['fpr_max_ordinary']:.3f}",
        f"coverage of a real difference, lowest cell: {result['coverage_min']:.3f}",
        "clustered test's false-positive rate, highest symmetric cell from 10 clusters: "
        f"{result['clustered_fpr_min_G10_max']:.3f}",
        "ordinary test's false-positive rate on the same clustered draws, highest: "
        f"{result['ordinary_fpr_clustered_max']:.3f}",
        f"floor {result['floor_clusters']} clusters (from there every symmetric case at or "
        f"under {result['fpr_bound']:.2f}); trusted from {result['trusted_from_clusters']} "
        "(every case, skewed too)",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--cluster-draws", type=int, default=3000)
    args = parser.parse_args()
    result = measure(args.draws, args.cluster_draws)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    text = table(result)
    args.out.with_suffix(".txt").write_text(text)
    sys.stdout.write(text)
    enforced = (result["floor_clusters"], result["trusted_from_clusters"])
    if enforced != (CLUSTERS_FLOOR, CLUSTERS_TRUSTED):
        _say(f"measured floor and trusted count {enforced} differ from the enforced "
             f"{(CLUSTERS_FLOOR, CLUSTERS_TRUSTED)} in stats/paired.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
