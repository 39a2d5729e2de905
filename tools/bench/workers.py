"""`make bench-workers`: banking throughput with 1, 2 and 4 worker processes.

    python -m tools.bench.workers [--repeats 100] [--rounds 3] [--out reports/bench/workers.json]

Each measurement is one fresh child process running `api.evaluate` on the bundled bank's
`mock` config over its items x `--repeats` into a fresh SQLite file; the child times the
evaluation alone (spawning the pool and rebuilding the system in each worker included,
the interpreter's own start-up not). The worker counts take turns within each round, so a
machine that slows down during the benchmark slows all of them alike. Throughput is
trajectories per wall second; the figure the issue asks for is the median throughput at
2 workers over the median at 1.

Wall time on a shared machine says little of where the ceiling is, so each child also
counts the CPU seconds of the whole process tree of the evaluation, by kind: the writer
(the child itself, every thread), the processes it started and reaped (the scoring
processes, and each agent process's start before it detaches: about 0.1 s of an
interpreter starting, the whole of this figure at 1 worker), and the agent processes once
detached (the child adopts them, `PR_SET_CHILD_SUBREAPER`, and reaps them, as
`output.measured` does for the other benchmarks). With `cores` cores, no run can go faster
than cores / (CPU seconds per trajectory), nor than its writer's CPU per trajectory allows
(see `cpu_figures`); two workers reach 1.7 times one only if their CPU per trajectory is at
most cores / (1.7 x the rate at 1 worker), `cpu_ms_per_trajectory_at_2_for_target`.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from time import perf_counter
from typing import Any

from tools.bench.output import child_figures, machine, write_figures

ROOT = Path(__file__).resolve().parents[2]

WORKER_COUNTS = (1, 2, 4)
TARGET_SPEEDUP_AT_2 = 1.7
KINDS = ("writer", "scoring", "agents")
PR_SET_CHILD_SUBREAPER = 36
REAP_SECONDS = 60


def cpu(who: int) -> float:
    use = resource.getrusage(who)
    return use.ru_utime + use.ru_stime


def one(workers: int, repeats: int, db: str) -> dict[str, Any]:
    """One evaluation in this process: its wall seconds, trajectories written, and the CPU
    seconds of each kind of process it ran in (see the module's docstring)."""
    from agent_assay import api
    from agent_assay.adapters.registry import load_adapter

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    system = load_adapter("banking")
    writer, reaped = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
    started = perf_counter()
    done = api.evaluate(system, "mock", store=db, repeats=repeats,
                        executor=api.ExecutorSpec(workers=workers))
    wall = perf_counter() - started
    used = {"writer": cpu(resource.RUSAGE_SELF) - writer,
            "scoring": cpu(resource.RUSAGE_CHILDREN) - reaped,
            "agents": detached_cpu(workers)}
    return {"wall": wall, "written": done.result.written, "cpu": used}


def detached_cpu(count: int) -> float:
    """The CPU seconds of the `count` agent processes that detached and were adopted by this
    one, once each has ended (they are told to as the evaluation ends) and been reaped.
    Nothing else is left to reap: the scoring processes were joined, and the resource
    tracker multiprocessing starts lives until this process ends."""
    total, deadline = 0.0, time.monotonic() + REAP_SECONDS
    while count:
        pid, _, use = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            if time.monotonic() > deadline:
                raise SystemExit(f"{count} agent process(es) did not end in {REAP_SECONDS} s")
            time.sleep(0.01)
            continue
        total += use.ru_utime + use.ru_stime
        count -= 1
    return total


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
    spent: dict[int, dict[str, list[float]]] = {n: {k: [] for k in KINDS} for n in WORKER_COUNTS}
    written = 0
    for _ in range(args.rounds):
        for workers in WORKER_COUNTS:
            got = measured(workers, args.repeats)
            written = int(got["written"])
            rates[workers].append(got["written"] / got["wall"])
            for kind in KINDS:
                spent[workers][kind].append(got["cpu"][kind] / got["written"] * 1000)
    median = {str(n): round(statistics.median(r), 1) for n, r in rates.items()}
    speedup = {str(n): round(statistics.median(r) / statistics.median(rates[1]), 3)
               for n, r in rates.items()}
    write_figures(args.out, {
        **cpu_figures(spent),
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


def cpu_figures(spent: dict[int, dict[str, list[float]]]) -> dict[str, Any]:
    """CPU ms per trajectory of each kind of process (medians over the rounds) and of all of
    them, the machine's cores, the `ceiling` that CPU allows, and what the target asks of
    the total at 2 workers.

    The ceiling is what each worker count could reach with nothing else running: every core
    busy with this run, or its writer (one process, which no worker count splits) busy all
    the time, whichever comes first. It depends on CPU seconds alone, so it holds on a busy
    machine too, whose wall-clock rates say less; for the same reason the target's budget
    takes the rate at 1 worker as its ceiling (on a quiet machine the measured rate comes
    close, its writer being busy all the time), not a busy machine's slower rate, which
    would loosen it."""
    from agent_assay.executors.scored_pool import usable_cores

    cores = usable_cores()  # the cores the pool sizes its scoring processes by
    per = {str(n): {kind: round(statistics.median(ms), 4) for kind, ms in kinds.items()}
           for n, kinds in spent.items()}
    total = {str(n): round(statistics.median([sum(one_round) for one_round in zip(
        *kinds.values(), strict=True)]), 4) for n, kinds in spent.items()}
    ceiling = {n: round(1000 / max(ms / cores, per[n]["writer"]), 1) for n, ms in total.items()}
    budget = cores * 1000 / (TARGET_SPEEDUP_AT_2 * ceiling["1"])
    return {
        "cores": cores,
        "cpu_ms_per_trajectory": {"by_kind": per, "total": total},
        "ceiling": {
            "trajectories_per_second": ceiling,
            "speedup_at_2": round(ceiling["2"] / ceiling["1"], 3),
            "cpu_ms_per_trajectory_at_2_for_target": round(budget, 4),
            "target_reachable_at_2": total["2"] <= budget,
        },
    }


if __name__ == "__main__":
    sys.exit(main())
