"""The Dask executor beside the sequential path and the process pool: the same scores to
the digit, a worker killed mid-run leaving every slot stored exactly once, resume across
executors, and the controls' statuses unchanged.

One local cluster (two single-threaded workers on 127.0.0.1, started as `--executor dask`
starts one) serves the module; the command-line tests reach it with --scheduler.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from agent_assay import api
from agent_assay.errors import AssayError, RunInterrupted
from agent_assay.executors.processes import SEQUENTIAL, Processes, open_backend
from agent_assay.executors.spec import ExecutorSpec
from agent_assay.runner import execute_run
from agent_assay.store import Store, open_store
from agent_assay.store.evidence import check_run_chain
from tests.executors.toys import DOOMED_ITEM, DoomedToy, set_env
from tests.support.cheats import PEEK_ENV, GoldPeek, noted
from tests.support.invoke import invoke, on_path
from tests.support.misbehaving import SLOW_SECONDS_ENV, InterruptingToy, SlowToy, press_ctrl_c_on
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run, write_toy_dist

if TYPE_CHECKING:
    from agent_assay.executors.dask_cluster import DaskBackend

Scores = dict[tuple[str, int, str], tuple[float | None, Any, str]]
NO_DASK = "distributed is not installed (pip install 'agent-assay[dask]'): no Dask executor"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskBackend]:
    """The module's cluster; the toy is registered first, so its workers can load it by
    name, as a remote cluster's workers load an installed adapter."""
    pytest.importorskip("distributed", reason=NO_DASK)
    from agent_assay.executors.dask_cluster import DaskBackend

    with on_path(write_toy_dist(tmp_path_factory.mktemp("site"))), open_backend(
        ExecutorSpec("dask", workers=2)
    ) as backend:
        assert isinstance(backend, DaskBackend)
        yield backend


def address(cluster: DaskBackend) -> str:
    return str(cluster.client.scheduler_info()["address"])


def scores(store: Store, run_id: str) -> Scores:
    """Every current score of a run but its latency (a time, not a result)."""
    return {
        (r.item_id, r.repetition, r.scorer): (r.value, r.detail, r.scorer_version)
        for r in store.current_scores(run_id)
        if r.scorer != "latency.total_ms"
    }


def stored_once(store: Store, run_id: str, slots: int) -> None:
    """Every slot stored exactly once, and the run's chain intact."""
    stored = [(t.item_id, t.repetition) for t in store.trajectories(run_id)]
    assert len(stored) == len(set(stored)) == slots
    assert check_run_chain(store, run_id).findings == ()


@pytest.mark.parametrize("config", ["noisy", "crashy"])
def test_dask_stores_what_the_sequential_path_and_the_process_pool_store(
    cluster: DaskBackend, store: Store, config: str
) -> None:
    toy = ToyAdapter()
    runs = {}
    for name, backend in (("sequential", SEQUENTIAL), ("process", Processes(2)),
                          ("dask", cluster)):
        run = new_toy_run(store, toy, config, repeats=3, seed=5)
        execute_run(store, toy, run, backend=backend, progress=False)
        runs[name] = run.run_id
    sequential = scores(store, runs["sequential"])
    assert len(sequential) == 4 * 3 * 12
    assert scores(store, runs["process"]) == sequential
    assert scores(store, runs["dask"]) == sequential
    paths = {name: sorted((t.item_id, t.repetition, t.path_key(), t.error or "")
                          for t in store.trajectories(run_id))
             for name, run_id in runs.items()}
    assert paths["dask"] == paths["process"] == paths["sequential"]
    crashed = [t for t in store.trajectories(runs["dask"]) if t.crashed]
    assert len(crashed) == (3 if config == "crashy" else 0)
    complete = store.events(runs["dask"])[-1]
    assert complete.event == "complete"
    assert {k: complete.detail[k] for k in ("executor", "scheduler", "worker_threads")} == {
        "executor": "dask", "scheduler": "local", "worker_threads": 2}
    assert "executor" not in store.events(runs["process"])[-1].detail


def test_a_worker_is_handed_no_gold_and_builds_the_system_once(
    cluster: DaskBackend, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PEEK_ENV, str(tmp_path))
    cluster.client.run(set_env, PEEK_ENV, str(tmp_path))
    peek = GoldPeek()
    run = new_toy_run(store, peek, "good", repeats=2)
    execute_run(store, peek, run, backend=cluster, progress=False)
    assert noted("found") == []
    handed = noted("handed")
    assert sorted(n for n in handed if n != "prepare") == sorted(2 * list(run.item_ids))
    assert 1 <= handed.count("prepare") <= 2  # once per worker thread, not once per task


def test_banking_mock_through_dask_compares_equal_to_the_process_pool(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    db = str(tmp_path / "bank.db")
    common: dict[str, Any] = {"store": db, "repeats": 3, "selection": api.Selection(limit=50)}
    pool = api.evaluate("banking", "mock", executor=api.ExecutorSpec(workers=2), **common)
    dask = api.evaluate("banking", "mock", executor=api.ExecutorSpec("dask", 2, address(cluster)),
                        **common)
    certified = [api.certify("banking", store=db, run=done.run_id) for done in (pool, dask)]
    assert [c.admissible for c in certified] == [True, True]
    assert certified[0].counts() == certified[1].counts()
    compared = api.compare(pool.run_id, dask.run_id, store=db)
    assert (compared.exit_code, compared.verdict_word) == (0, "COMPARED")
    metrics = [m for m in compared.comparison.metrics if m.metric != "latency.total_ms"]
    assert len(metrics) > 10
    assert [(m.metric, m.mean_a, m.difference) for m in metrics] == [
        (m.metric, m.mean_b, 0.0) for m in metrics]
    store = open_store(db)
    assert scores(store, dask.run_id) == scores(store, pool.run_id)
    assert len(scores(store, pool.run_id)) == 50 * 3 * 12


def test_a_worker_killed_mid_run_leaves_every_slot_stored_once(
    cluster: DaskBackend, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = SlowToy()  # half a second per item on the workers: still running when killed
    run = new_toy_run(store, slow, "good", repeats=3)
    where, victim = sorted(cluster.client.run(os.getpid).items())[0]
    write = store.write_trajectories
    was_running: list[object] = []

    def write_then_kill(*args: Any) -> Any:
        written = write(*args)
        if store.count_rows("trajectories") == 1:
            was_running.extend(cluster.client.processing()[where])
            os.kill(victim, signal.SIGKILL)
        return written

    monkeypatch.setattr(store, "write_trajectories", write_then_kill)
    result = execute_run(store, slow, run, backend=cluster, progress=False)
    assert was_running, "the worker was idle when it was killed"
    assert victim not in cluster.client.run(os.getpid).values()  # it did die
    assert (result.written, result.crashed) == (12, 0)
    assert store.count_rows("trajectories") == 12
    stored_once(store, run.run_id, 12)
    again = execute_run(store, slow, run, backend=cluster, progress=False)
    assert (again.written, again.skipped) == (0, 12)
    assert [e.event for e in store.events(run.run_id)][-2:] == ["complete", "complete"]


def test_an_item_that_kills_every_worker_it_runs_on_is_a_crash_of_its_slot_alone(
    cluster: DaskBackend, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the doomed item shares its first batch, which is split when its tries are used up
    monkeypatch.setattr("agent_assay.executors.dask_cluster.FIRST_BATCH", 2)
    doomed = DoomedToy()
    run = new_toy_run(store, doomed, "good")
    result = execute_run(store, doomed, run, backend=cluster, progress=False)
    assert (result.written, result.crashed) == (4, 1)
    (crash,) = [t for t in store.trajectories(run.run_id) if t.crashed]
    assert (crash.item_id, crash.repetition) == (DOOMED_ITEM, 1)
    assert crash.error == (
        "every Dask worker that ran this item died (killed, or out of memory); the scheduler "
        "stopped retrying it")
    # the agent's: an item could otherwise leave the denominator by killing its worker
    assert crash.meta == {"worker_died": True, "crash_cause": "agent"}
    assert result.first_crashes == (f"item {DOOMED_ITEM} rep 1: {crash.error}",)
    stored_once(store, run.run_id, 4)


def test_a_system_a_worker_cannot_build_stops_the_run_in_one_line(
    cluster: DaskBackend, store: Store
) -> None:
    class Unbuildable(ToyAdapter):  # a class a fresh process cannot import by its name
        name = "unbuildable"

    system = Unbuildable()
    run = new_toy_run(store, system, "good")
    with pytest.raises(AssayError) as stopped:
        execute_run(store, system, run, backend=cluster, progress=False)
    assert str(stopped.value).startswith(
        "a worker process could not start the system: a fresh process cannot build system "
        "unbuildable from tests.executors.test_dask_executor:")
    assert "\n" not in str(stopped.value)
    assert [e.event for e in store.events(run.run_id)] == ["started", "interrupted"]
    assert store.stored_slots(run.run_id) == set()


def test_a_run_interrupted_sequentially_is_finished_on_dask(
    cluster: DaskBackend, store: Store
) -> None:
    interrupted = InterruptingToy()
    run = new_toy_run(store, interrupted, "good", repeats=2)
    with pytest.MonkeyPatch.context() as patch:
        press_ctrl_c_on(patch, 3)
        with pytest.raises(RunInterrupted):
            execute_run(store, interrupted, run, progress=False)
    assert len(store.stored_slots(run.run_id)) == 2
    resumed = execute_run(store, ToyAdapter(), run, backend=cluster, progress=False)
    assert (resumed.written, resumed.skipped) == (6, 2)
    stored_once(store, run.run_id, 8)
    assert store.events(run.run_id)[-1].detail["executor"] == "dask"


def test_a_run_interrupted_on_dask_is_finished_in_the_process_pool(
    cluster: DaskBackend, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    toy = ToyAdapter()
    run = new_toy_run(store, toy, "good", repeats=3)
    write = store.write_trajectories

    def stop_at_the_fifth(*args: Any) -> Any:
        if store.count_rows("trajectories") >= 4:
            raise KeyboardInterrupt  # Ctrl-C, as the first batch after the fourth arrives
        return write(*args)

    monkeypatch.setattr(store, "write_trajectories", stop_at_the_fifth)
    with pytest.raises(RunInterrupted):
        execute_run(store, toy, run, backend=cluster, progress=False)
    monkeypatch.undo()
    stopped = store.events(run.run_id)[-1]
    written = stopped.detail["written"]
    assert (stopped.event, stopped.detail["executor"]) == ("interrupted", "dask")
    assert 4 <= written < 12 and written == len(store.stored_slots(run.run_id))
    resumed = execute_run(store, toy, run, backend=Processes(2), progress=False)
    assert (resumed.written, resumed.skipped) == (12 - written, written)
    stored_once(store, run.run_id, 12)


def test_the_run_command_reaches_a_running_scheduler_and_resumes_across_executors(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    db = str(tmp_path / "a.db")
    first = invoke("run", "--adapter", "toy", "--config", "good", "--repeats", "2",
                   "--limit", "2", "--executor", "dask", "--scheduler", address(cluster),
                   "--db", db)
    assert (first.code, first.traceback) == (0, None), first.err
    run_id = first.out.strip()
    assert first.err.splitlines() == [
        f"run {run_id}", "wrote 4 trajectories (0 crashed), skipped 0 already stored"]
    again = invoke("run", "--resume", run_id, "--workers", "2", "--db", db)
    assert (again.code, again.traceback) == (0, None), again.err
    assert "wrote 0 trajectories (0 crashed), skipped 4 already stored" in again.err
    shown = json.loads(invoke("runs", "show", run_id, "--json", "--db", db).out)
    closing = [e["detail"] for e in shown["events"] if e["event"] == "complete"]
    assert [d.get("scheduler") for d in closing] == [address(cluster), None]


def test_controls_run_on_dask_gives_the_statuses_it_gives_without(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    outcomes = []
    for name, extra in (("plain", ()), ("dask", ("--executor", "dask", "--scheduler",
                                                 address(cluster), "--workers", "2"))):
        db = str(tmp_path / f"{name}.db")
        done = invoke("controls", "run", "--adapter", "toy", "--config", "good", "--json",
                      *extra, "--db", db)
        assert done.traceback is None, done.traceback
        data = json.loads(done.out)
        assert data["exit_code"] == done.code
        outcomes.append(([(o["kind"], o["status"]) for o in data["outcomes"]],
                         data["admissible"], done.code))
        made = open_store(db).events(data["run_id"])[-1].detail
        assert made.get("executor") == (None if name == "plain" else "dask")
    assert outcomes[0] == outcomes[1]


def test_a_cluster_left_without_any_worker_stops_the_run_resumably(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cluster of its own (one in-process worker: no process to start), stopped to no
    worker once the first trajectory is stored: the run must stop with one line saying how
    to resume, not wait forever. The wait for a worker is shortened; nothing is timed."""
    pytest.importorskip("distributed", reason=NO_DASK)
    import logging

    from distributed import Client, LocalCluster

    from agent_assay.errors import RunStopped
    from agent_assay.executors.dask_cluster import DaskBackend

    monkeypatch.setattr("agent_assay.executors.dask_cluster.WORKERLESS_SECONDS", 0.5)
    monkeypatch.setattr("agent_assay.executors.dask_cluster.WORKER_CHECK_SECONDS", 0.1)
    monkeypatch.setenv(SLOW_SECONDS_ENV, "0.3")  # still running when the worker goes
    slow = SlowToy()
    run = new_toy_run(store, slow, "good", repeats=3)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None, silence_logs=logging.CRITICAL) as lone, \
            Client(lone, set_as_default=False) as client:
        write = store.write_trajectories

        def write_then_stop(*args: Any) -> Any:
            written = write(*args)
            if lone.workers:
                lone.scale(0)
            return written

        monkeypatch.setattr(store, "write_trajectories", write_then_stop)
        with pytest.raises(RunStopped) as stopped:
            execute_run(store, slow, run, backend=DaskBackend(client, "local"), progress=False)
    monkeypatch.undo()
    stored = len(store.stored_slots(run.run_id))
    assert str(stopped.value) == (
        f"the Dask cluster (local) has had no worker for 0.5 s (every worker stopped or was "
        f"killed) after {stored} new trajectories of run {run.run_id}; resume it with "
        f"`agent-assay run --resume {run.run_id}`")
    assert store.events(run.run_id)[-1].event == "interrupted"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SLOW_SECONDS_ENV, "0")
        resumed = execute_run(store, slow, run, progress=False)
    assert (resumed.written, resumed.skipped) == (12 - stored, stored)
    stored_once(store, run.run_id, 12)
