"""`make bench-controls`: what certifying a run costs beside making it, on banking x 10,
and what the run takes on disk.

    python -m tools.bench.controls [--repeats 10] [--out reports/bench/controls.json]

In a fresh SQLite file, `agent-assay run --adapter banking --config mock --repeats K` makes
the run (1,040 trajectories at k = 10), then `agent-assay controls run --run RUN` certifies it; each
command runs in its own child process, timed by its CPU seconds (user + system) and its
peak RSS. Agent processes (the run's, identical_config's twins', the controls' replays)
detach from whoever starts them (hosting.host); the probe (output.measured) adopts and
reaps them, so both figures hold the agents' and their environments' CPU too, as a user
waiting on either command pays it.
The figure the issue asks for is the ratio of the two CPU times; the benchmark makes and
certifies a run `--rounds` times and reports the round with the median ratio (and every
round's ratio), since one run's CPU time moves with whatever else the machine does. The
run's database is measured before the controls add their own runs to it: its size over
its trajectories is the stored bytes per banking trajectory (the file after the writer
closed it, so its write-ahead log is folded in).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

from tools.bench.output import CLI, machine, measured, write_figures

ROOT = Path(__file__).resolve().parents[2]

TARGET_RATIO = 2.5
TARGET_BYTES_PER_TRAJECTORY = 10 * 1024
TARGET_PEAK_MB = 1024  # the issue asks it of banking x 100; it is held at every size


def stored_bytes(db: str) -> int:
    """The database file and whatever write-ahead log it still has."""
    return sum(p.stat().st_size for p in (Path(db), Path(db + "-wal")) if p.exists())


def one_round(repeats: int) -> dict[str, float]:
    """Make a run and certify it, in a fresh SQLite file; the figures of both commands."""
    with tempfile.TemporaryDirectory() as tmp:
        db, rid = str(Path(tmp) / "assay.db"), Path(tmp) / "run_id"
        made = measured([CLI, "run", "--adapter", "banking", "--config", "mock",
                         "--repeats", str(repeats), "--db", db, "--run-id-file", str(rid)])
        if made["code"] != 0:
            raise SystemExit(f"bench-controls: the run failed: {made['err']}")
        run_id = rid.read_text().strip()
        with sqlite3.connect(db) as conn:
            trajectories = conn.execute("SELECT COUNT(*) FROM trajectories").fetchone()[0]
        per_trajectory = stored_bytes(db) / trajectories
        certified = measured([CLI, "controls", "run", "--run", run_id, "--db", db])
    if certified["code"] != 0:
        raise SystemExit(f"bench-controls: controls run exited {certified['code']}: "
                         f"{certified['err']}")
    return {"run_cpu": made["cpu"], "run_rss": made["rss_mb"], "controls_cpu": certified["cpu"],
            "controls_rss": certified["rss_mb"], "trajectories": trajectories,
            "bytes": per_trajectory, "ratio": certified["cpu"] / made["cpu"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/controls.json")
    parser.add_argument("--command", default="make bench-controls",
                        help="the make target that ran it, recorded in the figures")
    args = parser.parse_args()
    rounds = [one_round(args.repeats) for _ in range(args.rounds)]
    middle = sorted(rounds, key=lambda r: r["ratio"])[len(rounds) // 2]  # the median round
    peak = max(r["controls_rss"] for r in rounds)
    write_figures(args.out, {
        "command": args.command,
        "machine": machine(),
        "repeats": args.repeats,
        "rounds": args.rounds,
        "ratios": [round(r["ratio"], 2) for r in rounds],
        "run_cpu_seconds": round(middle["run_cpu"], 2),
        "run_peak_rss_mb": round(middle["run_rss"], 1),
        "controls_cpu_seconds": round(middle["controls_cpu"], 2),
        "controls_peak_rss_mb": round(peak, 1),
        "controls_exit_code": 0,
        "run_trajectories": int(middle["trajectories"]),
        "run_bytes_per_trajectory": round(middle["bytes"]),
        "ratio": round(middle["ratio"], 2),
        "targets": {"ratio_max": TARGET_RATIO,
                    "bytes_per_trajectory_max": TARGET_BYTES_PER_TRAJECTORY,
                    "controls_peak_rss_mb_max": TARGET_PEAK_MB},
        "meets_targets": {"ratio": middle["ratio"] <= TARGET_RATIO,
                          "bytes_per_trajectory": middle["bytes"] <= TARGET_BYTES_PER_TRAJECTORY,
                          "controls_peak_rss_mb": peak <= TARGET_PEAK_MB},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
