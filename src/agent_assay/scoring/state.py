"""State scorers: judge the world the agent left, not what it said.

Paths are dot-separated keys into the nested snapshot an adapter returns
(``cards.SYN-CARD-0007.status``). An assertion on a mapping covers every leaf
beneath it, which is how gold declares a whole new record as expected.
"""

from collections.abc import Mapping
from typing import Any

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext

_MISSING = object()


def value_at(state: Mapping[str, Any], path: str) -> Any:
    """The value at a dot path, or a private sentinel when any key is absent."""
    node: Any = state
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return _MISSING
        node = node[key]
    return node


def flatten(state: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every leaf of a nested mapping under its dot path (lists are leaves)."""
    leaves: dict[str, Any] = {}
    for key, value in state.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            leaves.update(flatten(value, path + "."))
        else:
            leaves[path] = value
    return leaves


def changed_paths(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Leaf paths that were added, removed or changed between two snapshots."""
    old, new = flatten(before), flatten(after)
    paths = old.keys() | new.keys()
    return sorted(p for p in paths if old.get(p, _MISSING) != new.get(p, _MISSING))


def covered(path: str, asserted: list[str]) -> bool:
    return any(path == a or path.startswith(a + ".") for a in asserted)


class StateAssertions:
    name = "state.assertions"
    version = "1"
    definition = "share of gold assertions on the final state that hold; n/a without assertions"
    kind: ScoreKind = "fraction"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if not gold.assertions:
            return ScoreValue(None, {"reason": "gold asserts nothing about state"})
        final = trajectory.final_state or {}
        failed = [a.path for a in gold.assertions if value_at(final, a.path) != a.equals]
        held = len(gold.assertions) - len(failed)
        return ScoreValue(held / len(gold.assertions), {"failed": failed} if failed else None)


class StateCollateral:
    name = "state.collateral"
    version = "1"
    definition = "number of changed state leaves that no gold assertion covers (0 is best)"
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if ctx.baseline_state is None or trajectory.final_state is None:
            return ScoreValue(None, {"reason": "no baseline or no final state"})
        asserted = [a.path for a in gold.assertions]
        stray = [
            p
            for p in changed_paths(ctx.baseline_state, trajectory.final_state)
            if not covered(p, asserted)
        ]
        return ScoreValue(float(len(stray)), {"paths": stray[:20]} if stray else None)
