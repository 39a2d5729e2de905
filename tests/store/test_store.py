"""The SQLite store's own behaviour: WAL, round trips, generations, paths. What holds on
both backends (append-only per table, the chain's guards, migrations, concurrent writers,
resume) is in the other modules here, run on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent_assay.errors import AssayError
from agent_assay.model import Config
from agent_assay.store import ScoreRecord, Store, open_store
from agent_assay.store.database import (
    database_url,
    migrations,
    reference_objects,
    schema,
    schema_findings,
)
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run

TABLES = sorted(schema.metadata.tables)


def reference_objects_tables() -> list[str]:
    return [name for kind, name in reference_objects() if kind == "table"]


def test_metadata_lists_every_table_a_migration_creates() -> None:
    assert set(reference_objects_tables()) == set(TABLES)
    assert len(TABLES) == 16


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


def test_open_store_creates_latest_schema(store: Store) -> None:
    with store.engine.connect() as conn:
        assert migrations.current_version(conn) == migrations.LATEST == 6
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
        con.execute("INSERT INTO schema_migrations VALUES (?, 'from the future', 'now')",
                    (migrations.LATEST + 1,))
    with pytest.raises(AssayError, match="newer than this agent-assay"):
        open_store(str(db))


def test_db_that_is_not_a_database_is_an_assay_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("these are my notes, not a database\n")
    with pytest.raises(AssayError, match=str(bogus)):
        open_store(str(bogus))
