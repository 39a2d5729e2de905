"""Python's cyclic garbage collector, paused where a bounded piece of work allocates much
and leaves no cycles to free, or told to collect young objects less often where they live
until a commit.

Each pass of the collector walks the objects still alive, so in a process whose heap is
mostly modules (SQLAlchemy, NumPy, SciPy) and rows read in bulk, its passes cost a tenth
of a short command and free nothing. Reference counting frees everything else as usual;
the collector runs again, as before, once the work is done.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block (or, as `@paused()`, the function), then on again
    if it was on.

    What the block left alive joins the oldest generation, as it would have had the
    collector run (it would have found it alive): turned back on with a young generation
    of every object allocated meanwhile, the collector's next pass would otherwise walk
    them all at once. A cycle among them is still freed, by the next full pass or
    `gc.collect()`. (`gc.freeze` then `gc.unfreeze` moves them without a walk. It also
    thaws what was frozen before, the few hundred objects CPython freezes as it starts, say:
    they are then walked by full passes again, which costs little and frees only garbage;
    nothing in agent-assay freezes objects to keep them frozen.)"""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


YOUNG_COLLECTED_AT = 10_000
"""The young objects the garbage collector lets in before it collects them while a run
writes (Python's default: 700)."""


@contextmanager
def young_collected_less() -> Iterator[None]:
    """Collect the young generation at `YOUNG_COLLECTED_AT` objects for the block, then as
    before. A group the writer commits together is alive until its commit, some forty
    objects a trajectory: at the default every group was scanned several times over and
    promoted to the older generations, only to die there, a twentieth of the writer's CPU
    (and a tenth of the checkpoint's, which builds columns of every row it covers).
    Garbage in a cycle lives up to that many allocations longer; nothing else changes."""
    before = gc.get_threshold()
    if before[0]:  # 0: never collected, as the process asked
        gc.set_threshold(max(before[0], YOUNG_COLLECTED_AT), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
