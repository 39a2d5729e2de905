"""`make bench-growth`: the write path's CPU per trajectory as a run grows.

    python -m tools.bench.growth [--sizes 1000,5000,10000,25000,50000]
                                 [--out reports/bench/growth.json]

Each size is a no-op run (tools.bench.core.NoopAdapter) written by the real runner into a
fresh store, in a fresh process, timed in CPU seconds of the writing process from the
start of the run to its end (the end-of-run checkpoint included), and then, in the same
process, its like-for-like floor (tools.bench.floor: the same rows, bytes, transactions
and digests); the sizes are visited
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
import json, sys, tempfile
from pathlib import Path
from tools.bench.core import N_ITEMS
from tools.bench.floor import floor_round, harness_round

repeats = int(sys.argv[1]) // N_ITEMS
with tempfile.TemporaryDirectory() as tmp:
    harness, groups = harness_round(Path(tmp) / "harness.db", repeats)
    floor = floor_round(Path(tmp) / "harness.db", groups, Path(tmp) / "floor.db", repeats)
print(json.dumps({"harness": harness, "floor": floor}))
'''


def ms_per_trajectory(size: int) -> tuple[float, float]:
    """The harness's and its floor's CPU ms per trajectory at `size`, in one fresh process."""
    got = child_figures([sys.executable, "-c", RUN, str(size)], f"bench-growth at {size}")
    return float(got["harness"]), float(got["floor"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,10000,25000,50000")
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/growth.json")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    figures: dict[int, list[tuple[float, float]]] = {size: [] for size in sizes}
    for size in [*sizes, *reversed(sizes)]:
        figures[size].append(ms_per_trajectory(size))
        harness, floor = figures[size][-1]
        print(f"{size} trajectories: harness {harness:.4f}, floor {floor:.4f} ms CPU each",
              flush=True)

    def mean(size: int, side: int) -> float:
        return round(sum(pair[side] for pair in figures[size]) / len(figures[size]), 4)

    per = {str(size): mean(size, 0) for size in sizes}
    write_figures(args.out, {
        "command": "make bench-growth",
        "machine": machine(),
        "ms_per_trajectory": per,
        "floor_ms_per_trajectory": {str(size): mean(size, 1) for size in sizes},
        "largest_over_smallest": round(per[str(sizes[-1])] / per[str(sizes[0])], 3),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
