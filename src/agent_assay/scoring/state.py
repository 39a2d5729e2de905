"""State scorers: judge the world the agent left, not what it said.

Paths are dot-separated keys into the nested snapshot an adapter returns
(``cards.SYN-CARD-0007.status``). An assertion on a mapping covers every leaf
beneath it, which is how gold declares a whole new record as expected.
"""

from collections.abc import Mapping
from typing import Any

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay.statepaths import changed_paths, covered, found, same, value_at


class StateAssertions:
    name = "state.assertions"
    version = "1"
    definition = "share of gold assertions on the final state that hold; n/a without assertions"
    kind: ScoreKind = "fraction"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if not gold.assertions:
            return ScoreValue(None, {"reason": "gold asserts nothing about state"})
        final = trajectory.final_state or {}
        failed = [a.path for a in gold.assertions if not same(value_at(final, a.path), a.equals)]
        held = len(gold.assertions) - len(failed)
        return ScoreValue(held / len(gold.assertions), {"failed": failed} if failed else None)


class StateCollateral:
    """Changes gold does not account for.

    A record the agent created (a mapping absent from the baseline) is judged by the
    fields gold asserts on it, which `state.assertions` checks: its other fields are
    how the record was made, not damage. A created record gold says nothing about is
    one stray change, whatever its size. Every changed, added or removed leaf of what
    existed before counts unless an assertion covers it.
    """

    name = "state.collateral"
    version = "2"
    definition = ("changed leaves of pre-existing state plus created records that no gold "
                  "assertion covers (0 is best)")
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if ctx.baseline_state is None or trajectory.final_state is None:
            return ScoreValue(None, {"reason": "no baseline or no final state"})
        asserted = [a.path for a in gold.assertions]
        changed, created = stray_changes(ctx.baseline_state, trajectory.final_state, asserted)
        if not changed and not created:
            return ScoreValue(0.0, None)
        detail = {"paths": changed[:DETAIL_CAP], "created": created[:DETAIL_CAP]}
        shown = {key: value for key, value in detail.items() if value}
        return ScoreValue(float(len(changed) + len(created)), shown)


DETAIL_CAP = 20


def stray_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], asserted: list[str]
) -> tuple[list[str], list[str]]:
    """(changed leaves no assertion covers, created records no assertion touches)."""
    changed: list[str] = []
    created: dict[str, None] = {}  # an ordered set: a record's leaves arrive one by one
    for path in changed_paths(before, after):
        if covered(path, asserted):
            continue
        record = _created_root(before, path)
        if record is None:
            changed.append(path)
        elif not _touched(record, asserted):
            created[record] = None
        elif (inner := _untouched_inner_record(after, record, path, asserted)) is not None:
            created[inner] = None
    return changed, list(created)


def _created_root(before: Mapping[str, Any], path: str) -> str | None:
    """The outermost mapping on `path` that the baseline does not have, if any."""
    keys = path.split(".")
    for depth in range(1, len(keys)):
        if not found(value_at(before, ".".join(keys[:depth]))):
            return ".".join(keys[:depth])
    return None


def _touched(path: str, asserted: list[str]) -> bool:
    """Whether gold asserts anything on or beneath `path`."""
    return any(a == path or a.startswith(path + ".") for a in asserted)


def _untouched_inner_record(
    after: Mapping[str, Any], record: str, leaf: str, asserted: list[str]
) -> str | None:
    """Inside a created record gold touches, the innermost mapping holding `leaf` that
    gold says nothing about, if it is itself nested in a touched one: a second record in
    a created table, not a field of the asserted record."""
    keys = leaf.split(".")
    start = len(record.split("."))
    for depth in range(start + 1, len(keys)):
        inner = ".".join(keys[:depth])
        if isinstance(value_at(after, inner), Mapping) and not _touched(inner, asserted):
            return inner
    return None
