"""The append-only store: triggers on every table, WAL, concurrent writers, migrations."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_assay.errors import AssayError
from agent_assay.model import Config
from agent_assay.store import Store, migrations, open_store, schema
from agent_assay.store.chain_check import check_run_chain
from agent_assay.store.engine import database_url
from agent_assay.store.schema_check import reference_objects, repair, schema_findings
from agent_assay.store.store import ScoreRecord
from tests.support.invoke import invoke
from tests.support.legacy import copy_as_version, schema_version
from tests.support.toy import ToyAdapter
from tests.support.toyrun import ROOT, cli_env, toy_run

TABLES = sorted(schema.metadata.tables)


def reference_objects_tables() -> list[str]:
    return [name for kind, name in reference_objects() if kind == "table"]


def row_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as con:
        names = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
        return {n: con.execute(f"SELECT count(*) FROM {n}").fetchone()[0] for n in names}


@pytest.fixture(scope="module")
def populated_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A database where every table has at least one row, each written by the harness."""
    db = tmp_path_factory.mktemp("appendonly") / "assay.db"
    store = open_store(str(db))
    toy = ToyAdapter()
    run = toy_run(store, toy, "crashy", repeats=2)
    store.put_control_outcome(
        run.run_id, run.suite_hash, run.config_hash,
        {"kind": "shuffled_gold", "version": "1", "status": "PASSED"},
    )
    store.put_mutation_rows(run.run_id, [("drop_step", {"pass_id": "p"})])
    record = ScoreRecord("on-L1", 1, "outcome.match", "9", 0.25, {"why": "test"})
    store.append_generation(run.run_id, "test", [], [record])
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DROP TRIGGER runs_no_update")
    assert repair(store.engine).restored == ("trigger runs_no_update",)
    store.close()
    yield db


def test_metadata_lists_every_table_a_migration_creates() -> None:
    assert set(reference_objects_tables()) == set(TABLES)
    assert len(TABLES) == 14


@pytest.mark.parametrize("table", TABLES)
def test_update_is_refused(populated_db: Path, table: str) -> None:
    column = next(iter(schema.metadata.tables[table].columns)).name
    con = sqlite3.connect(populated_db)
    try:
        before = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        assert before > 0, f"{table} has no row, so the trigger would never fire"
        with pytest.raises(sqlite3.DatabaseError, match=f"{table} is append-only: UPDATE"):
            con.execute(f"UPDATE {table} SET {column} = {column}")
        con.rollback()
        assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == before
    finally:
        con.close()


@pytest.mark.parametrize("table", TABLES)
def test_delete_is_refused(populated_db: Path, table: str) -> None:
    con = sqlite3.connect(populated_db)
    try:
        before = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        assert before > 0
        with pytest.raises(sqlite3.DatabaseError, match=f"{table} is append-only: DELETE"):
            con.execute(f"DELETE FROM {table}")
        con.rollback()
        assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == before
    finally:
        con.close()


def test_store_has_no_update_or_delete_method() -> None:
    verbs = ("update", "delete", "remove", "drop")
    assert not [n for n in dir(Store) if n.lower().startswith(verbs)]


def test_wal_mode_is_on(store: Store, tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "assay.db") as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_suite_and_config_round_trip_and_dedupe(store: Store) -> None:
    toy = ToyAdapter()
    suite = toy.build_suite(None)
    h = store.put_suite(suite)
    assert h == suite.suite_hash
    assert store.put_suite(suite) == h
    assert store.count_rows("suites") == 1
    assert store.count_rows("items") == len(suite.items)
    assert store.get_suite(h) == suite
    config = Config("toy", "good", {"mode": "good"})
    assert store.put_config(config) == store.put_config(config) == config.config_hash
    assert store.count_rows("configs") == 1
    assert store.get_config(config.config_hash) == config
    with pytest.raises(AssayError, match="unknown suite hash: nope"):
        store.get_suite("nope")
    with pytest.raises(AssayError, match="unknown config hash: nope"):
        store.get_config("nope")
    with pytest.raises(AssayError, match="unknown run id: nope"):
        store.get_run("nope")


def test_run_env_and_events_are_stored(store: Store) -> None:
    toy = ToyAdapter()
    run = toy_run(store, toy, "good")
    again = store.get_run(run.run_id)
    assert again == run
    assert dict(again.env) == {"adapter": "toy", "adapter_version": "1.0.0", "world": "lamps-1"}
    assert again.affects_results == {"adapter_version", "world"}
    assert [e.event for e in store.events(run.run_id)] == ["started", "complete"]
    assert [r.run_id for r in store.list_runs()] == [run.run_id]


def test_a_second_score_row_in_one_generation_is_refused(store: Store) -> None:
    toy_run(store, ToyAdapter(), "good")
    con = sqlite3.connect(store.engine.url.database or "")
    copy = (
        "INSERT INTO scores (trajectory_id, run_id, item_id, repetition, scorer, scorer_version, "
        "value, detail, imported, block, digest, generation) SELECT trajectory_id, run_id, "
        "item_id, repetition, scorer, scorer_version, 1.0, detail, imported, {block}, digest, "
        "{generation} FROM scores WHERE value = 0"
    )
    try:
        # the slot is taken in generation 0; a generation never recorded is refused; a row
        # without its block and digest is refused
        for block, generation, message in (
            ("block", "generation", "UNIQUE constraint failed"),
            ("block", "1", "re-scoring generation must be recorded"),
            ("NULL", "generation", "a row must carry its ledger block and its digest"),
        ):
            with pytest.raises(sqlite3.DatabaseError, match=message):
                con.execute(copy.format(block=block, generation=generation))
            con.rollback()
    finally:
        con.close()
    assert store.count_rows("scores") == 4 * 13


def test_a_new_generation_replaces_what_readers_see(store: Store) -> None:
    run = toy_run(store, ToyAdapter(), "good")
    before = store.current_scores(run.run_id)
    record = ScoreRecord("on-L1", 1, "outcome.match", "9", 0.25, {"why": "test"})
    assert store.append_generation(run.run_id, "test", [], [record]) == 1
    assert store.current_scores(run.run_id) == [record]
    assert store.current_generation(run.run_id) == 1
    assert len(before) == 4 * 13
    with pytest.raises(AssayError, match="no trajectory nope/1 to re-score"):
        store.append_generation(run.run_id, "test", [], [ScoreRecord("nope", 1, "x", "1", 1.0)])
    assert store.current_generation(run.run_id) == 1


def test_a_score_must_be_finite(store: Store) -> None:
    run = toy_run(store, ToyAdapter(), "good")
    bad = ScoreRecord("on-L1", 1, "outcome.match", "1", float("nan"))
    with pytest.raises(AssayError, match=r"scorer outcome\.match returned nan for on-L1/1"):
        store.append_generation(run.run_id, "test", [], [bad])


def test_two_processes_write_concurrently(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    env = cli_env()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.support.concurrent_writer", str(db), "4"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert len(out.split()) == 4
    run_ids = {rid for out, _ in outputs for rid in out.split()}
    assert len(run_ids) == 8
    store = open_store(str(db))
    assert {r.run_id for r in store.list_runs()} == run_ids
    assert store.count_rows("suites") == 1
    assert store.count_rows("trajectories") == 8 * 4 * 2
    assert store.count_rows("scores") == 8 * 4 * 2 * 13
    for run_id in run_ids:
        assert len(store.stored_slots(run_id)) == 8
        assert [e.event for e in store.events(run_id)] == ["started", "complete"]


@pytest.mark.parametrize("version", [1, 2])
def test_migration_keeps_every_row_and_seals_each_run(tmp_path: Path, version: int) -> None:
    current = tmp_path / "current.db"
    store = open_store(str(current))
    toy = ToyAdapter()
    runs = [toy_run(store, toy, "crashy", repeats=2), toy_run(store, toy, "good")]
    store.close()
    db = tmp_path / "old.db"
    copy_as_version(current, db, version)
    before = row_counts(db)
    assert schema_version(db) == version
    assert all(before[t] > 0 for t in before if t not in ("control_outcomes", "mutation_results"))

    with pytest.raises(AssayError) as refused:
        open_store(str(db))
    message = str(refused.value)
    assert f"agent-assay migrate --db {db}" in message
    assert f"schema version {version}" in message and "\n" not in message

    done = invoke("migrate", "--db", str(db))
    assert done.code == 0 and done.traceback is None, done.err
    applied = ", ".join(str(v) for v in range(version + 1, migrations.LATEST + 1))
    assert f"applied migration(s) {applied}; schema now {migrations.LATEST}" in done.out

    after = row_counts(db)
    assert after.pop("ledger") == len(runs)  # one seal per run
    for new in ("score_generations", "store_repairs", "control_outcomes", "mutation_results"):
        assert after.pop(new) == before.pop(new, 0)
    assert after.pop("schema_migrations") == migrations.LATEST
    before.pop("schema_migrations")
    assert after == before

    migrated = open_store(str(db))  # now accepted, with the reference schema
    with migrated.engine.connect() as conn:
        assert schema_findings(conn) == []
    assert migrations.apply(migrated.engine) == []
    for run in runs:
        check = check_run_chain(migrated, run.run_id)
        assert check.findings == ()
        assert [e.kind for e in check.ledger] == ["seal"]
    # the sealed run keeps growing on its chain
    migrated.append_event(runs[0].run_id, "resumed", {})
    assert check_run_chain(migrated, runs[0].run_id).findings == ()
    # and an edit to a sealed row is seen
    with migrated.engine.begin() as conn:
        conn.exec_driver_sql("DROP TRIGGER scores_no_update")
        conn.exec_driver_sql("UPDATE scores SET value = 0.5 WHERE id = 1")
    problems = [f.line() for f in check_run_chain(migrated, runs[0].run_id).findings]
    assert problems == ["scores rows sealed at migration: content changed since the seal"]


def test_open_store_creates_latest_schema(store: Store) -> None:
    with store.engine.connect() as conn:
        assert migrations.current_version(conn) == migrations.LATEST == 3
        assert schema_findings(conn) == []


def test_missing_database_directory_is_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "assay.db"
    with pytest.raises(AssayError) as err:
        open_store(str(missing))
    message = str(err.value)
    assert "\n" not in message
    assert "database directory does not exist" in message
    assert str(missing.parent) in message
    assert not missing.parent.exists()


def test_database_path_that_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(AssayError, match="is a directory"):
        database_url(str(tmp_path))
    assert database_url("sqlite:///x.db") == "sqlite:///x.db"
    assert database_url(str(tmp_path / "a.db")) == f"sqlite:///{tmp_path / 'a.db'}"


def test_stored_trajectory_payload_is_canonical(store: Store, tmp_path: Path) -> None:
    toy = ToyAdapter()
    run = toy_run(store, toy, "good")
    with sqlite3.connect(tmp_path / "assay.db") as con:
        rows = con.execute("SELECT payload FROM trajectories WHERE run_id = ?",
                           (run.run_id,)).fetchall()
    assert len(rows) == 4
    for (payload,) in rows:
        assert payload == json.dumps(json.loads(payload), sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False)


def test_open_store_refuses_a_newer_schema(tmp_path: Path) -> None:
    db = tmp_path / "future.db"
    open_store(str(db)).engine.dispose()
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO schema_migrations VALUES (4, 'from the future', 'now')")
    with pytest.raises(AssayError, match="newer than this agent-assay"):
        open_store(str(db))


def test_db_that_is_not_a_database_is_an_assay_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("these are my notes, not a database\n")
    with pytest.raises(AssayError, match=str(bogus)):
        open_store(str(bogus))
