"""Group commit: trajectories a scoring process hands over together are appended in one
transaction, each as its own block; a group with one refused trajectory stores none of
it, and a base state two of them name first is stored once. On both backends: SQLite
appends row by row, PostgreSQL table by table (`server_writes`), and both store the same
rows."""

from __future__ import annotations

import itertools
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_assay.errors import AssayError
from agent_assay.model import Config, Run, Trajectory
from agent_assay.store import Store, open_store
from agent_assay.store.encoding import PreparedTrajectory, StateEncoder, prepare
from agent_assay.store.evidence import check_run_chain
from agent_assay.store.facade import server_writes, writes
from agent_assay.store.records import ScoreRecord
from tests.store.conftest import Backend
from tests.support.postgres import PgServer
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run


def _bank(n: int = 300) -> dict[str, Any]:
    return {"records": {f"r{i:04d}": {"owner": f"owner-{i}", "balance": i} for i in range(n)}}


def _prepared(run: Run, slots: list[tuple[str, int]]) -> list[PreparedTrajectory]:
    """Rows prepared the way a scoring process prepares a batch: one encoder, told nothing
    of what was stored, so each large state in the batch carries its base."""
    encoder = StateEncoder()
    return [prepare(encoder, run.run_id, Trajectory(item, rep, final_state=_bank()), [])[0]
            for item, rep in slots]


def _counts(backend: Backend, run_id: str) -> tuple[int, int, int]:
    return (
        backend.scalar("SELECT COUNT(*) FROM trajectories WHERE run_id = :r", r=run_id),
        backend.scalar("SELECT COUNT(*) FROM ledger WHERE run_id = :r AND kind = 'trajectory'",
                       r=run_id),
        backend.scalar("SELECT COUNT(*) FROM state_blobs"),
    )


def _refused(backend: Backend) -> type[Exception]:
    """What the driver raises for a slot stored twice."""
    if not backend.on_postgresql:
        return sqlite3.IntegrityError
    import psycopg

    return psycopg.IntegrityError


def _fresh(backend: Backend) -> tuple[Store, Run]:
    store = open_store(backend.db)
    return store, new_toy_run(store, ToyAdapter(), "good", repeats=3)


def test_a_group_is_one_block_per_trajectory_and_one_base(backend: Backend) -> None:
    store, run = _fresh(backend)
    item = run.item_ids[0]
    group = _prepared(run, [(item, 1), (item, 2), (item, 3)])
    assert all(p.blob is not None for p in group)  # each carries the same new base
    ids = store.write_prepared_group(run.run_id, group)
    assert len(set(ids)) == 3
    assert _counts(backend, run.run_id) == (3, 3, 1)
    assert check_run_chain(store, run.run_id).intact
    assert [t.final_state for t in store.trajectories(run.run_id)] == [_bank()] * 3


def test_a_refused_trajectory_leaves_nothing_of_its_group(backend: Backend) -> None:
    store, run = _fresh(backend)
    first, second = run.item_ids[:2]
    store.write_prepared_group(run.run_id, [_prepared(run, [(first, 1)])[0]])
    before = _counts(backend, run.run_id)
    head = store.head(run.run_id)
    taken = _prepared(run, [(second, 1), (second, 2), (first, 1)])  # the last slot is taken
    with pytest.raises(_refused(backend)):
        store.write_prepared_group(run.run_id, taken)
    assert _counts(backend, run.run_id) == before
    assert store.head(run.run_id) == head
    assert store.stored_slots(run.run_id) == {(first, 1)}
    store.write_prepared_group(run.run_id, taken[:2])  # the same rows go in once free of it
    assert store.stored_slots(run.run_id) == {(first, 1), (second, 1), (second, 2)}
    assert check_run_chain(store, run.run_id).intact


def test_a_refused_group_of_trajectories_leaves_no_base_named_that_was_rolled_back(
    backend: Backend,
) -> None:
    store, run = _fresh(backend)
    first, second = run.item_ids[:2]
    store.write_trajectory(run.run_id, Trajectory(first, 1, final_state=_bank()), [])
    bases = _counts(backend, run.run_id)[2]
    other = {"records": {"x": {"owner": "someone else", "balance": -1}}, **_bank(400)}
    taken = [(Trajectory(second, 1, final_state=other), []),  # brings a new base ...
             (Trajectory(first, 1, final_state=other), [])]  # ... in a group that is refused
    with pytest.raises(_refused(backend)):
        store.write_trajectories(run.run_id, taken)
    assert _counts(backend, run.run_id)[2] == bases  # the new base was rolled back with it
    store.write_trajectories(run.run_id, [(Trajectory(second, 1, final_state=other), []),
                                          (Trajectory(second, 2, final_state=other), [])])
    assert _counts(backend, run.run_id) == (3, 3, bases + 1)
    assert check_run_chain(store, run.run_id).intact
    assert [t.final_state for t in store.trajectories(run.run_id, second)] == [other] * 2


def _without_copy(prepared: PreparedTrajectory) -> PreparedTrajectory:
    """The row as a writer that had seen its base stored would make it: naming, not carrying."""
    return replace(prepared, blob=None)


def test_a_later_row_may_name_a_base_an_earlier_row_of_its_group_brings(
    backend: Backend,
) -> None:
    store, run = _fresh(backend)
    item = run.item_ids[0]
    first, second = _prepared(run, [(item, 1), (item, 2)])
    store.write_prepared_group(run.run_id, [first, _without_copy(second)])
    assert _counts(backend, run.run_id) == (2, 2, 1)
    assert [t.final_state for t in store.trajectories(run.run_id)] == [_bank()] * 2


@pytest.mark.parametrize("fault", ["named before it is brought", "never stored", "altered"])
def test_a_row_whose_base_is_not_there_or_not_its_own_refuses_its_group(
    backend: Backend, fault: str
) -> None:
    store, run = _fresh(backend)
    item = run.item_ids[0]
    first, second, third = _prepared(run, [(item, 1), (item, 2), (item, 3)])
    if fault == "named before it is brought":  # the copy comes with a later row
        group, expected = [_without_copy(second), first], f"{item}/2 names base state"
    elif fault == "never stored":
        group, expected = [_without_copy(second)], f"{item}/2 names base state"
    else:
        assert third.blob is not None
        altered = replace(third, blob=(third.blob[0], third.blob[1].replace("owner-1", "x")))
        group, expected = [first, altered], f"{item}/3: its base state does not hash"
    with pytest.raises(AssayError, match=expected):
        store.write_prepared_group(run.run_id, group)
    assert _counts(backend, run.run_id) == (0, 0, 0)
    store.write_prepared_group(run.run_id, [first])  # the writer goes on
    assert check_run_chain(store, run.run_id).intact


@pytest.mark.parametrize("first_at_fault", ["named", "altered"])
def test_of_two_rows_at_fault_the_first_is_the_one_refused(
    backend: Backend, first_at_fault: str
) -> None:
    store, run = _fresh(backend)
    item = run.item_ids[0]
    _, second, third = _prepared(run, [(item, 1), (item, 2), (item, 3)])
    assert third.blob is not None
    named = _without_copy(second)  # its base was never stored
    altered = replace(third, blob=(third.blob[0], "{}"))
    if first_at_fault == "named":
        group, expected = [named, altered], f"{item}/2 names base state"
    else:
        group, expected = [altered, named], f"{item}/3: its base state does not hash"
    with pytest.raises(AssayError, match=expected):
        store.write_prepared_group(run.run_id, group)


def test_postgresql_table_by_table_stores_exactly_the_rows_of_row_by_row(
    pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same groups written into two databases, once through the per-row path and once
    through `server_writes`, at the same clock readings: every row, id, digest and byte of
    the ledger, the trajectories, their score sets and the base states is the same."""
    from tests.store.conftest import make_backend

    adapter = ToyAdapter()
    suite, config = adapter.build_suite(), Config(adapter.name, "good", {"mode": "good"})
    items = [item.item_id for item in suite.items]
    dumps = []
    for label, append in (("row by row", writes.append_group),
                          ("table by table", server_writes.append_group)):
        backend = make_backend("postgresql", pg_server, tmp_path / label.replace(" ", "_"))
        clock = (f"2026-01-01T00:00:{tick:09.6f}" for tick in itertools.count())
        monkeypatch.setattr(writes, "now", clock.__next__)
        monkeypatch.setattr(server_writes, "append_group", append)
        store = open_store(backend.db)
        store.put_suite(suite)
        store.put_config(config)
        run = store.create_run(
            adapter=adapter.name, suite_hash=suite.suite_hash, config_hash=config.config_hash,
            config_name=config.name, repeats=3, seed=0, item_ids=items, env={"world": 1},
            affects_results=["world"], run_id="f" * 32)
        encoder = StateEncoder()
        for repetition in (1, 2, 3):  # the first group brings bases, later ones name them
            group = []
            for n, item in enumerate(items):
                state = _bank(200 + n % 3) if repetition < 3 else {"small": n}
                scores = [] if n % 4 == 0 else [
                    ScoreRecord(item, repetition, "s", "1", n / 7, {"n": n} if n % 2 else None)]
                trajectory = Trajectory(item, repetition, final_state=state, crashed=n == 5)
                prepared, encoded = prepare(encoder, run.run_id, trajectory, scores)
                encoder.stored(run.run_id, encoded)
                group.append(prepared)
            store.write_prepared_group(run.run_id, group)
        assert check_run_chain(store, run.run_id).intact
        store.close()
        engine = backend.engine()
        try:
            with engine.connect() as conn:
                dumps.append({table: conn.exec_driver_sql(
                    f"SELECT * FROM {table} ORDER BY 1, 2").all()
                    for table in ("ledger", "trajectories", "score_sets", "state_blobs")})
        finally:
            engine.dispose()
    assert dumps[0]["state_blobs"] and dumps[0]["score_sets"]
    assert dumps[1] == dumps[0]
