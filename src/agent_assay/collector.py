"""Python's cyclic garbage collector, paused where a bounded piece of work allocates much
and leaves no cycles to free.

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
