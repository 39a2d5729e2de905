"""Scoring beside the agents (`--workers N`): the rows scoring processes prepare are the rows
the writer would have written itself, an agent's answer checked there (handed over
undecoded) is judged as the writer judges it, and the writer refuses a prepared row whose
base state is forged or missing, leaving nothing behind."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest

from agent_assay import api
from agent_assay.errors import AssayError
from agent_assay.executors.scored_pool import MOST_WAITING, _Batches, scoring_workers
from agent_assay.hashing import STATE, canonical_hash, canonical_json
from agent_assay.hosting.jobs import Job, Task
from agent_assay.model import Config, PublicItem, Trajectory
from agent_assay.store import Store, open_store
from agent_assay.store.encoding import PreparedTrajectory
from agent_assay.store.evidence import check_run_chain
from tests.support.misbehaving import MisnumberingToy
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run


def _rows(store: Store, run_id: str) -> dict[tuple[str, int], tuple[str, object]]:
    """Per slot: the final state's canonical JSON and the scores (latency left out)."""
    scores: dict[tuple[str, int], list[tuple[str, object]]] = {}
    for r in store.current_scores(run_id):
        if r.scorer != "latency.total_ms":
            scores.setdefault((r.item_id, r.repetition), []).append((r.scorer, r.value))
    return {(t.item_id, t.repetition): (canonical_json(t.final_state),
                                        sorted(scores[(t.item_id, t.repetition)]))
            for t in store.trajectories(run_id)}


def test_banking_rows_scored_beside_the_agents_equal_the_writers_own(tmp_path: Path) -> None:
    db = str(tmp_path / "bank.db")
    common: dict[str, Any] = {"store": db, "repeats": 2, "selection": api.Selection(limit=24)}
    alone = api.evaluate("banking", "mock", **common)
    pooled = api.evaluate("banking", "mock", executor=api.ExecutorSpec(workers=2), **common)
    store = open_store(db)
    rows = _rows(store, pooled.run.run_id)
    assert len(rows) == 2 * 24
    assert rows == _rows(store, alone.run.run_id)
    assert check_run_chain(store, pooled.run.run_id).intact
    with sqlite3.connect(tmp_path / "bank.db") as conn:
        bases = conn.execute("SELECT COUNT(*) FROM state_blobs").fetchone()[0]
    assert 1 <= bases <= 1 + 2  # the writer's own base, and at most one per agent process
    verified = api.verify(pooled.run.run_id, store=db)  # every score re-derived and equal
    assert verified.ok, verified.findings


def test_an_answer_for_another_slot_is_the_same_crash_with_scoring_processes(
    tmp_path: Path,
) -> None:
    """The scoring process decodes and checks an agent's answer (the writer hands it over as
    it came): a trajectory for the wrong repetition is a crash of the asked slot, recorded
    exactly as the writer records it alone."""
    db = str(tmp_path / "a.db")
    runs = [api.evaluate(MisnumberingToy(), "good", store=db, repeats=2,
                         executor=api.ExecutorSpec(workers=workers)) for workers in (1, 2)]
    store = open_store(db)
    stored = []
    for done in runs:
        assert done.result.crashed == done.result.written > 0
        stored.append({(t.item_id, t.repetition): (t.crashed, t.error, t.crash_cause)
                       for t in store.trajectories(done.run.run_id)})
    assert stored[0] == stored[1]
    assert all(error is not None and error.startswith("adapter contract: asked for item")
               for _, error, _ in stored[1].values())


def test_fewer_scoring_processes_than_agent_processes_and_than_cores() -> None:
    assert [scoring_workers(n, cores=16) for n in (1, 2, 3, 4, 8)] == [1, 1, 1, 2, 4]
    assert [scoring_workers(n, cores=2) for n in (1, 2, 3, 4, 8)] == [1, 1, 1, 1, 1]
    assert [scoring_workers(8, cores) for cores in (1, 3, 4, 6)] == [1, 2, 3, 4]


def _prepared(item: str, state: str | None, blob: tuple[str, str] | None) -> PreparedTrajectory:
    payload = {"item_id": item, "repetition": 1, "steps": [], "outcome": None,
               "latency_ms": 0.0, "cost": {"usd": 0.0, "reason": "test"}, "crashed": False,
               "error": None, "meta": {},
               "final_state_delta": {"base": state, "edits": []}}
    return PreparedTrajectory(item_id=item, repetition=1, crashed=False, error=None, meta={},
                              steps=0, path="0" * 64, payload=canonical_json(payload),
                              state=state, blob=blob, score_set=None)


@pytest.mark.parametrize(("blob", "problem"), [
    (("a" * 64, '{"x":1}'), "its base state does not hash to aaaaaaaaaaaaaaaa"),
    (None, "names base state aaaaaaaaaaaaaaaa, which is not stored"),
])
def test_the_writer_refuses_a_forged_or_missing_base_and_writes_nothing(
    tmp_path: Path, blob: tuple[str, str] | None, problem: str
) -> None:
    store = open_store(str(tmp_path / "s.db"))
    run = new_toy_run(store, ToyAdapter(), "good")
    head = store.head(run.run_id)
    with pytest.raises(AssayError, match=problem):
        store.write_prepared_group(run.run_id, [_prepared(run.item_ids[0], "a" * 64, blob)])
    assert store.trajectory_counts(run.run_id) == (0, 0)
    assert store.head(run.run_id) == head
    text = '{"x":1}'
    honest = canonical_hash(STATE, text)
    store.write_prepared_group(run.run_id, [_prepared(run.item_ids[0], honest, (honest, text))])
    assert store.trajectories(run.run_id)[0].final_state == {"x": 1}


def test_a_scoring_process_keeps_a_bounded_number_of_decoded_bases() -> None:
    """With a world per item every batch may bring new bases; a scorer keeps the most
    recent ones only, and always every base of the batch at hand."""
    from collections import OrderedDict

    from agent_assay.executors.scored_pool import DECODED_BASES, ActedBatch, _Scorer

    scorer = _Scorer.__new__(_Scorer)  # the bases alone: no system is needed to keep them
    scorer.bases = OrderedDict()
    for batch in range(10):
        texts = {f"{batch:02d}{n:062d}": f'{{"n":{n}}}' for n in range(8)}
        assert scorer.prepared(ActedBatch([], texts)) == []
        assert set(texts) <= set(scorer.bases)
    assert len(scorer.bases) == DECODED_BASES
    big = {f"b{n:063d}": "{}" for n in range(DECODED_BASES + 5)}
    scorer.prepared(ActedBatch([], big))
    assert set(scorer.bases) == set(big)


class _Held(Executor):
    """Scoring processes that finish a batch only when the test says so, or at once once
    `at_once` is set."""

    def __init__(self) -> None:
        self.batches: list[tuple[Future[Any], list[tuple[Job, bytes]]]] = []
        self.at_once = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.batches.append((future, args[0]))
        if self.at_once:
            future.set_result([f"scored {job.item.item_id}" for job, _ in args[0]])
        return future


def _answer(n: int) -> tuple[Job, bytes]:
    """An answer that is no trajectory: whoever decodes it records a crash of its slot."""
    task = Task(PublicItem(f"i{n}", {}), Config("toy", "good", {}), 0, 1)
    return task, b"garbled"


def _slots(arrival: Any) -> list[str]:
    assert all(isinstance(t, Trajectory) and t.crashed for t in arrival)
    return [t.item_id for t in arrival]


def test_answers_wait_for_a_free_scoring_process_and_the_writer_takes_the_overflow() -> None:
    """A batch holds what arrived while the last was scored; while every scoring process is
    busy and a full batch waits, the writer decodes what arrives itself (each answer
    checked as anywhere else), and at the end takes the oldest while none is free. Every
    answer is handed on exactly once."""
    held = _Held()
    batches = _Batches(held, 1)
    assert list(batches.add([_answer(0)])) == []
    for n in range(1, MOST_WAITING + 1):
        assert list(batches.add([_answer(n)])) == []
    overflow = list(batches.add([_answer(MOST_WAITING + 1)]))
    assert [_slots(a) for a in overflow] == [[f"i{MOST_WAITING + 1}"]]
    first, handed = held.batches[0]
    assert [job.item.item_id for job, _ in handed] == ["i0"]
    first.set_result(["scored i0"])
    got = list(batches.add([_answer(MOST_WAITING + 2)]))
    assert got == [["scored i0"]]
    second, handed = held.batches[1]
    assert len(handed) == MOST_WAITING + 1  # what waited, and what had just arrived
    assert list(batches.add([_answer(100), _answer(101)])) == []
    draining = batches.drain()
    assert _slots(next(draining)) == ["i100"]  # none free: the writer takes the oldest
    second.set_result(["scored batch"])
    held.at_once = True
    assert list(draining) == [["scored batch"], ["scored i101"]]
    assert len(held.batches) == 3
