"""The chain check reads one snapshot: a block appended while it reads is not half seen.

Without it, `report` on a run that a writer is extending can see a block's ledger entry
without its rows (or the rows without the entry) and say TAMPERED about an honest store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agent_assay.store import Store, open_existing_store, open_store
from agent_assay.store.evidence import ChainCheck, RawReader, check_run, check_run_chain
from tests.store.conftest import Backend
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run


def _append_while_reading(
    monkeypatch: pytest.MonkeyPatch, writer: Store, run_id: str
) -> list[int]:
    """After the check's first read of run_events, another connection appends an event
    block and commits; returns a list that records that it happened."""
    appended: list[int] = []
    real = RawReader.read_raw

    def read_raw(self: RawReader, query: Any, conn: Any = None) -> Iterator[tuple[Any, ...]]:
        yield from real(self, query, conn)
        if not appended and "run_events" in str(query):
            appended.append(writer.append_event(run_id, "note", {"said": "meanwhile"}).seq)

    monkeypatch.setattr(RawReader, "read_raw", read_raw)
    return appended


@pytest.mark.parametrize("check", [check_run_chain, check_run], ids=["full walk", "quick"])
def test_a_block_appended_while_the_check_reads_is_not_half_seen(
    backend: Backend, monkeypatch: pytest.MonkeyPatch, check: Callable[[Store, str], ChainCheck]
) -> None:
    reader = open_store(backend.db)  # on PostgreSQL both checks are the full walk
    run_id = toy_run(reader, ToyAdapter(), "good").run_id
    writer = open_store(backend.db)
    appended = _append_while_reading(monkeypatch, writer, run_id)
    during = check(reader, run_id)
    assert appended, "the block was not appended during the check"
    assert during.intact, [f.line() for f in during.findings]
    assert during.evidence.head is not None and during.evidence.head.seq < appended[0]
    monkeypatch.undo()
    after = check(reader, run_id)
    assert after.intact and after.evidence.head is not None
    assert after.evidence.head.seq == appended[0]


def test_a_store_opened_to_read_sees_one_state_however_long_it_reads(backend: Backend) -> None:
    """report, compare and verify open the store read-only, and such a store is pinned:
    every read through any of its methods sees the state its first read saw, so a writer
    going on meanwhile cannot show one view a trajectory without its scores or events."""
    writer = open_store(backend.db)
    run_id = toy_run(writer, ToyAdapter(), "good").run_id
    reader = open_existing_store(backend.db, read_only=True)
    events = [e.event for e in reader.events(run_id)]
    scores = len(reader.current_scores(run_id))
    writer.append_event(run_id, "note", {"said": "meanwhile"})
    second = toy_run(writer, ToyAdapter(), "good").run_id
    assert [e.event for e in reader.events(run_id)] == events
    assert len(reader.current_scores(run_id)) == scores
    assert second not in reader.run_ids()
    with reader.snapshot() as conn:  # the chain check's own snapshot is the same one
        assert reader.head(run_id) == reader.head(run_id)
        assert conn is not None
    reader.close()
    again = open_existing_store(backend.db, read_only=True)
    assert [e.event for e in again.events(run_id)] == [*events, "note"]
    assert second in again.run_ids()
    again.close()
    writer.close()
