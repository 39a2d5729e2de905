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
from agent_assay.store.engine import database_url, make_engine
from agent_assay.store.store import ScoreRecord
from tests.support.toy import ToyAdapter
from tests.support.toyrun import ROOT, agent_assay, cli_env, toy_run

TABLES = sorted(schema.metadata.tables)


def row_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as con:
        names = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
        return {n: con.execute(f"SELECT count(*) FROM {n}").fetchone()[0] for n in names}


@pytest.fixture(scope="module")
def populated_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A database where every table has at least one row."""
    db = tmp_path_factory.mktemp("appendonly") / "assay.db"
    store = open_store(str(db))
    toy = ToyAdapter()
    run = toy_run(store, toy, "crashy", repeats=2)
    store.close()
    con = sqlite3.connect(db)
    with con:
        con.execute(
            "INSERT INTO control_outcomes (run_id, kind, version, status, suite_hash, "
            "config_hash, payload, created_at) VALUES (?, 'shuffled_gold', '1', 'pass', ?, ?, "
            "'{}', '2024-01-01T00:00:00+00:00')",
            (run.run_id, run.suite_hash, run.config_hash),
        )
        con.execute(
            "INSERT INTO mutation_results (run_id, operator, payload, created_at) "
            "VALUES (?, 'drop_step', '{}', '2024-01-01T00:00:00+00:00')",
            (run.run_id,),
        )
    con.close()
    yield db


def test_metadata_lists_every_migrated_table() -> None:
    migrated = {t.name for m in migrations.MIGRATIONS for t in m.tables}
    assert migrated == set(TABLES)
    assert len(TABLES) == 11


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


def test_latest_scores_takes_newest_row(store: Store) -> None:
    toy = ToyAdapter()
    run = toy_run(store, toy, "good")
    before = store.count_rows("scores")
    record = ScoreRecord("on-L1", 1, "outcome.match", "9", 0.25, {"why": "test"})
    assert store.append_scores(run.run_id, [record]) == 1
    assert store.append_scores(run.run_id, []) == 0
    assert store.count_rows("scores") == before + 1
    latest = [r for r in store.latest_scores(run.run_id) if r.scorer == "outcome.match"]
    by_item = {r.item_id: r for r in latest}
    assert len(latest) == 4
    assert by_item["on-L1"] == record
    assert by_item["on-L2"].scorer_version == "1"


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


def test_migration_from_version_1(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    engine = make_engine(str(db))
    assert migrations.apply(engine, target=1) == [1]
    old = Store(engine)
    toy = ToyAdapter()
    toy_run(old, toy, "crashy", repeats=2)
    toy_run(old, toy, "good")
    engine.dispose()
    before = row_counts(db)
    assert "control_outcomes" not in before and "mutation_results" not in before
    assert all(before[t] > 0 for t in before), before
    assert before["schema_migrations"] == 1

    with pytest.raises(AssayError) as refused:
        open_store(str(db))
    message = str(refused.value)
    assert f"agent-assay migrate --db {db}" in message
    assert "schema version 1" in message and "\n" not in message

    done = agent_assay("migrate", "--db", str(db), env=cli_env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "applied migration(s) 2; schema now 2" in done.stdout

    after = row_counts(db)
    assert after.pop("control_outcomes") == 0
    assert after.pop("mutation_results") == 0
    assert after.pop("schema_migrations") == 2
    before.pop("schema_migrations")
    assert after == before
    with sqlite3.connect(db) as con:
        versions = [r[0] for r in con.execute("SELECT version FROM schema_migrations")]
        triggers = {r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type='trigger'")}
    assert sorted(versions) == [1, 2]
    assert {f"{t}_no_{v}" for t in TABLES for v in ("update", "delete")} <= triggers

    store = open_store(str(db))  # now accepted
    assert len(store.list_runs()) == 2
    assert migrations.apply(store.engine) == []


def test_open_store_creates_latest_schema(store: Store) -> None:
    with store.engine.connect() as conn:
        assert migrations.current_version(conn) == migrations.LATEST == 2


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
        con.execute("INSERT INTO schema_migrations VALUES (3, 'from the future', 'now')")
    with pytest.raises(AssayError, match="newer than this agent-assay"):
        open_store(str(db))


def test_db_that_is_not_a_database_is_an_assay_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("these are my notes, not a database\n")
    with pytest.raises(AssayError, match=str(bogus)):
        open_store(str(bogus))
