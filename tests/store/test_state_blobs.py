"""Final states stored once: a large state becomes a content-addressed base, later states are
stored as edits from it, and every state reads back byte for byte; a base that is missing,
altered or misnamed is a finding, and a malformed delta is a one-line error naming its row."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay.model import Run, Trajectory
from agent_assay.store import Store, open_store
from agent_assay.store.bundle import export_bundle, load_bundle
from agent_assay.store.encoding import DELTA_KEY, INLINE_BYTES, StateEncoder
from agent_assay.store.encoding.state_delta import joined, rebuilt, reproduces, section_edits
from agent_assay.store.evidence import check_run_chain
from tests.support.invoke import invoke
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run

scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False) \
    | st.text(max_size=3)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner,
                                                               max_size=4),
    max_leaves=25,
)
states = st.dictionaries(st.text(max_size=3), json_values, max_size=5)


def sections(state: dict[str, Any]) -> dict[str, str]:
    return {key: canonical_json(value) for key, value in state.items()}


@given(states)
def test_a_state_joined_from_its_sections_is_its_canonical_json(state: Any) -> None:
    assert joined(sections(state)) == canonical_json(state)


@given(states, states)
def test_section_edits_always_rebuild_the_state_exactly(base: Any, state: Any) -> None:
    """Each section's edits are checked, and a section they do not rebuild is set whole, so
    whatever the two states hold (bool, int and float look-alikes included) the state comes
    back byte for byte; the base is never changed by rebuilding."""
    before = canonical_json(base)
    edits = section_edits(base, sections(base), state, sections(state))
    assert canonical_json(rebuilt(base, edits)) == canonical_json(state)
    assert canonical_json(base) == before


def test_a_change_of_type_that_equality_misses_is_set_whole() -> None:
    base = {"a": {"x": 1, "y": [True, 0]}, "b": [1]}
    state = {"a": {"x": 1.0, "y": [1, 0.0]}, "b": [1]}
    assert base == state  # Python cannot tell them apart
    edits = section_edits(base, sections(base), state, sections(state))
    assert edits == [["set", ["a"], state["a"]]]
    assert not reproduces(base, [], canonical_json(state))


def test_an_edit_inside_a_section_is_kept_small() -> None:
    base = {"a": {f"k{i}": i for i in range(50)}, "b": [1, 2]}
    state = {"a": {**base["a"], "k7": -7}, "b": [1, 2, 3]}
    edits = section_edits(base, sections(base), state, sections(state))
    assert edits == [["set", ["a", "k7"], -7], ["extend", ["b"], [3]]]


def _world(n: int, changed: int | None = None, extra: Any = None) -> dict[str, Any]:
    """A state far above INLINE_BYTES: n records, record `changed` edited."""
    records = {f"r{i:04d}": {"balance": i, "owner": f"owner-{i}", "flags": [i % 2, "x"]}
               for i in range(n)}
    if changed is not None:
        records[f"r{changed:04d}"]["balance"] = -1
    state: dict[str, Any] = {"records": records, "log": [f"entry {i}" for i in range(n)]}
    if extra is not None:
        state["extra"] = extra
    return state


def _run(store: Store) -> Run:
    return new_toy_run(store, ToyAdapter(), "good", repeats=3)


def _write(store: Store, run: Run, item: str, rep: int, state: Any) -> None:
    store.write_trajectory(run.run_id, Trajectory(item, rep, final_state=state), [])


def _blob_count(db: Path) -> tuple[int, int]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(payload)), 0) "
                            "FROM state_blobs").fetchone()


def test_similar_states_share_one_base_and_read_back_exactly(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = _run(store)
    item = run.item_ids[0]
    written = [_world(300, changed=r) for r in range(3)]
    for rep, state in enumerate(written, start=1):
        _write(store, run, item, rep, state)
    assert len(canonical_json(written[0])) > 4 * INLINE_BYTES
    count, size = _blob_count(db)
    assert count == 1 and size == len(canonical_json(written[0]))
    with sqlite3.connect(db) as conn:
        payloads = [json.loads(p) for (p,) in conn.execute("SELECT payload FROM trajectories")]
    assert all(DELTA_KEY in p and "final_state" not in p for p in payloads)
    assert max(len(canonical_json(p)) for p in payloads) < INLINE_BYTES
    read = [t.final_state for t in store.trajectories(run.run_id)]
    assert [canonical_json(s) for s in read] == [canonical_json(s) for s in written]
    assert check_run_chain(store, run.run_id).intact


def test_identical_states_are_stored_once_across_runs(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    state = _world(300)
    for run in (_run(store), _run(store)):
        _write(store, run, run.item_ids[0], 1, state)
    store.close()
    assert _blob_count(db)[0] == 1


def test_small_states_stay_inline_and_unlike_states_get_their_own_base(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = _run(store)
    _write(store, run, run.item_ids[0], 1, {"tiny": 1})
    assert _blob_count(db)[0] == 0
    _write(store, run, run.item_ids[0], 2, _world(300))
    _write(store, run, run.item_ids[1], 1, {"other": ["y" * 40] * 300})
    _write(store, run, run.item_ids[0], 3, _world(300, changed=5, extra=1.0))
    assert _blob_count(db)[0] == 2
    got = {(t.item_id, t.repetition): t.final_state for t in store.trajectories(run.run_id)}
    assert got[(run.item_ids[0], 1)] == {"tiny": 1}
    assert canonical_json(got[(run.item_ids[0], 3)]) == canonical_json(
        _world(300, changed=5, extra=1.0))


def test_a_state_whose_only_change_is_a_type_gets_a_base_of_its_own(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = _run(store)
    ints, floats = _world(300), _world(300)
    floats["records"]["r0007"]["balance"] = 7.0
    _write(store, run, run.item_ids[0], 1, ints)
    _write(store, run, run.item_ids[0], 2, floats)
    assert _blob_count(db)[0] == 2
    read = store.trajectories(run.run_id)[1].final_state
    assert canonical_json(read) == canonical_json(floats) and '"balance":7.0' in \
        canonical_json(read)


def test_a_rolled_back_write_leaves_no_base_for_later_ones_to_name(tmp_path: Path) -> None:
    """The writer remembers a base only once its transaction committed: a failed write
    (here: a slot already taken) must not leave later trajectories naming a blob that was
    rolled back with it."""
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = _run(store)
    _write(store, run, run.item_ids[0], 1, {"tiny": 1})
    with pytest.raises(sqlite3.IntegrityError):
        _write(store, run, run.item_ids[0], 1, _world(300))
    _write(store, run, run.item_ids[1], 1, _world(300, changed=3))
    assert _blob_count(db)[0] == 1
    assert check_run_chain(store, run.run_id).intact
    assert store.trajectories(run.run_id)[1].final_state == _world(300, changed=3)


def _tampered(tmp_path: Path, sql: str) -> tuple[Store, Run]:
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = _run(store)
    for rep in (1, 2):
        _write(store, run, run.item_ids[0], rep, _world(300, changed=rep))
    store.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER state_blobs_no_update")
        conn.execute("DROP TRIGGER state_blobs_no_delete")
        conn.execute(sql)
        for verb in ("UPDATE", "DELETE"):  # put the guards back, as a careful forger would
            conn.execute(f"CREATE TRIGGER state_blobs_no_{verb.lower()} BEFORE {verb} ON "
                         f"state_blobs BEGIN SELECT RAISE(ABORT, 'state_blobs is append-only: "
                         f"{verb} refused'); END")
    return open_store(str(db)), run


@pytest.mark.parametrize(("sql", "problem"), [
    ("UPDATE state_blobs SET payload = REPLACE(payload, 'owner-7', 'owner-8')",
     "does not match its digest (altered)"),
    ("DELETE FROM state_blobs", "is not in state_blobs"),
])
def test_an_altered_or_missing_base_fails_the_chain_check_and_the_read(
    tmp_path: Path, sql: str, problem: str
) -> None:
    store, run = _tampered(tmp_path, sql)
    check = check_run_chain(store, run.run_id)
    assert len(check.findings) == 1, check.findings
    assert problem in check.findings[0].problem
    with pytest.raises(AssayError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        store.trajectories(run.run_id)


class _Lying(StateEncoder):
    """A writer whose payloads say something other than the encoder decided."""

    def __init__(self, edits: list[Any]) -> None:
        super().__init__()
        self.edits = edits

    def encode(self, run_id: str, payload: dict[str, Any]) -> Any:
        encoded = super().encode(run_id, payload)
        if DELTA_KEY in encoded.payload:
            encoded.payload[DELTA_KEY]["edits"] = self.edits
        return encoded


@pytest.mark.parametrize("edits", [
    [["set", ["records", "nope", "balance"], 1]],
    [["cut", ["log"], 10_000]],
    [["rename", ["log"], 1]],
    "not a list",
])
def test_a_delta_that_does_not_fit_its_base_is_one_line_naming_its_row(
    tmp_path: Path, edits: Any
) -> None:
    store = open_store(str(tmp_path / "s.db"))
    run = _run(store)
    store._states = _Lying(edits)
    _write(store, run, run.item_ids[0], 1, _world(300))
    with pytest.raises(AssayError) as error:
        store.trajectories(run.run_id)
    message = str(error.value)
    assert message.startswith("trajectories row 1: stored payload does not fit its shape")
    assert "\n" not in message


def test_a_payload_naming_another_base_than_its_block_is_named_by_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that records one base in the block (so the chain check finds it stored) but
    puts another in the payload keeps a consistent chain; verify, which rebuilds every
    state, names the trajectory."""
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = _run(store)
    _write(store, run, run.item_ids[0], 1, _world(300))
    _write(store, run, run.item_ids[1], 1, {"other": ["y" * 40] * 300})
    first = json.loads(_payloads(db)[0])
    real_encode = StateEncoder.encode

    def swapped(self: StateEncoder, run_id: str, payload: dict[str, Any]) -> Any:
        encoded = real_encode(self, run_id, payload)
        encoded.payload[DELTA_KEY] = {"base": first[DELTA_KEY]["base"], "edits": []}
        return encoded

    monkeypatch.setattr(StateEncoder, "encode", swapped)
    _write(store, run, run.item_ids[1], 2, {"other": ["y" * 40] * 301})
    monkeypatch.undo()
    store.close()
    result = invoke("verify", run.run_id, "--db", str(db), "--skip-rescore")
    lines = [line for line in (result.out + result.err).splitlines() if "base state" in line]
    assert len(lines) == 1 and f"trajectory {run.item_ids[1]}/2: its payload's base state" \
        in lines[0], (result.out, result.err)  # (the other findings: it has no scores)


def _payloads(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [p for (p,) in conn.execute("SELECT payload FROM trajectories ORDER BY id")]


def test_base_states_travel_in_a_bundle_and_a_bundle_without_them_is_caught(
    tmp_path: Path
) -> None:
    store = open_store(str(tmp_path / "s.db"))
    run = _run(store)
    for rep in (1, 2, 3):
        _write(store, run, run.item_ids[0], rep, _world(300, changed=rep))
    path = tmp_path / "run.bundle"
    export_bundle(store, run.run_id, path)
    lines = path.read_text().splitlines()
    assert sum('"table":"state_blobs"' in line for line in lines) == 1
    loaded, _ = load_bundle(path)
    assert [t.final_state for t in loaded.trajectories(run.run_id)] == [
        _world(300, changed=r) for r in (1, 2, 3)]
    assert check_run_chain(loaded, run.run_id).intact


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 299), min_size=1, max_size=6))
def test_any_sequence_of_edited_worlds_reads_back_exactly(tmp_path_factory: Any,
                                                           changes: list[int]) -> None:
    store = open_store(str(tmp_path_factory.mktemp("p") / "s.db"))
    run = new_toy_run(store, ToyAdapter(), "good", repeats=len(changes))
    written = [_world(300, changed=c, extra=[c] * (c % 3)) for c in changes]
    for rep, state in enumerate(written, start=1):
        _write(store, run, run.item_ids[rep % len(run.item_ids)], rep, state)
    read = {t.repetition: t.final_state for t in store.trajectories(run.run_id)}
    assert [canonical_json(read[r]) for r in range(1, len(written) + 1)] == [
        canonical_json(s) for s in written]
    store.close()


def test_a_state_of_many_references_to_one_value_is_judged_by_its_json_size(
    tmp_path: Path
) -> None:
    """The writer's quick size check must not take a state whose pickle is small (one string
    referred to many times) for a small state: its JSON is what would be stored inline."""
    db = tmp_path / "s.db"
    store = open_store(str(db))
    run = _run(store)
    shared = "x" * 50
    state = {"log": [shared] * 200}
    assert len(canonical_json(state)) > INLINE_BYTES
    _write(store, run, run.item_ids[0], 1, state)
    assert _blob_count(db)[0] == 1
    assert store.trajectories(run.run_id)[0].final_state == state
