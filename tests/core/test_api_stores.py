"""The API closes a store it opened from a path or URL before it returns, and leaves one it
was handed open: a script that calls it in a loop keeps no pool of connections per call
(on PostgreSQL, server connections) until the garbage collector happens to find it."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_assay import api
from agent_assay.store import Store, open_store
from tests.support.toy import RichToyAdapter, ToyAdapter


@contextmanager
def engines_opened() -> Iterator[list[object]]:
    """The engine of every store the API opens meanwhile (the collector off, so an engine
    left open is not closed behind the test's back)."""
    made: list[object] = []
    real = api.open_db

    def recorded(*args: Any, **kwargs: Any) -> Store:
        store = real(*args, **kwargs)
        made.append(store.engine)
        return store

    was = gc.isenabled()
    gc.disable()
    api.open_db = recorded  # type: ignore[assignment]
    try:
        yield made
    finally:
        api.open_db = real  # type: ignore[assignment]
        if was:
            gc.enable()


def checked_in(engine: object) -> int:
    return int(engine.pool.checkedin())  # type: ignore[attr-defined]


CALLS: dict[str, Callable[[str], object]] = {
    "build_suite": lambda db: api.build_suite(ToyAdapter(), store=db),
    "start": lambda db: api.start(ToyAdapter(), "good", store=db),
    "evaluate": lambda db: api.evaluate(ToyAdapter(), "good", store=db),
    "certify": lambda db: api.certify(RichToyAdapter(), store=db, config="good"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_store_opened_from_a_path_is_closed_on_return(tmp_path: Path, call: str) -> None:
    db = str(tmp_path / "assay.db")
    with engines_opened() as made:
        CALLS[call](db)
    assert made, "no engine was made"
    assert [checked_in(engine) for engine in made] == [0] * len(made)


def test_a_store_handed_in_stays_open(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "assay.db"))
    done = api.evaluate(ToyAdapter(), "good", store=store)
    assert store.get_run(done.run_id).run_id == done.run_id  # still usable, still its own
    store.close()
