"""Migrations, concurrent writers and resume, on both backends."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from agent_assay.errors import AssayError
from agent_assay.store import open_store
from agent_assay.store.database import migrations, schema_findings
from agent_assay.store.evidence import check_run_chain
from tests.store.conftest import Backend
from tests.support.invoke import invoke, on_path
from tests.support.legacy import copy_as_version, schema_version, score_rows_layout
from tests.support.misbehaving import (
    CTRL_C_PID_ENV,
    SLOW_SECONDS_ENV,
    press_ctrl_c_on,
    write_misbehaving_dist,
)
from tests.support.postgres import PgServer
from tests.support.tamper import behind_triggers
from tests.support.toy import ToyAdapter
from tests.support.toyrun import AGENT_ASSAY, ROOT, cli_env, toy_run

TOY_SLOTS = 4


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    site = write_misbehaving_dist(tmp_path_factory.mktemp("misbehaving"))
    with on_path(site):
        yield site


def row_counts(backend: Backend, db: str) -> dict[str, int]:
    engine = Backend(backend.name, db, db).engine()
    with engine.connect() as conn:
        names = inspect(conn).get_table_names()
        counts = {n: int(conn.execute(text(f"SELECT count(*) FROM {n}")).scalar_one())
                  for n in names}
    engine.dispose()
    return counts


@pytest.mark.parametrize("version", [1, 2])
def test_migration_keeps_every_row_and_seals_each_run(
    backend: Backend, version: int, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    store = open_store(backend.db)
    toy = ToyAdapter()
    with score_rows_layout():  # as the older agent-assay wrote them: a row per score
        runs = [toy_run(store, toy, "crashy", repeats=2), toy_run(store, toy, "good")]
    store.close()
    server: PgServer | None = (
        request.getfixturevalue("pg_server") if backend.on_postgresql else None
    )
    old = (server.url(server.new_database()) if server is not None
           else str(tmp_path / "old.db"))
    copy_as_version(backend.db, old, version)
    before = row_counts(backend, old)
    assert schema_version(old) == version
    assert all(before[t] > 0 for t in before if t not in ("control_outcomes", "mutation_results"))

    with pytest.raises(AssayError) as refused:
        open_store(old)
    message = str(refused.value)
    assert "agent-assay migrate --db" in message and f"schema version {version}" in message
    assert "\n" not in message and "assay-admin" not in message  # the password is masked

    done = invoke("migrate", "--db", old)
    assert done.code == 0 and done.traceback is None, done.err
    applied = ", ".join(str(v) for v in range(version + 1, migrations.LATEST + 1))
    assert f"applied migration(s) {applied}; schema now {migrations.LATEST}" in done.out

    after = row_counts(backend, old)
    assert after.pop("ledger") == len(runs)  # one seal per run
    for new in ("score_generations", "store_repairs", "control_outcomes", "mutation_results",
                "score_sets", "state_blobs"):
        assert after.pop(new) == before.pop(new, 0)
    assert after.pop("schema_migrations") == migrations.LATEST
    before.pop("schema_migrations")
    assert after == before

    migrated = open_store(old)
    with migrated.engine.connect() as conn:
        assert schema_findings(conn) == []
    assert migrations.apply(migrated.engine) == []
    for run in runs:
        check = check_run_chain(migrated, run.run_id)
        assert check.findings == ()
        assert [e.kind for e in check.ledger] == ["seal"]
    migrated.append_event(runs[0].run_id, "resumed", {})  # a sealed run keeps growing
    assert check_run_chain(migrated, runs[0].run_id).findings == ()
    with migrated.engine.begin() as conn:  # and an edit to a sealed row is seen
        on = " ON scores" if backend.on_postgresql else ""
        conn.execute(text(f"DROP TRIGGER scores_no_update{on}"))
        conn.execute(text("UPDATE scores SET value = 0.5 WHERE id = 1"))
    problems = [f.line() for f in check_run_chain(migrated, runs[0].run_id).findings]
    assert problems == ["scores rows sealed at migration: content changed since the seal"]
    migrated.close()


def test_two_processes_write_concurrently(backend: Backend) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.support.concurrent_writer", backend.db, "4"],
            cwd=ROOT, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=180) for p in procs]
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert len(out.split()) == 4
    run_ids = {rid for out, _ in outputs for rid in out.split()}
    assert len(run_ids) == 8
    store = open_store(backend.db)
    assert {r.run_id for r in store.list_runs()} == run_ids
    assert store.count_rows("suites") == 1
    assert store.count_rows("trajectories") == 8 * 4 * 2
    assert store.count_scores() == 8 * 4 * 2 * 13
    for run_id in run_ids:
        assert len(store.stored_slots(run_id)) == 8
        assert [e.event for e in store.events(run_id)] == ["started", "complete"]
        assert check_run_chain(store, run_id).findings == ()
    store.close()


def stored(db: str, run_id: str) -> tuple[int, list[str]]:
    store = open_store(db)
    try:
        return store.trajectory_counts(run_id)[0], [e.event for e in store.events(run_id)]
    finally:
        store.close()


def test_an_interrupted_run_resumes_without_a_duplicate(
    backend: Backend, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    press_ctrl_c_on(monkeypatch, 3)
    done = invoke("run", "--adapter", "interrupted", "--config", "good", "--db", backend.db)
    monkeypatch.delenv(CTRL_C_PID_ENV)
    assert done.code == 130 and done.traceback is None, done.err
    line = done.err.strip().splitlines()[-1]
    run_id = line.split("run ", 1)[1].split()[0]
    assert "s3cret" not in done.err  # the resume hint names the store, password masked
    assert stored(backend.db, run_id) == (2, ["started", "interrupted"])
    resumed = invoke("run", "--resume", run_id, "--db", backend.db)
    assert resumed.code == 0, resumed.err
    assert "wrote 2 trajectories (0 crashed), skipped 2 already stored" in resumed.err
    count, events = stored(backend.db, run_id)
    assert count == TOY_SLOTS and events == ["started", "interrupted", "resumed", "complete"]
    store = open_store(backend.db)
    assert check_run_chain(store, run_id).findings == ()
    store.close()


def start_slow_writer(
    backend: Backend, site: Path, *, repeats: int, seconds: float
) -> subprocess.Popen[str]:
    """`run` of the slow toy (each item takes `seconds`) into `backend`, in its own process."""
    return subprocess.Popen(
        [str(AGENT_ASSAY), "run", "--adapter", "slowtoy", "--config", "good", "--repeats",
         str(repeats), "--db", backend.db],
        env=cli_env(site) | {SLOW_SECONDS_ENV: str(seconds)}, cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def test_a_killed_writer_leaves_a_run_that_resumes(backend: Backend, site: Path) -> None:
    writer = start_slow_writer(backend, site, repeats=3, seconds=0.5)
    run_id = wait_for_a_trajectory(backend.db)
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SLOW_SECONDS_ENV, "0")
        resumed = invoke("run", "--resume", run_id, "--db", backend.db)
    assert resumed.code == 0, resumed.err
    count, events = stored(backend.db, run_id)
    assert count == 3 * TOY_SLOTS
    assert events[0] == "started" and events[-2:] == ["resumed", "complete"]
    store = open_store(backend.db)
    assert len(store.stored_slots(run_id)) == 3 * TOY_SLOTS
    assert check_run_chain(store, run_id).findings == ()
    store.close()


def wait_for_a_trajectory(db: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            store = open_store(db)
        except AssayError:
            store = None  # the writer is still creating the schema
        if store is not None:
            try:
                for run_id in store.run_ids():
                    if store.trajectory_counts(run_id)[0] >= 1:
                        return run_id
            finally:
                store.close()
        time.sleep(0.1)
    raise AssertionError(f"no trajectory in {db} after {timeout} s")


def run_state(db: str, run_id: str) -> str:
    """The run's state as the store says it now (`aggregates.run_status`)."""
    from agent_assay.aggregates import run_status

    store = open_store(db)
    try:
        return run_status(store, store.get_run(run_id)).state
    finally:
        store.close()


def _edit_a_stored_trajectory(backend: Backend) -> None:
    """Flip the first stored trajectory's crashed flag as the tables' owner would: behind
    the append-only guards, which are back in place afterwards."""
    first = "(SELECT min(id) FROM trajectories)"
    if not backend.on_postgresql:
        behind_triggers(Path(backend.db),
                        f"UPDATE trajectories SET crashed = 1 - crashed WHERE id = {first}")
        return
    engine = backend.engine()
    try:
        with engine.begin() as conn:
            conn.execute(text("ALTER TABLE trajectories DISABLE TRIGGER USER"))
            conn.execute(text(f"UPDATE trajectories SET crashed = NOT crashed WHERE id = {first}"))
            conn.execute(text("ALTER TABLE trajectories ENABLE TRIGGER USER"))
    finally:
        engine.dispose()


def test_verify_beside_a_live_writer_finds_nothing_and_still_finds_an_edit(
    backend: Backend, site: Path
) -> None:
    """verify, re-scoring included, sampled again and again while a run is written: every
    sample of the honest store is clean and says the run is in progress in one line (#43:
    thousands of false findings before); an edit made while the writer goes on is named
    by the samples after it, and once the writer is done."""
    writer = start_slow_writer(backend, site, repeats=40, seconds=0.03)
    run_id = wait_for_a_trajectory(backend.db)
    honest = 0
    while writer.poll() is None and honest < 3:
        done = invoke("verify", run_id, "--db", backend.db)
        assert done.code == 0 and done.traceback is None, done.out + done.err
        progress = [line for line in done.out.splitlines() if "slot(s) stored" in line]
        if not progress:
            # the writer may mark the run complete before its process exits: a verify
            # that says nothing of progress is right only if the run is complete now
            # (complete stays complete, so it was not in progress behind verify's back)
            assert run_state(backend.db, run_id) == "complete", done.out
            break
        assert len(progress) == 1, done.out
        assert progress[0].startswith(f"note: run {run_id}: in progress: "), done.out
        honest += 1
    _edit_a_stored_trajectory(backend)
    edited_during = None
    if writer.poll() is None:
        edited_during = invoke("verify", run_id, "--db", backend.db)
    writer_ok = writer.wait(timeout=300) == 0
    assert writer_ok, writer.communicate()[1]
    assert honest >= 1, "the run finished before verify could look at it while writing"
    assert edited_during is not None, "the run finished before the edit could be checked"
    assert edited_during.code == 2, edited_during.out
    assert "content does not match its digest" in edited_during.out, edited_during.out
    after = invoke("verify", run_id, "--db", backend.db)
    assert after.code == 2 and "content does not match its digest" in after.out, after.out
    assert "in progress" not in after.out

