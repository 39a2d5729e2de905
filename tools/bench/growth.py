"""`make bench-growth`: the write path's CPU per trajectory as a run grows.

    python -m tools.bench.growth [--sizes 1000,5000,10000,25000,50000]
                                 [--out reports/bench/growth.json]

Each size is a no-op run (tools.bench.core.NoopAdapter) written by the real runner into a
fresh store, in a fresh process, timed in CPU seconds of the writing process from the
start of the run to its end (the end-of-run checkpoint included); the sizes are visited
smallest first, then again largest first, and each size's two figures are averaged, so a
neighbour's load early or late in the benchmark falls on both ends alike. A cost that grew
with the run (a walk over everything written so far, per trajectory) would show as a
rising curve; flat means linear growth.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.bench.output import child_figures, machine, write_figures

ROOT = Path(__file__).resolve().parents[2]

RUN = '''
import json, sys, tempfile, time
from pathlib import Path
from tools.bench.core import N_ITEMS, NoopAdapter
from agent_assay import api
from agent_assay.runner import execute_run
from agent_assay.store import open_store

with tempfile.TemporaryDirectory() as tmp:
    adapter = NoopAdapter()
    store = open_store(str(Path(tmp) / "assay.db"))
    run = api.start(adapter, "noop", store=store, repeats=int(sys.argv[1]) // N_ITEMS, seed=0)
    start = time.process_time()
    result = execute_run(store, adapter, run, progress=False)
    print(json.dumps({"cpu": time.process_time() - start, "written": result.written}))
'''


def ms_per_trajectory(size: int) -> float:
    got = child_figures([sys.executable, "-c", RUN, str(size)], f"bench-growth at {size}")
    return float(got["cpu"]) * 1000 / int(got["written"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,10000,25000,50000")
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/growth.json")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    figures: dict[int, list[float]] = {size: [] for size in sizes}
    for size in [*sizes, *reversed(sizes)]:
        figures[size].append(ms_per_trajectory(size))
        print(f"{size} trajectories: {figures[size][-1]:.4f} ms CPU each", flush=True)
    per = {str(size): round(sum(v) / len(v), 4) for size, v in figures.items()}
    write_figures(args.out, {
        "command": "make bench-growth",
        "machine": machine(),
        "ms_per_trajectory": per,
        "largest_over_smallest": round(per[str(sizes[-1])] / per[str(sizes[0])], 3),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
