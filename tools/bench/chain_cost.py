"""What the evidence chain costs on the hot path: the harness per trajectory, before and after.

Usage: python -m tools.bench.chain_cost [--base COMMIT] [--rounds 5] [--out FILE]

Checks out COMMIT (the last commit before the chain) into a temporary git
worktree and runs each tree's own core benchmark (`tools/bench_core.py` there,
`tools.bench.core` here) in turn, interleaved
round by round so that a neighbour process on a shared machine slows both
sides alike. Each core benchmark run is itself the median of three trials over
10,000 no-op trajectories. Writes the per-round figures, both medians and the
median of the per-round differences to reports/bench/chain_cost.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.bench.output import write_figures
from tools.bench.worktree import ROOT, checked_out, head_commit, tree_env

BASE = "c91e80f"  # the last commit before the chain (issue 12)


def bench(tree: Path, out: Path) -> float:
    script = tree / "tools" / "bench_core.py"  # a tree from before tools/ was a package
    command = [str(script)] if script.exists() else ["-m", "tools.bench.core"]
    subprocess.run(
        [sys.executable, *command, "--out", str(out)],
        cwd=tree,
        env=tree_env(tree),
        check=True,
        capture_output=True,
    )
    return float(json.loads(out.read_text())["harness_noop_agent"]["ms_per_trajectory"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=BASE)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/chain_cost.json")
    args = parser.parse_args()
    head = head_commit()
    with tempfile.TemporaryDirectory() as tmp, checked_out(args.base, Path(tmp)) as base_tree:
        before, after = [], []
        for round_ in range(args.rounds):
            before.append(bench(base_tree, Path(tmp) / f"base{round_}.json"))
            after.append(bench(ROOT, Path(tmp) / f"head{round_}.json"))
            print(f"round {round_ + 1}: before {before[-1]} ms, after {after[-1]} ms",
                  file=sys.stderr)
    differences = [a - b for a, b in zip(after, before, strict=True)]
    result = {
        "command": "make bench-chain",
        "base_commit": args.base,
        "head_commit": head,
        "harness_ms_per_trajectory_before": before,
        "harness_ms_per_trajectory_after": after,
        "median_before_ms": statistics.median(before),
        "median_after_ms": statistics.median(after),
        # each round's two runs share the machine's load at that moment, so the cost is the
        # median of the per-round differences
        "paired_differences_ms": [round(d, 4) for d in differences],
        "chain_cost_ms": round(statistics.median(differences), 4),
        "budget_ms": 0.1,
        "rounds": args.rounds,
    }
    result["within_budget"] = result["chain_cost_ms"] <= result["budget_ms"]
    write_figures(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
