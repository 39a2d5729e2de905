"""`make bench-postgres`: the PostgreSQL writer's throughput beside SQLite's, on the same run.

    python -m tools.bench.postgres [--trajectories 10000] [--rounds 3]
                                   [--out reports/bench/postgres.json]

The same no-op run (tools.bench.core.NoopAdapter, one agent process, sequential) is
written by the real runner into a fresh SQLite file and into a fresh PostgreSQL database
provisioned as `agent-assay store provision` does (the harness's own role, its guards and
triggers), in alternating rounds; each is timed in wall seconds from the start of the run
to its end (the end-of-run checkpoint included), in a fresh process. Throughput is
trajectories per wall second; the ratio is PostgreSQL's median over SQLite's. The server
is the one AA_BENCH_PG_URL names (its owner's URL), else a throwaway cluster on 127.0.0.1
(tests/support/pg_cluster.py: durability off on the server, as SQLite's WAL with
synchronous=NORMAL is not fully durable either; both on this machine's two cores). Without
a PostgreSQL server or driver, the benchmark says why on one line and writes nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from tools.bench.output import at_least, child_figures, machine, write_figures

ROOT = Path(__file__).resolve().parents[2]
TARGET_RATIO = 0.8

RUN = '''
import json, sys, time
from tools.bench.core import N_ITEMS, NoopAdapter
from agent_assay import api
from agent_assay.runner import execute_run
from agent_assay.store import open_store

adapter = NoopAdapter()
store = open_store(sys.argv[1])
run = api.start(adapter, "noop", store=store, repeats=int(sys.argv[2]) // N_ITEMS, seed=0)
start = time.perf_counter()
result = execute_run(store, adapter, run, progress=False)
print(json.dumps({"wall": time.perf_counter() - start, "written": result.written}))
'''


def per_second(db: str, trajectories: int, what: str) -> float:
    got = child_figures([sys.executable, "-c", RUN, db, str(trajectories)], what)
    return float(got["written"]) / float(got["wall"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/postgres.json")
    args = parser.parse_args()
    if importlib.util.find_spec("psycopg") is None:
        print("bench-postgres skipped: no PostgreSQL driver (pip install 'agent-assay[postgres]')")
        return 0
    from tests.support import pg_cluster
    from tools.bench.scale import postgres_database

    rates: dict[str, list[float]] = {"postgresql": [], "sqlite": []}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            pg_url, cluster = postgres_database()
        except pg_cluster.ClusterError as exc:
            print(f"bench-postgres skipped: {exc}")
            return 0
        try:
            for round_ in range(args.rounds):
                sqlite_db = str(Path(tmp) / f"round{round_}.db")
                rates["sqlite"].append(per_second(sqlite_db, args.trajectories, "SQLite"))
                rates["postgresql"].append(per_second(pg_url, args.trajectories,
                                                      "PostgreSQL"))
                print(f"round {round_ + 1}: PostgreSQL {rates['postgresql'][-1]:.1f}, "
                      f"SQLite {rates['sqlite'][-1]:.1f} trajectories/s", flush=True)
        finally:
            if cluster is not None:
                pg_cluster.stop(cluster)
                shutil.rmtree(cluster, ignore_errors=True)
    median = {side: round(statistics.median(v), 1) for side, v in rates.items()}
    ratio = round(median["postgresql"] / median["sqlite"], 3)
    write_figures(args.out, {
        "command": "make bench-postgres",
        "machine": machine(),
        "trajectories": args.trajectories,
        "rounds": args.rounds,
        "trajectories_per_second": {"median": median,
                                    "trials": {k: [round(x, 1) for x in v]
                                               for k, v in rates.items()}},
        **at_least(ratio, TARGET_RATIO),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
