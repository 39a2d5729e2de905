"""`make bench-report`: what `agent-assay report` costs at 10k, 100k and 1M stored scores.

    python -m tools.bench.report [--sizes 10000,100000,1000000] [--out reports/bench/report.json]

Each size is a no-op run (tools.bench.core.NoopAdapter: 100 items, 13 scorers, k chosen so the
run holds at least that many scores) written by the real runner into its own SQLite
file. The report is then timed as a user meets it, `agent-assay report RUN --db FILE`
in a fresh process (median of 3): CPU seconds (user + system) and peak RSS. A second
fresh process splits the CPU into the integrity check (schema, chain, every row
re-hashed, or from the run's checkpoint, then the run's slots, suite and config: what
makes TAMPERED possible; the chain check alone, the content check alone and the full
walk `verify` makes are then timed again, side by side, once the imports and caches
are warm) and the figures (scores read as columns and
aggregated and rendered), after the imports they need (timed too), and the start-up of
the command is measured alone (`agent-assay --version`). Not part of `make test`: the 1M
store takes a minute or more to write.
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
TRIALS = 3
LABELS = ("small", "medium", "large")
TARGET_CPU_SECONDS = 1.0
TARGET_PEAK_MB = 300
_SPLIT = """
import json, resource, sys, time
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


def one_size(scores: int, workdir: Path) -> dict[str, Any]:
    db = workdir / f"report_{scores}.db"
    run_id = write_run(db, scores)
    # 3: the run timed is one no control judged, so its report exits INADMISSIBLE
    reports = [succeeded([CLI, "report", run_id, "--db", str(db)], ok=(0, 3))
               for _ in range(TRIALS)]
    split = json.loads(subprocess.run([sys.executable, "-c", _SPLIT, str(db), run_id],
                                      capture_output=True, text=True, check=True).stdout)
    from agent_assay.store import open_existing_store

    store = open_existing_store(str(db))
    stored = store.count_scores()
    trajectories = store.count_rows("trajectories")
    store.close()
    cpu = statistics.median(r["cpu"] for r in reports)
    return {
        "scores": stored,
        "trajectories": trajectories,
        "run_id": run_id,
        "report_cpu_seconds": round(cpu, 3),
        "report_peak_rss_mb": round(max(r["rss_mb"] for r in reports), 1),
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
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/report.json")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if len(sizes) != len(LABELS):
        parser.error(f"--sizes takes {len(LABELS)} sizes, smallest first")
    startup = [succeeded([CLI, "--version"])
               for _ in range(TRIALS)]
    with tempfile.TemporaryDirectory() as tmp:
        rows = [one_size(n, Path(tmp)) for n in sizes]
        for row in rows:
            print(f"{row['scores']:>9} scores: report {row['report_cpu_seconds']} s CPU, "
                  f"{row['report_peak_rss_mb']} MB (integrity {row['integrity_cpu_seconds']} s,"
                  f" figures {row['figures_cpu_seconds']} s)", flush=True)
    largest, smallest = rows[-1], rows[0]
    growth = (largest["report_cpu_seconds"] / smallest["report_cpu_seconds"]) / (
        largest["scores"] / smallest["scores"])
    figures: dict[str, Any] = {
        "command": "make bench-report",
        "machine": machine(),
        "startup_cpu_seconds": round(statistics.median(s["cpu"] for s in startup), 3),
        "sizes": dict(zip(LABELS, rows, strict=True)),
        "cpu_growth_per_score_largest_over_smallest": round(growth, 3),
        "targets": {"report_cpu_seconds_max": TARGET_CPU_SECONDS,
                    "report_peak_rss_mb_max": TARGET_PEAK_MB, "growth_at_most_linear": 1.0},
        "meets_targets": {
            "report_cpu_seconds": largest["report_cpu_seconds"] <= TARGET_CPU_SECONDS,
            "report_peak_rss_mb": largest["report_peak_rss_mb"] <= TARGET_PEAK_MB,
            "growth_at_most_linear": growth <= 1.0,
        },
    }
    write_figures(args.out, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
