"""`make bench-report`: what `agent-assay report` costs at 10k, 100k and 1M stored scores,
beside a like-for-like floor measured in the same run.

    python -m tools.bench.report [--sizes 10000,100000,1000000] [--trials 5]
                                 [--out reports/bench/report.json]

Each size is a no-op run (tools.bench.core.NoopAdapter: 100 items, 13 scorers, k chosen so the
run holds at least that many scores) written by the real runner into its own SQLite
file; so is the tiny run (k = 1: 1,300 scores), the report a user waits on most often.
For each run, rounds alternate the report as a user meets it, `agent-assay report RUN
--db FILE`, and its floor (tools/bench/report_floor.py: a minimal script that reads the
rows the report's integrity check reads with the same SELECTs, hashes the same bytes the
same way as the checkpoint's stream, and computes the per-metric means the figures
show; the benchmark stops unless its digest is the checkpoint's and its means are those
`report --json` shows), each in a fresh process: CPU seconds
(user + system of the child) and peak RSS, medians over the rounds, and the ratio of
the medians. A further fresh process (the garbage collector paused, as the command has
it) splits the report's CPU into the imports, the
integrity check (schema, chain, every row re-hashed, or from the run's checkpoint, then
the run's slots, suite and config: what makes TAMPERED possible; the chain check alone,
the content check alone and the full walk `verify` makes are then timed again, side by
side, once the imports and caches are warm) and the figures (scores read as columns,
aggregated and rendered), and the start-up of the command is measured alone
(`agent-assay --version`). Not part of `make test`: the 1M store takes a minute or more
to write.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tools.bench.output import CLI, machine, measured, write_figures

ROOT = Path(__file__).resolve().parents[2]

ITEMS = 100
SCORERS = 13
TRIALS = 5
LABELS = ("small", "medium", "large")
TARGET_CPU_SECONDS = 1.2
TARGET_OVER_FLOOR = 1.5
TARGET_PEAK_MB = 300
TARGET_TINY_CPU_SECONDS = 0.4
FLOOR = ROOT / "tools/bench/report_floor.py"
_SPLIT = """
import gc, json, resource, sys, time
gc.disable()  # as `agent-assay report` runs (agent_assay.collector)
t = time.process_time()
from agent_assay import api
from agent_assay.integrity.admissibility import assess
from agent_assay.views.render import render_text
from agent_assay.views.load import summarise
imports = time.process_time() - t
store = api.open_db(sys.argv[1], read_only=True)
run = store.get_run(sys.argv[2])
t = time.process_time()
verdict = assess(store, run)
integrity = time.process_time() - t
t = time.process_time()
render_text(summarise(store, run, check=verdict.integrity.check))
figures = time.process_time() - t
from agent_assay.store.evidence import check_run, check_run_chain, content_findings
t = time.process_time()
check = check_run(store, run.run_id)
chain = time.process_time() - t
t = time.process_time()
content_findings(store, run, check, store.events(run.run_id))
content = time.process_time() - t
t = time.process_time()
check_run_chain(store, run.run_id)
full_walk = time.process_time() - t
quick = len(verdict.integrity.check.ledger) < verdict.integrity.check.blocks
print(json.dumps({"imports": imports, "integrity": integrity, "figures": figures,
                  "tampered": verdict.tampered, "full_walk": full_walk, "chain": chain,
                  "content": content, "quick": quick,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def floor_queries(db: Path, run_id: str) -> dict[str, Any]:
    """The SELECTs the report's integrity check runs on `run_id` from its checkpoint (see
    tools/bench/report_floor.py), compiled for SQLite with their parameters (bytes as hex)."""
    from sqlalchemy.dialects import sqlite

    from agent_assay.store import open_existing_store
    from agent_assay.store.evidence import stream_selects

    store = open_existing_store(str(db))
    selects = stream_selects(store, run_id)
    store.close()
    if selects is None:
        raise SystemExit(f"run {run_id} has no usable checkpoint")

    def compiled(query: Any) -> tuple[str, list[Any]]:
        done = query.compile(dialect=sqlite.dialect())
        values = done.construct_params()
        params = [values[name] for name in done.positiontup or ()]
        return str(done), [{"hex": p.hex()} if isinstance(p, bytes) else p for p in params]

    tables = [dict(zip(("sql", "params"), compiled(query), strict=True), name=name,
                   n_bytes=n_bytes) for name, query, n_bytes in selects.tables]
    attempts = [dict(zip(("sql", "params"), compiled(query), strict=True), name=name)
                for name, query in selects.attempts]
    return {"run_id": run_id, "stream": selects.stream, "tables": tables,
            "attempts": attempts, "ledger": compiled(selects.ledger)}


def write_run(db: Path, scores: int) -> str:
    """A complete no-op run holding at least `scores` scores; its id."""
    from agent_assay import api
    from tools.bench.core import NoopAdapter

    repeats = max(1, -(-scores // (ITEMS * SCORERS)))
    done = api.evaluate(NoopAdapter(), "noop", store=str(db), repeats=repeats, seed=0)
    return done.run.run_id


def succeeded(command: list[str], ok: tuple[int, ...] = (0,)) -> dict[str, Any]:
    """`command` measured in a fresh child; a failure (an exit code not in `ok`) stops the
    benchmark, saying why."""
    got = measured(command)
    if got["code"] not in ok:
        raise SystemExit(f"{' '.join(command)} exited {got['code']}: {got['err']}")
    return got


def paired_rounds(db: Path, run_id: str, workdir: Path, trials: int) -> dict[str, Any]:
    """The report and its floor on the same run, alternating in fresh processes."""
    queries = workdir / f"{db.stem}_queries.json"
    queries.write_text(json.dumps(floor_queries(db, run_id)), encoding="utf-8")
    # -P: the script's folder (which holds tools/bench/inspect.py) is not put on sys.path
    floor_command = [sys.executable, "-P", str(FLOOR), str(db), str(queries)]
    floor_said = json.loads(subprocess.run(floor_command, capture_output=True, text=True,
                                           check=True).stdout)
    if not floor_said["matches"]:
        raise SystemExit(f"the floor's stream digest is not the checkpoint's on {db}: it "
                         "does not read what the report's check reads")
    shown = subprocess.run([CLI, "report", run_id, "--db", str(db), "--json"],
                           capture_output=True, text=True)
    means = {name: m["mean_of_k"] for name, m in json.loads(shown.stdout)["metrics"].items()}
    if not _same_means(means, floor_said["means"]):
        raise SystemExit(f"the floor's means are not the report's on {db}: {floor_said['means']}"
                         f" against {means}")
    reports, floors = [], []
    for _ in range(trials):
        # 3: the run timed is one no control judged, so its report exits INADMISSIBLE
        reports.append(succeeded([CLI, "report", run_id, "--db", str(db)], ok=(0, 3)))
        floors.append(succeeded(floor_command))
    cpu = statistics.median(r["cpu"] for r in reports)
    floor = statistics.median(f["cpu"] for f in floors)
    return {
        "report_cpu_seconds": round(cpu, 3),
        "report_cpu_trials": [round(r["cpu"], 3) for r in reports],
        "report_peak_rss_mb": round(max(r["rss_mb"] for r in reports), 1),
        "floor_cpu_seconds": round(floor, 3),
        "floor_cpu_trials": [round(f["cpu"], 3) for f in floors],
        "floor_peak_rss_mb": round(max(f["rss_mb"] for f in floors), 1),
        "report_over_floor": round(cpu / floor, 3),
        "floor_rows_read": floor_said["rows"],
        "floor_means": floor_said["means"],
    }


def _same_means(shown: dict[str, Any], floor: dict[str, Any]) -> bool:
    """The report's per-metric means and the floor's, equal up to the last bits of a sum
    taken in another order (None where a metric has no value)."""
    return shown.keys() == floor.keys() and all(
        (a is None) == (b is None) and (a is None or abs(a - b) <= 1e-9 * max(1.0, abs(a)))
        for a, b in ((shown[k], floor[k]) for k in shown))


def one_size(scores: int, workdir: Path, trials: int) -> dict[str, Any]:
    db = workdir / f"report_{scores}.db"
    run_id = write_run(db, scores)
    paired = paired_rounds(db, run_id, workdir, trials)
    split = json.loads(subprocess.run([sys.executable, "-c", _SPLIT, str(db), run_id],
                                      capture_output=True, text=True, check=True).stdout)
    from agent_assay.store import open_existing_store

    store = open_existing_store(str(db))
    stored = store.count_scores()
    trajectories = store.count_rows("trajectories")
    store.close()
    return {
        "scores": stored,
        "trajectories": trajectories,
        "run_id": run_id,
        **paired,
        "imports_cpu_seconds": round(split["imports"], 3),
        "integrity_cpu_seconds": round(split["integrity"], 3),
        "figures_cpu_seconds": round(split["figures"], 3),
        "checked_from_checkpoint": split["quick"],
        "chain_check_cpu_seconds": round(split["chain"], 3),
        "content_check_cpu_seconds": round(split["content"], 3),
        "full_walk_cpu_seconds": round(split["full_walk"], 3),
        "store_bytes_per_trajectory": round(db.stat().st_size / trajectories),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--trials", type=int, default=TRIALS)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/report.json")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if len(sizes) != len(LABELS):
        parser.error(f"--sizes takes {len(LABELS)} sizes, smallest first")
    startup = [succeeded([CLI, "--version"]) for _ in range(args.trials)]
    with tempfile.TemporaryDirectory() as tmp:
        tiny = one_size(1, Path(tmp), args.trials)
        rows = [one_size(n, Path(tmp), args.trials) for n in sizes]
        for row in [tiny, *rows]:
            print(f"{row['scores']:>9} scores: report {row['report_cpu_seconds']} s CPU, "
                  f"floor {row['floor_cpu_seconds']} s ({row['report_over_floor']}x), "
                  f"{row['report_peak_rss_mb']} MB (imports {row['imports_cpu_seconds']} s, "
                  f"integrity {row['integrity_cpu_seconds']} s, figures "
                  f"{row['figures_cpu_seconds']} s)", flush=True)
    largest, smallest = rows[-1], rows[0]
    growth = (largest["report_cpu_seconds"] / smallest["report_cpu_seconds"]) / (
        largest["scores"] / smallest["scores"])
    figures: dict[str, Any] = {
        "command": "make bench-report",
        "machine": machine(),
        "trials": args.trials,
        "startup_cpu_seconds": round(statistics.median(s["cpu"] for s in startup), 3),
        "sizes": dict(zip(LABELS, rows, strict=True)),
        "tiny": tiny,
        "tiny_report_cpu_seconds": tiny["report_cpu_seconds"],
        "report_over_floor_largest": largest["report_over_floor"],
        "cpu_growth_per_score_largest_over_smallest": round(growth, 3),
        "targets": {"report_cpu_seconds_max": TARGET_CPU_SECONDS,
                    "report_over_floor_max": TARGET_OVER_FLOOR,
                    "report_peak_rss_mb_max": TARGET_PEAK_MB,
                    "tiny_report_cpu_seconds_max": TARGET_TINY_CPU_SECONDS,
                    "growth_at_most_linear": 1.0},
        "meets_targets": {
            "report_cpu_seconds": largest["report_cpu_seconds"] <= TARGET_CPU_SECONDS,
            "report_over_floor": largest["report_over_floor"] <= TARGET_OVER_FLOOR,
            "report_peak_rss_mb": largest["report_peak_rss_mb"] <= TARGET_PEAK_MB,
            "tiny_report_cpu_seconds": tiny["report_cpu_seconds"] <= TARGET_TINY_CPU_SECONDS,
            "growth_at_most_linear": growth <= 1.0,
        },
    }
    write_figures(args.out, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
