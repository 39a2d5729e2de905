"""`make bench-scale`: 100,000 no-op trajectories through both scale paths, and a report.

    python -m tools.bench.scale [--trajectories N] [--out reports/bench/scale.json]

Two set-ups, each in a fresh process so peak memory is its own:
  (a) an SQLite file, agents in a pool of 2 spawned processes;
  (b) a PostgreSQL database (as the harness's role), agents on a Dask LocalCluster of 2
      workers on 127.0.0.1.
Each reports trajectories per second (the writer's wall time from the first task to the
last commit), the writer's peak RSS and the largest worker's, then times
`agent-assay report` over the run it wrote (wall seconds and peak RSS). The PostgreSQL
server is the one AA_BENCH_PG_URL names (its owner's URL), else a throwaway cluster
started by tests/support/pg_cluster.py. Not part of `make test`: it takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from time import perf_counter
from typing import Any

from tests.support import pg_cluster

ROOT = Path(__file__).resolve().parents[2]

WORKERS = 2
ITEMS = 100  # tools.bench.core.NoopAdapter's suite
SETUPS = ("sqlite-process", "postgresql-dask")


def _env() -> dict[str, str]:
    """Workers (spawned, or started by Dask's nanny) import the no-op adapter from
    tools.bench.core, so the repository root is on their path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def one(setup: str, db: str, trajectories: int) -> dict[str, Any]:
    """Run the no-op suite into `db` with `setup`; measured in this process."""
    from agent_assay import api
    from tools.bench.core import NoopAdapter

    repeats = max(1, trajectories // ITEMS)
    executor = api.ExecutorSpec("dask" if setup.endswith("dask") else "process", WORKERS)
    started = perf_counter()
    done = api.evaluate(NoopAdapter(), "noop", store=db, repeats=repeats, seed=0,
                        executor=executor)
    wall = perf_counter() - started
    written = done.result.written
    return {
        "setup": setup,
        "trajectories": written,
        "wall_seconds": round(wall, 2),
        "trajectories_per_second": round(written / wall, 1),
        "writer_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "largest_worker_peak_rss_mb": round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1
        ),
        "run_id": done.run.run_id,
    }


def _measured(command: list[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run `command`; its result, wall seconds, and its peak RSS in MB (a fresh child)."""
    probe = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "w = time.perf_counter() - t\n"
        "m = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(json.dumps({'rc': p.returncode, 'out': p.stdout, 'err': p.stderr, "
        "'wall': w, 'rss': m}))\n"
    )
    raw = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True,
                         text=True, env=_env(), check=True)
    data = json.loads(raw.stdout)
    result = subprocess.CompletedProcess(command, data["rc"], data["out"], data["err"])
    return result, float(data["wall"]), float(data["rss"])


def measure(setup: str, db: str, trajectories: int) -> dict[str, Any]:
    """One set-up in a fresh process, then `report` over its run in another."""
    done, _, _ = _measured([sys.executable, "-m", "tools.bench.scale", "--one", setup, "--db", db,
                            "--trajectories", str(trajectories)])
    if done.returncode != 0:
        raise SystemExit(f"bench-scale: {setup} failed: {done.stderr.strip()[-400:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    agent_assay = str(Path(sys.executable).parent / "agent-assay")
    report, wall, rss = _measured([agent_assay, "report", row["run_id"], "--db", db])
    if report.returncode not in (0, 3):  # 3: inadmissible (no controls were run), still read
        raise SystemExit(f"bench-scale: report failed: {report.stderr.strip()[-400:]}")
    row["report_seconds"] = round(wall, 2)
    row["report_peak_rss_mb"] = round(rss, 1)
    return row


def postgres_database() -> tuple[str, Path | None]:
    """A new database with the store provisioned; (the harness role's URL, a cluster to stop)."""
    import psycopg
    from sqlalchemy.engine import make_url

    from agent_assay.store.database import provision

    given = os.environ.get("AA_BENCH_PG_URL")
    # a directory of its own under /tmp: the server's user must be able to reach it
    cluster = None if given else Path(tempfile.mkdtemp(prefix="aa-scale-pg-"))
    owner = given or pg_cluster.start(cluster)  # type: ignore[arg-type]
    name = f"assay_scale_{uuid.uuid4().hex[:8]}"
    plain = make_url(owner).set(drivername="postgresql", database="postgres")
    with psycopg.connect(plain.render_as_string(hide_password=False), autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    owner_db = make_url(owner).set(database=name)
    provision(owner_db.render_as_string(hide_password=False), "assay_scale", "scale-pw")
    harness = owner_db.set(username="assay_scale", password="scale-pw")
    return harness.render_as_string(hide_password=False), cluster


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/scale.json")
    parser.add_argument("--one", choices=SETUPS, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--db", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.db, args.trajectories)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        pg_db, cluster = postgres_database()
        try:
            rows = [
                measure("sqlite-process", str(Path(tmp) / "scale.db"), args.trajectories),
                measure("postgresql-dask", pg_db, args.trajectories),
            ]
        finally:
            if cluster is not None:
                pg_cluster.stop(cluster)
                shutil.rmtree(cluster, ignore_errors=True)
    result = {
        "command": "make bench-scale",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "workers": WORKERS,
        "agent": "tools.bench.core.NoopAdapter: a stored trajectory per item, no agent work",
        **{row["setup"].replace("-", "_"): {k: v for k, v in row.items() if k != "run_id"}
           for row in rows},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
