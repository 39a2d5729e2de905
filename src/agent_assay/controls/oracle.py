"""The oracle: gold replayed through the adapter's real tool path.

Used by the positive control (it must reach the ceiling) and as the
well-scored trajectory that the self-test and the state checks plant defects in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from agent_assay.adapters.judged import judging
from agent_assay.adapters.loaded import NO_REPLAY
from agent_assay.controls.base import ControlContext
from agent_assay.controls.judge_probes import reference_reply
from agent_assay.errors import AssayError
from agent_assay.hashing import stable_seed
from agent_assay.hosting.jobs import Replay
from agent_assay.model import Item, Trajectory
from agent_assay.scoring.judging import final_answer


def oracle_job(ctx: ControlContext, item: Item) -> Replay:
    """Gold's path as a replay job, under a seed drawn from the item alone."""
    if ctx.adapter.replay_view() is None:
        raise AssayError(f"adapter {ctx.adapter.name}: {NO_REPLAY}")
    return Replay(item.public(), tuple(item.gold.path),
                  stable_seed(ctx.seed, "oracle", item.item_id))


def planting_bases(ctx: ControlContext, items: Sequence[Item]) -> list[Trajectory]:
    """For each item, a trajectory that follows gold, to plant defects in.

    Normally the oracle replay (every item's in one exchange). An adapter that cannot
    execute (an imported run has no environment) may declare recording without executing:
    gold's calls recorded as proposed but not run, which is enough for scorers that judge
    proposals.
    """
    recorder = ctx.adapter.recorder
    if recorder is not None:
        bases = [recorder.record_without_executing(item.public(), item.gold.path)
                 for item in items]
    else:
        bases = oracle_trajectories(ctx, items)
    return [with_reference_reply(ctx, item, base)
            for item, base in zip(items, bases, strict=True)]


def with_reference_reply(ctx: ControlContext, item: Item, base: Trajectory) -> Trajectory:
    """Gold's path ends in no reply; where the system has its answers judged, the oracle
    ends in a reply a person labelled right on every question of the item (the first
    one), so the judged scorer has a well-scored trajectory to plant its defect in."""
    system = judging(ctx.adapter.raw)
    reply = reference_reply(system, item) if system is not None else None
    if reply is None or final_answer(base) is not None:
        return base
    meta = dict(base.meta) if isinstance(base.meta, Mapping) else {}
    return replace(base, meta={**meta, "final_answer": reply})


def oracle_trajectories(ctx: ControlContext, items: Sequence[Item]) -> list[Trajectory]:
    """Gold replayed on each item, in an agent process (see `hosting.replays`): an item's
    once per certification (its job and seed are the same whichever control asks), those
    not yet replayed in one exchange. A trajectory is never changed in place (a planter
    returns a copy), so every control reads the replay as the environment gave it."""
    missing = list({item.item_id: item for item in items if item.item_id not in ctx.oracles}
                   .values())
    replayed = ctx.environment().run_all([oracle_job(ctx, item) for item in missing])
    ctx.oracles.update(zip((item.item_id for item in missing), replayed, strict=True))
    return [ctx.oracles[item.item_id] for item in items]
