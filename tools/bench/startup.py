"""What a command costs before it does anything: `--help` and `runs list`, before and after.

Usage: python -m tools.bench.startup [--base COMMIT] [--rounds 15] [--out FILE]

Checks COMMIT (the last commit before the CLI imported its heavy modules
lazily, issue 13) out into a temporary git worktree and starts each tree's
CLI in a fresh interpreter, alternating tree by tree so that load on a shared
machine falls on both alike. `runs list` reads an empty store that each tree
creates for itself. Records the median wall time and the median CPU time
(user + system) of each command and writes them to reports/bench/startup.json.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.bench.output import write_figures
from tools.bench.worktree import ROOT, checked_out, head_commit, tree_env

BASE = "25bcf65"  # the last commit before the lazy CLI (issue 13)
LAUNCH = "import sys; from agent_assay.cli import main; sys.argv[0] = 'agent-assay'; main()"


def commands(store: Path) -> dict[str, list[str]]:
    """The command lines timed, by the name they are reported under."""
    return {"help": ["--help"], "runs_list": ["runs", "list", "--db", str(store)]}


def timed(tree: Path, argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one CLI start in TREE, which must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", LAUNCH, *argv], cwd=tree, env=tree_env(tree),
                   check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "median_wall_s": round(statistics.median(w for w, _ in samples), 3),
        "median_cpu_s": round(statistics.median(c for _, c in samples), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=BASE)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/startup.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, checked_out(args.base, Path(tmp)) as base_tree:
        trees = {"before": base_tree, "after": ROOT}
        samples: dict[str, dict[str, list[tuple[float, float]]]] = {t: {} for t in trees}
        for side, tree in trees.items():  # one untimed start each: the store and .pyc files
            for name, argv in commands(Path(tmp) / f"{side}.db").items():
                timed(tree, argv)
                samples[side][name] = []
        for _ in range(args.rounds):
            for side, tree in trees.items():
                for name, argv in commands(Path(tmp) / f"{side}.db").items():
                    samples[side][name].append(timed(tree, argv))
    result: dict[str, object] = {
        "command": "make bench-startup",
        "base_commit": args.base,
        "head_commit": head_commit(),
        "rounds": args.rounds,
    }
    for side in trees:
        result[side] = {name: summary(s) for name, s in samples[side].items()}
    write_figures(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
