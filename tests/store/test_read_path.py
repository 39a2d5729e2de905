"""The read path's shortcuts keep what they stand for.

What `report` imports on an SQLite store: no PostgreSQL dialect and no PostgreSQL DDL,
catalog or provisioning module of the project (`agent_assay.store.database.postgres`, the
URL and engine helpers that tell a server URL from a file, holds neither); each import
check runs in a fresh interpreter, so what other tests imported cannot hide it. The
schema check's digest of the reference schema is the digest of what the migrations
build, and a store that differs from it is still checked object by object."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_assay.store import Store
from agent_assay.store.database import schema_check

_REPORT = """
import json, sys
from agent_assay import api
from agent_assay.cli import reading  # the command's own module
shown = api.report(sys.argv[2], store=sys.argv[1])
assert shown.text
print(json.dumps(sorted(sys.modules)))
"""

_FORBIDDEN = (
    "sqlalchemy.dialects.postgresql",
    "agent_assay.store.database.postgres_ddl",
    "agent_assay.store.database.postgres_schema",
    "agent_assay.store.database.provision",
)


def _loaded(script: str, *args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, check=True)
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_report_on_sqlite_imports_no_postgresql_module(toy_db: tuple[Path, str]) -> None:
    db, run_id = toy_db
    loaded = _loaded(_REPORT, str(db), run_id)
    assert "agent_assay.integrity.admissibility" in loaded  # the report did run its check
    found = [m for m in loaded if m.startswith(_FORBIDDEN)]
    assert found == []


def test_report_of_a_stored_run_imports_no_bundle_and_no_regression_gate(
    toy_db: tuple[Path, str],
) -> None:
    db, run_id = toy_db
    loaded = _loaded(_REPORT, str(db), run_id)
    assert "agent_assay.integrity.admissibility" in loaded
    assert [m for m in loaded if m.startswith(("agent_assay.store.bundle",
                                               "agent_assay.integrity.regression"))] == []


def test_the_store_package_loads_its_submodules_on_first_use() -> None:
    loaded = _loaded("import json, sys\nimport agent_assay.store.database.schema\n"
                     "print(json.dumps(sorted(sys.modules)))")
    assert not [m for m in loaded if m.startswith(_FORBIDDEN)]
    from agent_assay.store import database

    assert database.schema_findings.__module__ == "agent_assay.store.database.schema_check"
    assert database.guard_holder_notes.__module__ == "agent_assay.store.database.postgres_schema"


def test_the_reference_digest_is_what_the_migrations_build() -> None:
    reference = schema_check.reference_objects()
    assert schema_check.fingerprint(reference) == schema_check.REFERENCE_DIGEST


def test_a_store_off_the_reference_is_checked_object_by_object(store: Store) -> None:
    with store.reading() as conn:
        assert schema_check.schema_findings(conn) == []
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DROP TRIGGER trajectories_no_update")
    with store.reading() as conn:
        found = schema_check.schema_findings(conn)
    assert [f.where for f in found] == ["trigger trajectories_no_update"]


def test_the_figures_from_the_sets_the_check_read_are_the_figures_read_again(
    toy_db: tuple[Path, str],
) -> None:
    from dataclasses import replace

    from agent_assay.integrity.admissibility import assess
    from agent_assay.store import open_existing_store
    from agent_assay.views.load import summarise
    from agent_assay.views.render import render_text

    db, run_id = toy_db
    store = open_existing_store(str(db))  # pinned: one snapshot, as a report reads
    try:
        run = store.get_run(run_id)
        check = assess(store, run).integrity.check
        assert check.sets is not None  # from the run's checkpoint, with no later attempt
        lent = render_text(summarise(store, run, check=check))
        read = render_text(summarise(store, run, check=replace(check, sets=None)))
    finally:
        store.close()
    assert lent == read


def test_the_crash_causes_the_check_lends_are_those_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_assay import api
    from agent_assay.store import open_existing_store, open_store
    from agent_assay.store.facade import reads
    from tests.support.crashing import CoinSystem

    db = str(tmp_path / "assay.db")
    writer = open_store(db)
    run = api.evaluate(CoinSystem(), "flaky", store=writer, repeats=3, seed=0).run
    writer.close()
    read_causes = reads.crash_causes
    walked: list[str] = []
    monkeypatch.setattr(reads, "crash_causes",
                        lambda conn, run_id: walked.append(run_id) or read_causes(conn, run_id))
    store = open_existing_store(db)  # pinned, as a report reads
    try:
        shown = api.report(run.run_id, store=store)
        assert walked == []  # the check from the checkpoint lent them
        lent = store.crash_causes(run.run_id)
        lent_counts = store.trajectory_counts(run.run_id), store.trajectory_count(run.run_id)
        lent_retried = store.retried_slots(run.run_id)
        with store.reading() as conn:
            read = read_causes(conn, run.run_id)
            counts = reads.trajectory_counts(conn, run.run_id), reads.trajectory_count(
                conn, run.run_id)
            retried = reads.retried_slots(conn, run.run_id)
    finally:
        store.close()
    assert lent and lent == read  # the flaky system crashes, both ways
    assert lent_counts == counts
    assert lent_retried == retried == {}
    monkeypatch.undo()
    assert api.report(run.run_id, store=open_store(db)).text == shown.text
