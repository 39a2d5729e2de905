"""`make bench-workers`: banking throughput with 1, 2 and 4 worker processes.

    python -m tools.bench.workers [--repeats 100] [--rounds 3] [--out reports/bench/workers.json]

Each measurement is one fresh child process running `api.evaluate` on the bundled bank's
`mock` config over its items x `--repeats` into a fresh SQLite file; the child times the
evaluation alone (spawning the pool and rebuilding the system in each worker included,
the interpreter's own start-up not). The worker counts take turns within each round, so a
machine that slows down during the benchmark slows all of them alike. Throughput is
trajectories per wall second; the figure the issue asks for is the median throughput at
2 workers over the median at 1.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from time import perf_counter
from typing import Any

from tools.bench.output import child_figures, machine, write_figures

ROOT = Path(__file__).resolve().parents[2]

WORKER_COUNTS = (1, 2, 4)
TARGET_SPEEDUP_AT_2 = 1.7


def one(workers: int, repeats: int, db: str) -> dict[str, float]:
    """One evaluation in this process: its wall seconds and trajectories written."""
    from agent_assay import api
    from agent_assay.adapters.registry import load_adapter

    system = load_adapter("banking")
    started = perf_counter()
    done = api.evaluate(system, "mock", store=db, repeats=repeats,
                        executor=api.ExecutorSpec(workers=workers))
    return {"wall": perf_counter() - started, "written": done.result.written}


def measured(workers: int, repeats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        return child_figures(
            [sys.executable, "-m", "tools.bench.workers", "--one", str(workers),
             "--repeats", str(repeats), "--db", str(Path(tmp) / "assay.db")],
            f"bench-workers: {workers} worker(s)",
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/workers.json")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.repeats, args.db)))
        return 0
    rates: dict[int, list[float]] = {n: [] for n in WORKER_COUNTS}
    written = 0
    for _ in range(args.rounds):
        for workers in WORKER_COUNTS:
            got = measured(workers, args.repeats)
            written = int(got["written"])
            rates[workers].append(got["written"] / got["wall"])
    median = {str(n): round(statistics.median(r), 1) for n, r in rates.items()}
    speedup = {str(n): round(statistics.median(r) / statistics.median(rates[1]), 3)
               for n, r in rates.items()}
    write_figures(args.out, {
        "command": "make bench-workers",
        "machine": machine(),
        "repeats": args.repeats,
        "trajectories": written,
        "rounds": args.rounds,
        "trajectories_per_second": {"median": median,
                                    "trials": {str(n): [round(v, 1) for v in r]
                                               for n, r in rates.items()}},
        "speedup_over_1": speedup,
        "targets": {"speedup_at_2_min": TARGET_SPEEDUP_AT_2},
        "meets_targets": {"speedup_at_2": speedup["2"] >= TARGET_SPEEDUP_AT_2},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
