"""Append-only on both backends: every table refuses UPDATE and DELETE (and, on
PostgreSQL, TRUNCATE) with the guard's message; the chain's insert guards refuse an
unchained row, a broken link and an unrecorded generation; and on PostgreSQL the
harness's role is refused by permission before any guard is reached."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from agent_assay.model import Trajectory
from agent_assay.store import ScoreRecord, open_store
from agent_assay.store.database import schema, schema_findings
from tests.store.conftest import Backend
from tests.support.legacy import score_rows_layout
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run, toy_run

TABLES = sorted(schema.metadata.tables)


def populate(backend: Backend) -> str:
    """Every table gets at least one row, each written by the harness; the run id."""
    store = open_store(backend.db)
    run = toy_run(store, ToyAdapter(), "crashy", repeats=2)
    with score_rows_layout():  # a run as schema 3 stored it, so `scores` has rows too
        toy_run(store, ToyAdapter(), "good")
    store.put_control_outcome(
        run.run_id, run.suite_hash, run.config_hash,
        {"kind": "shuffled_gold", "version": "1", "status": "PASSED"},
    )
    store.put_mutation_rows(run.run_id, [("drop_step", {"pass_id": "p"})])
    large = new_toy_run(store, ToyAdapter(), "good")  # a final state big enough for a blob
    store.write_trajectory(
        large.run_id, Trajectory(large.item_ids[0], 1, final_state={"log": ["x" * 50] * 200}), []
    )
    record = ScoreRecord("on-L1", 1, "outcome.match", "9", 0.25, {"why": "test"})
    store.append_generation(run.run_id, "test", [], [record])
    store.close()
    owner = open_store(backend.owner)  # a repair is the owner's to make, and it is recorded
    with owner.engine.begin() as conn:
        conn.execute(text("DROP TRIGGER runs_no_update" + (" ON runs" if backend.on_postgresql
                                                           else "")))
    from agent_assay.store.database import repair

    assert repair(owner.engine).restored == ("trigger runs_no_update",)
    owner.close()
    return run.run_id


def refused(backend: Backend, sql: str, *, as_owner: bool = True) -> str:
    """The database's message refusing `sql`; the rows it aimed at are untouched."""
    engine = backend.engine(as_owner=as_owner)
    try:
        with pytest.raises(DatabaseError) as error, engine.begin() as conn:
            conn.execute(text(sql))
    finally:
        engine.dispose()
    return str(error.value.orig).splitlines()[0]


def test_every_table_refuses_update_delete_and_truncate(backend: Backend) -> None:
    populate(backend)
    counts = {table: backend.scalar(f"SELECT count(*) FROM {table}") for table in TABLES}
    assert all(counts.values()), f"a table has no row, so its guard would never fire: {counts}"
    for table in TABLES:
        column = next(iter(schema.metadata.tables[table].columns)).name
        assert refused(backend, f"UPDATE {table} SET {column} = {column}") == \
            f"{table} is append-only: UPDATE refused"
        assert refused(backend, f"DELETE FROM {table}") == f"{table} is append-only: DELETE refused"
        if backend.on_postgresql:  # SQLite has no TRUNCATE; its DELETE is refused above
            assert refused(backend, f"TRUNCATE {table} CASCADE") == \
                f"{table} is append-only: TRUNCATE refused"
    assert counts == {table: backend.scalar(f"SELECT count(*) FROM {table}") for table in TABLES}
    store = open_store(backend.db)
    with store.engine.connect() as conn:
        assert schema_findings(conn) == []
    store.close()


@pytest.mark.parametrize(
    "sql",
    ["UPDATE scores SET value = 1", "DELETE FROM runs", "TRUNCATE trajectories"],
)
def test_the_harness_role_may_not_rewrite_even_with_the_guards_gone(pg: Backend, sql: str) -> None:
    populate(pg)
    table = sql.split()[1] if not sql.startswith("DELETE") else "runs"
    assert refused(pg, sql, as_owner=False) == f"permission denied for table {table}"
    # the owner is stopped by the guard instead ...
    verb = sql.split()[0]
    assert refused(pg, sql + (" CASCADE" if verb == "TRUNCATE" else "")) == \
        f"{table} is append-only: {verb} refused"
    # ... and without the guard, the role's missing privilege still refuses it
    engine = pg.engine()
    with engine.begin() as conn:
        conn.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
    engine.dispose()
    assert refused(pg, sql, as_owner=False) == f"permission denied for table {table}"


# A copy of every stored score row (or set) with its block or generation replaced.
SCORE_COPIES = {
    "scores": (
        "INSERT INTO scores (trajectory_id, run_id, item_id, repetition, scorer, scorer_version, "
        "value, detail, imported, block, digest, generation) SELECT trajectory_id, run_id, "
        "item_id, repetition, scorer, scorer_version, 1.0, detail, imported, {block}, digest, "
        "{generation} FROM scores WHERE value = 0"
    ),
    "score_sets": (
        "INSERT INTO score_sets (trajectory_id, run_id, item_id, repetition, generation, "
        "scorers, packed_values, details, block, digest) SELECT trajectory_id, run_id, item_id, "
        "repetition, {generation}, scorers, packed_values, details, {block}, digest "
        "FROM score_sets"
    ),
}


@pytest.mark.parametrize("table", sorted(SCORE_COPIES))
def test_the_chain_guards_refuse_what_no_writer_produces(backend: Backend, table: str) -> None:
    store = open_store(backend.db)
    if table == "scores":
        with score_rows_layout():
            toy_run(store, ToyAdapter(), "good")
    else:
        toy_run(store, ToyAdapter(), "good")
    store.close()
    before = backend.scalar(f"SELECT count(*) FROM {table}")
    unique = "duplicate key value violates unique constraint" if backend.on_postgresql else \
        "UNIQUE constraint failed"
    for block, generation, message in (
        ("block", "generation", unique),
        ("block", "1", f"{table}: a re-scoring generation must be recorded before its rows"),
        ("NULL", "generation", f"{table}: a row must carry its ledger block and its digest"),
    ):
        sql = SCORE_COPIES[table].format(block=block, generation=generation)
        assert message in refused(backend, sql)
    assert backend.scalar(f"SELECT count(*) FROM {table}") == before == (
        4 * 13 if table == "scores" else 4)
    link = (
        "INSERT INTO ledger (run_id, seq, kind, detail, prev_digest, digest, at) SELECT run_id, "
        "seq + 5, kind, detail, prev_digest, digest, at FROM ledger WHERE seq = 1"
    )
    assert refused(backend, link) == "ledger: a block must extend its run's chain"
