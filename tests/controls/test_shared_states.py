"""identical_config reads runs through `SharedStates`: the same trajectories a store reader
gives, byte for byte (types too), with equal final states of different runs sharing their
containers; an altered base is tampered evidence as it is for any reader."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_assay.controls.shared_states import SharedStates
from agent_assay.errors import TamperedEvidence
from agent_assay.hashing import canonical_json
from agent_assay.model import Run, Trajectory
from agent_assay.store import Store, open_store
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run


def _world(n: int, changed: int | None = None, kind: Any = int) -> dict[str, Any]:
    records = {f"r{i:04d}": {"balance": kind(i), "owner": f"owner-{i}"} for i in range(n)}
    if changed is not None:
        records[f"r{changed:04d}"]["balance"] = -1
    return {"records": records, "log": [f"entry {i}" for i in range(n)]}


def _run(store: Store, states: list[dict[str, Any]]) -> Run:
    run = new_toy_run(store, ToyAdapter(), "good", repeats=len(states))
    for rep, state in enumerate(states, start=1):
        store.write_trajectory(run.run_id, Trajectory(run.item_ids[0], rep, final_state=state),
                               [])
    return run


def _json(walk: Any) -> list[tuple[str, list[str]]]:
    return [(item, [canonical_json(t.to_json()) for t in group]) for item, group in walk]


def test_the_same_trajectories_as_the_store_with_equal_states_sharing(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "s.db"))
    first = _run(store, [_world(300, changed=1), _world(300, changed=2)])
    # another first state, so another base: rebuilt on the first run's
    second = _run(store, [_world(300, changed=3), _world(300, changed=2)])
    # a base whose look-alike values (floats for ints) `==` cannot tell apart
    third = _run(store, [_world(300, changed=4, kind=float), _world(300, changed=2)])
    reader = SharedStates(store)
    for run in (first, second, third):
        assert _json(reader.by_item(run.run_id)) == _json(store.trajectories_by_item(run.run_id))
    a, b = ([t for _, g in reader.by_item(r.run_id) for t in g] for r in (first, second))
    assert a[1].final_state == b[1].final_state
    assert a[1].final_state is not None and b[1].final_state is not None
    assert a[1].final_state["log"] is b[1].final_state["log"]  # shared, compared by identity
    c = [t.final_state for _, g in reader.by_item(third.run_id) for t in g]
    assert c[0] is not None and c[1] is not None
    assert canonical_json(c[0]) == canonical_json(_world(300, changed=4, kind=float))
    assert canonical_json(c[1]) == canonical_json(_world(300, changed=2))
    assert type(c[0]["records"]["r0000"]["balance"]) is float


def test_an_altered_base_is_tampered_evidence(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = _run(store, [_world(300), _world(300, changed=2)])
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER state_blobs_no_update")
        conn.execute("UPDATE state_blobs SET payload = replace(payload, 'owner-7', 'owner-8')")
    with pytest.raises(TamperedEvidence, match="does not match its digest"):
        list(SharedStates(store).by_item(run.run_id))
