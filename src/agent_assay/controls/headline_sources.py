"""The trajectories headline_agreement judges a system scorer on, one item at a time.

Five sources beside the agent's own stored trajectories: gold replayed (correct by
construction), each null agent (doing nothing), well-formed random calls, every mutation
operator planted in gold's replay (a defect by construction), and the agent's own calls
replayed by the harness (the same behaviour, made by the harness instead of the agent).
Every replay and do-nothing agent runs in the controls' agent process (`ctx.environment()`,
see `hosting.replays`): gold's through the oracle, the mutants' through the mutation
engine's own `Replays`, the rest through `replay`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from agent_assay.controls.base import ControlContext
from agent_assay.controls.oracle import oracle_trajectories
from agent_assay.controls.random_agent import random_calls
from agent_assay.hashing import canonical_json, stable_seed
from agent_assay.model import Item, ToolCall, Trajectory
from agent_assay.mutation.config import DEFAULT
from agent_assay.mutation.engine import Replays, _apply
from agent_assay.mutation.operators import OperatorContext

REPLAYED = ("gold", "random", "mutated", "own_replayed")
"""The sources that need the replay capability."""


@dataclass
class ItemSources:
    """One item's trajectories by source; `own_replayed` pairs each stored trajectory with
    the harness's replay of its calls (where that replay reproduced the same behaviour)."""

    by_source: dict[str, list[Trajectory]] = field(default_factory=dict)
    nulls: dict[str, Trajectory] = field(default_factory=dict)
    """Each null agent's trajectory, by the agent's name (by_source["do_nothing"] pools them)."""
    own_replayed: list[tuple[Trajectory, Trajectory]] = field(default_factory=list)
    not_reproduced: int = 0


def replay(ctx: ControlContext, item: Item, calls: Sequence[ToolCall], seed: int) -> Trajectory:
    """Calls run through the system's environment, in the controls' agent process."""
    return ctx.environment().replay(item.public(), list(calls), seed=seed)


def behaviour(t: Trajectory) -> str:
    """What the agent did and what came of it: everything but who made it, when and at what
    cost (latency, cost, meta) and the repetition number."""
    data = t.to_json()
    for key in ("repetition", "latency_ms", "cost", "meta"):
        data.pop(key)
    return canonical_json(data)


def item_sources(ctx: ControlContext, item: Item, own: Sequence[Trajectory]) -> ItemSources:
    got = ItemSources()
    got.by_source["own"] = list(own)
    got.nulls = {name: ctx.environment().null_runs(name, [item.public()], ctx.config)[0]
                 for name in sorted(ctx.adapter.null_agents())}
    got.by_source["do_nothing"] = list(got.nulls.values())
    if ctx.adapter.replay_view() is None:
        return got
    gold = oracle_trajectories(ctx, [item])[0]
    got.by_source["gold"] = [gold]
    got.by_source["random"] = random_trajectories(ctx, item)
    got.by_source["mutated"] = mutants_of(ctx, item, gold)
    for t in own:
        seed = stable_seed(ctx.seed, "headline_agreement", "own", t.item_id, t.repetition)
        twin = replace(replay(ctx, item, t.path, seed % 2**31), repetition=t.repetition)
        if behaviour(twin) == behaviour(t):
            got.own_replayed.append((t, twin))
        else:
            got.not_reproduced += 1
    return got


def random_trajectories(ctx: ControlContext, item: Item) -> list[Trajectory]:
    view = ctx.adapter.replay_view()
    assert view is not None
    catalogue, pools = view.tool_catalogue(), view.argument_pools()
    if not catalogue:
        return []
    made = []
    for s in range(ctx.random_seeds):
        rng = random.Random(stable_seed(ctx.seed, "headline_agreement", s, item.item_id))
        made.append(replay(ctx, item, random_calls(catalogue, pools, rng), rng.randrange(2**31)))
    return made


def mutants_of(ctx: ControlContext, item: Item, gold: Trajectory) -> list[Trajectory]:
    """Each default operator planted in gold's replay; an operator that alters nothing here
    (an equivalent mutant) adds nothing."""
    view = ctx.adapter.replay_view()
    assert view is not None
    pools = view.argument_pools()
    seed = stable_seed(ctx.seed, "headline_agreement", "mutated")
    mutating = frozenset(ctx.adapter.facts.mutating_tools)
    made = []
    for spec in DEFAULT.operators:
        replays = Replays(ctx.environment(), seed, spec.name)
        mutant, proposed = _apply(replays, item, gold, spec,
                                  OperatorContext(mutating, pools, spec.params), seed)
        if proposed is not None:
            made.append(mutant)
    return made

