"""How long `make test` takes on a clean checkout: the figure CI's time budget rests on.

Each run clones this repository's HEAD beside it (so `../shared` resolves as it does in
CI), installs it (not timed), then times `make test` and reads pytest's own counts.
The median of the runs is the headline; every run is kept, with the load average
the machine had when it started, so a slow run under load is visible, not averaged
away. No test asserts a time: this is where the time is measured.

    python -m tools.bench.test_suite --runs 3 --out reports/bench/test_suite.json
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tools.bench.output import write_figures
from tools.bench.worktree import ROOT, head_commit

COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?)\b")
PYTEST_SECONDS = re.compile(r" in ([0-9.]+)s")
BUDGET_S = 8 * 60


def pytest_counts(output: str) -> dict[str, Any]:
    """passed/failed/skipped/errors and pytest's seconds, from its final summary line."""
    summary = next(
        (line for line in reversed(output.splitlines()) if PYTEST_SECONDS.search(line)), ""
    )
    counts: dict[str, Any] = {kind.rstrip("s"): int(n) for n, kind in COUNTS.findall(summary)}
    seconds = PYTEST_SECONDS.search(summary)
    counts["pytest_s"] = float(seconds.group(1)) if seconds else None
    return counts


def one_run(index: int, where: Path) -> dict[str, Any]:
    clone = where / f"test-suite-bench-{os.getpid()}-{index}"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    try:
        subprocess.run(["make", "install"], cwd=clone, check=True, capture_output=True)
        load = os.getloadavg()[0]
        started = time.perf_counter()
        done = subprocess.run(["make", "test"], cwd=clone, capture_output=True, text=True)
        wall = time.perf_counter() - started
    finally:
        shutil.rmtree(clone, ignore_errors=True)
    if done.returncode != 0:  # the clone is gone: say here what failed
        failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        print("\n".join(failed or done.stderr.splitlines()[-5:]), file=sys.stderr)
    return {
        "wall_s": round(wall, 1),
        "exit": done.returncode,
        "load_at_start": round(load, 2),
        **pytest_counts(done.stdout),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--where", type=Path, default=ROOT.parent,
                        help="Where the clones go (beside ../shared, as in CI).")
    args = parser.parse_args()
    runs = []
    for index in range(args.runs):
        runs.append(one_run(index, args.where))
        print(f"run {index + 1}/{args.runs}: {runs[-1]}", file=sys.stderr)
    walls = [r["wall_s"] for r in runs]
    write_figures(args.out, {
        "commit": head_commit(),
        "cores": os.cpu_count(),
        "runs": runs,
        "rounds": len(runs),
        "median_wall_s": round(statistics.median(walls), 1),
        "max_wall_s": max(walls),
        "budget_s": BUDGET_S,
        "all_green": all(r["exit"] == 0 for r in runs),
    })
    if any(r["exit"] != 0 for r in runs):
        sys.exit(1)


if __name__ == "__main__":
    main()
