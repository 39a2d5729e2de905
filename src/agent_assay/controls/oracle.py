"""The oracle: gold replayed through the adapter's real tool path.

Used by the positive control (it must reach the ceiling) and as the
well-scored trajectory that the self-test and the state checks plant defects in.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_assay.controls.base import ControlContext
from agent_assay.hashing import stable_seed
from agent_assay.model import Item, Trajectory


def oracle_trajectory(ctx: ControlContext, item: Item) -> Trajectory:
    return ctx.adapter.replay(
        item.public(), item.gold.path, seed=stable_seed(ctx.seed, "oracle", item.item_id)
    )


def oracle_trajectories(ctx: ControlContext, items: Sequence[Item]) -> list[Trajectory]:
    return [oracle_trajectory(ctx, item) for item in items]
