"""`make bench-controls`: what certifying a run costs beside making it, on banking x 10,
and what the run takes on disk.

    python tools/bench_controls.py [--repeats 10] [--out reports/bench/controls.json]

In a fresh SQLite file, `agent-assay run --config mock --repeats K` makes the run (1,040
trajectories at k = 10), then `agent-assay controls run --run RUN` certifies it; each
command runs in its own child process, timed by its CPU seconds (user + system, its own
children included: identical_config's twins run in spawned processes) and its peak RSS.
The figure the issue asks for is the ratio of the two CPU times. The run's database is
measured before the controls add their own runs to it: its size over its trajectories is
the stored bytes per banking trajectory (the file after the writer closed it, so its
write-ahead log is folded in).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from bench_output import CLI, machine, measured, write_figures  # noqa: E402

TARGET_RATIO = 3.0
TARGET_BYTES_PER_TRAJECTORY = 10 * 1024


def stored_bytes(db: str) -> int:
    """The database file and whatever write-ahead log it still has."""
    return sum(p.stat().st_size for p in (Path(db), Path(db + "-wal")) if p.exists())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/controls.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db, rid = str(Path(tmp) / "assay.db"), Path(tmp) / "run_id"
        made = measured([CLI, "run", "--config", "mock", "--repeats", str(args.repeats),
                         "--db", db, "--run-id-file", str(rid)])
        if made["code"] != 0:
            raise SystemExit(f"bench-controls: the run failed: {made['err']}")
        run_id = rid.read_text().strip()
        with sqlite3.connect(db) as conn:
            trajectories = conn.execute("SELECT COUNT(*) FROM trajectories").fetchone()[0]
        per_trajectory = stored_bytes(db) / trajectories
        certified = measured([CLI, "controls", "run", "--run", run_id, "--db", db])
    ratio = certified["cpu"] / made["cpu"]
    write_figures(args.out, {
        "command": "make bench-controls",
        "machine": machine(),
        "repeats": args.repeats,
        "run_cpu_seconds": round(made["cpu"], 2),
        "run_peak_rss_mb": round(made["rss_mb"], 1),
        "controls_cpu_seconds": round(certified["cpu"], 2),
        "controls_peak_rss_mb": round(certified["rss_mb"], 1),
        "controls_exit_code": certified["code"],
        "run_trajectories": trajectories,
        "run_bytes_per_trajectory": round(per_trajectory),
        "ratio": round(ratio, 2),
        "targets": {"ratio_max": TARGET_RATIO,
                    "bytes_per_trajectory_max": TARGET_BYTES_PER_TRAJECTORY},
        "meets_targets": {"ratio": ratio <= TARGET_RATIO,
                          "bytes_per_trajectory": per_trajectory <= TARGET_BYTES_PER_TRAJECTORY},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
