"""A run's stored trajectories as something controls can walk more than once.

Several controls read every trajectory of the certified run (the mutation pass, shuffled
gold, identical_config's check of blanked fields). Holding them all costs memory in
proportion to the run: a banking trajectory decodes to a whole bank, and 10,000 of them
took gigabytes. So a walk reads the store an item at a time, and only a run small enough
to hold (`HELD_TRAJECTORIES`) is kept after its first walk, to spare re-reading it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from agent_assay.model import Trajectory
from agent_assay.store.facade.store import Store

Read = Callable[[str], Iterator[tuple[str, list[Trajectory]]]]
"""A run's trajectories an item at a time, as `Store.trajectories_by_item` gives them."""

HELD_TRAJECTORIES = 2_000
"""Up to this many trajectories a run's are kept in memory after the first walk."""


class RunTrajectories:
    """Every stored trajectory of one run, in (item, repetition) order, on each walk."""

    def __init__(self, store: Store, run_id: str, read: Read | None = None) -> None:
        """`read`: how the run is read (the store's reader, fresh states for each, unless
        given another: `SharedStates.by_item`, for a caller that changes nothing it reads)."""
        self.store, self.run_id = store, run_id
        self.read = store.trajectories_by_item if read is None else read
        self.count = store.trajectory_count(run_id)
        self._held: list[tuple[str, list[Trajectory]]] | None = None

    def by_item(self) -> Iterator[tuple[str, list[Trajectory]]]:
        """(item id, that item's trajectories), item by item."""
        if self._held is not None:
            yield from self._held
            return
        keep: list[tuple[str, list[Trajectory]]] | None = (
            [] if self.count <= HELD_TRAJECTORIES else None)
        for group in self.read(self.run_id):
            if keep is not None:
                keep.append(group)
            yield group
        self._held = keep

    def __iter__(self) -> Iterator[Trajectory]:
        for _, group in self.by_item():
            yield from group

    def __len__(self) -> int:
        return self.count
