"""`--executor dask` on the command line: a local cluster the command starts and closes
itself, refusals in one line that leave the store untouched, and dask imported only
when asked for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_assay.store import open_store
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.toy import ToyAdapter
from tests.support.toyrun import agent_assay, cli_env, toy_run, write_toy_dist

NO_DASK = "distributed is not installed (pip install 'agent-assay[dask]'): no Dask executor"
UNREACHABLE = "tcp://127.0.0.1:9"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return write_toy_dist(tmp_path / "site")


def one_error_line(done: Invocation) -> str:
    assert done.traceback is None, done.traceback
    assert done.code == 1
    lines = done.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.err
    return lines[0]


def test_run_starts_and_closes_its_own_local_cluster(site: Path, tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason=NO_DASK)
    db = str(tmp_path / "a.db")
    done = agent_assay("run", "--adapter", "toy", "--config", "noisy", "--repeats", "3",
                       "--seed", "5", "--executor", "dask", "--workers", "2", "--db", db,
                       env=cli_env(site), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run_id = done.stdout.strip()
    # distributed says nothing, in this process or in its workers
    assert done.stderr.splitlines() == [
        f"run {run_id}", "wrote 12 trajectories (0 crashed), skipped 0 already stored"]
    store = open_store(db)
    sequential = toy_run(store, ToyAdapter(), "noisy", repeats=3, seed=5)

    def stored(run: str) -> list[tuple[str, int, str, float | None]]:
        return sorted((r.item_id, r.repetition, r.scorer, r.value)
                      for r in store.current_scores(run) if r.scorer != "latency.total_ms")

    assert len(stored(run_id)) == 4 * 3 * 12
    assert stored(run_id) == stored(sequential.run_id)
    closed = store.events(run_id)[-1]
    assert (closed.event, closed.detail["scheduler"], closed.detail["worker_threads"]) == (
        "complete", "local", 2)


@pytest.mark.parametrize("command", ["run", "resume", "controls"])
def test_an_unreachable_scheduler_is_one_line_and_writes_nothing(
    site: Path, tmp_path: Path, command: str
) -> None:
    """Refused as soon as its port refuses a connection, not after the Dask client's whole
    timeout (no timeout is shortened here)."""
    pytest.importorskip("distributed", reason=NO_DASK)
    db = tmp_path / "a.db"
    store = open_store(str(db))
    stopped = toy_run(store, ToyAdapter(), "good")
    before = store.count_rows("run_events"), store.run_ids()
    dask = ("--executor", "dask", "--scheduler", UNREACHABLE, "--db", str(db))
    args = {
        "run": ("run", "--adapter", "toy", "--config", "good", "--repeats", "2", *dask),
        "resume": ("run", "--resume", stopped.run_id, *dask),
        # other items than the stored run's: a run must be made for the controls
        "controls": ("controls", "run", "--adapter", "toy", "--config", "good", "--limit",
                     "2", *dask),
    }[command]
    with on_path(site):
        line = one_error_line(invoke(*args))
    assert line == f"error: cannot reach the Dask scheduler at {UNREACHABLE}: Connection refused"
    assert (store.count_rows("run_events"), store.run_ids()) == before


@pytest.mark.parametrize("address", ["garbage", "tcp://127.0.0.1", "http://127.0.0.1:8786",
                                     "tcp://127.0.0.1:port"])
def test_a_scheduler_address_that_is_not_one_is_one_line_and_writes_nothing(
    site: Path, tmp_path: Path, address: str
) -> None:
    """Refused before the Dask client is made (it would retry for its whole timeout, and
    print an ignored exception as it is collected), so before any store is touched."""
    db = tmp_path / "a.db"
    with on_path(site):
        done = invoke("run", "--adapter", "toy", "--config", "good", "--executor", "dask",
                      "--scheduler", address, "--db", str(db))
    assert one_error_line(done) == (
        f"error: --scheduler {address!r} is not a Dask scheduler address (tcp://HOST:PORT)")
    assert not db.exists()


@pytest.mark.parametrize("command", [("run", "--config", "good"), ("controls", "run")])
def test_a_scheduler_without_the_dask_executor_is_refused(
    site: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    db = tmp_path / "a.db"
    with on_path(site):
        done = invoke(*command, "--adapter", "toy", "--scheduler", UNREACHABLE, "--db", str(db))
    assert one_error_line(done) == "error: --scheduler needs --executor dask"
    assert not db.exists()


def test_a_missing_distributed_names_the_extra_to_install(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "agent_assay.executors.dask_cluster", raising=False)
    db = tmp_path / "a.db"
    with on_path(site):
        done = invoke("run", "--adapter", "toy", "--config", "good", "--executor", "dask",
                      "--db", str(db))
    line = one_error_line(done)
    assert line.startswith("error: --executor dask needs dask.distributed (")
    assert line.endswith("): pip install 'agent-assay[dask]'")
    assert not db.exists()


def test_help_and_the_default_executor_never_import_dask(site: Path, tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from agent_assay.cli import run_cli\n"
        "run_cli(['--help'])\n"
        f"assert run_cli(['run', '--adapter', 'toy', '--config', 'good', '--workers', '2', "
        f"'--db', {str(tmp_path / 'a.db')!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], env=cli_env(site), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
