"""How many tasks to hand a worker at once, learned from how long the last batch took.

Every hand-over costs something the agent's work does not (pickling, queueing, waking the
parent's threads; on Dask, the scheduler's own bookkeeping), so a cheap agent's tasks are
best handed over by the dozen. A slow agent's are best handed over one at a time: the
work then spreads evenly over the workers, and each trajectory reaches the store as soon
as it is done. Both executors that batch start at one task, and grow a batch towards
their own target duration as batches come back measured.
"""

from __future__ import annotations

FIRST_BATCH = 1
"""Until a batch has been measured, an item may take minutes (a model agent): one at a time."""


def next_size(size: int, seconds: float, tasks: int, *, target_seconds: float, most: int) -> int:
    """The next batch's size: about `target_seconds` of work at the pace the last batch
    (`tasks` tasks in `seconds`) measured, at most twice the current size (one quick item
    says little about the next), and at most `most`."""
    per_task = seconds / tasks
    fits = int(target_seconds / per_task) if per_task > 0 else most
    return max(1, min(fits, 2 * size, most))
