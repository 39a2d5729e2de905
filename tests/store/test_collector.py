"""`agent_assay.collector.paused`: the cyclic collector off for a block and on again after,
with what the block left alive still collectable (a report's connections are closed by
`gc.collect()` in the tests that hold a store unwritten)."""

from __future__ import annotations

import gc
import weakref

from agent_assay.collector import paused


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_the_collector_is_off_inside_and_on_after() -> None:
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert not gc.get_freeze_count()  # nothing is left out of the collector's reach


def test_it_stays_off_after_when_it_was_off() -> None:
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_cycle_made_inside_is_still_freed() -> None:
    with paused():
        node = _Node()
        gone = weakref.ref(node)
        del node
    assert gone() is not None  # a cycle: reference counting alone does not free it
    gc.collect()
    assert gone() is None


def test_as_a_decorator() -> None:
    @paused()
    def inside() -> bool:
        return gc.isenabled()

    assert inside() is False
    assert gc.isenabled()
