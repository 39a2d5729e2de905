"""The scale path gives the same numbers as the single machine: banking's mock agent, k=3,
on Dask workers into PostgreSQL, equals the SQLite process-pool run to the digit, and
synthbank's own scorer agrees with it (tools/cases/compare_to_sut.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_assay.api import system_of
from agent_assay.store import open_store
from tests.store.conftest import Backend
from tests.support.invoke import invoke
from tests.support.toyrun import ROOT, cli_env

pytest.importorskip("distributed", reason="the Dask executor needs agent-assay[dask]")


def banking_run(db: str, *executor: str) -> str:
    done = invoke("run", "--adapter", "banking", "--config", "mock", "--repeats", "3",
                  "--workers", "2", *executor,
                  "--db", db)
    assert done.code == 0 and done.traceback is None, done.err
    assert "wrote 312 trajectories (0 crashed)" in done.err
    return done.out.strip().splitlines()[-1]


def test_dask_into_postgresql_reproduces_the_process_pool_on_sqlite(
    pg: Backend, tmp_path: Path
) -> None:
    sqlite_db = str(tmp_path / "pool.db")
    pool_run = banking_run(sqlite_db)
    dask_run = banking_run(pg.db, "--executor", "dask")
    local, shared = open_store(sqlite_db), open_store(pg.db)
    try:
        pooled, distributed = local.current_scores(pool_run), shared.current_scores(dask_run)
    finally:
        local.close()
        shared.close()
    assert len(pooled) == len(distributed) == 312 * 13
    # every value compared with ==, every detail too, except the wall clock the system
    # itself declares nondeterministic
    clock = set(system_of("banking").facts.nondeterministic_fields)
    assert [r for r in distributed if r.scorer not in clock] == \
        [r for r in pooled if r.scorer not in clock]
    assert {r.scorer for r in pooled} & clock == {"latency.total_ms"}
    checked = subprocess.run(
        [sys.executable, "-m", "tools.cases.compare_to_sut", dask_run, "--db", pg.db],
        cwd=ROOT, env=cli_env(), capture_output=True, text=True, timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "RESULT: reproduced to the digit" in checked.stdout
