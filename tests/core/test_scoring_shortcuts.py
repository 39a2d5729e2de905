"""The scoring path's shortcuts compute what the plain versions they replaced did: the
state diff, repeated calls, the scoring context's kept views, and `ScoreValue`'s own
constructor."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_assay.model import Gold, Step, ToolCall, Trajectory
from agent_assay.scoring.base import ScoreValue, ScoringContext
from agent_assay.scoring.registry import default_scorers, score_all
from agent_assay.scoring.tools import RedundantTools
from agent_assay.statepaths import changed_paths, flatten

_ABSENT = object()


def plain_changed_paths(before: Mapping[str, Any], after: Mapping[str, Any],
                        prefix: str = "") -> list[str]:
    """`changed_paths` as it was written before its shortcuts."""
    changed: list[str] = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key, _ABSENT), after.get(key, _ABSENT)
        if old == new:
            continue
        path = f"{prefix}{key}"
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            changed += plain_changed_paths(old, new, path + ".")
            continue
        leaves: set[str] = set()
        for side in (old, new):
            if isinstance(side, Mapping):
                leaves |= flatten(side, path + ".").keys()
            elif side is not _ABSENT:
                leaves.add(path)
        changed += sorted(leaves)
    return changed


leaves = (st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([0.0, 1.0, -0.0])
          | st.sampled_from(["", "a", "b"]) | st.lists(st.integers(0, 1), max_size=2))
states = st.recursive(leaves, lambda inner: st.dictionaries(st.sampled_from("abcd"), inner,
                                                            max_size=4), max_leaves=12)
worlds = st.dictionaries(st.sampled_from("abcd"), states, max_size=4)


@settings(max_examples=400, deadline=None, database=None)
@given(worlds, worlds)
def test_changed_paths_is_the_plain_diff(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert changed_paths(before, after) == plain_changed_paths(before, after)
    merged = {**before, **after}  # mostly equal worlds, as a run's states are
    assert changed_paths(before, merged) == plain_changed_paths(before, merged)


calls = st.builds(ToolCall, st.sampled_from(["a", "b"]),
                  st.dictionaries(st.sampled_from("xy"), st.sampled_from([1, 1.0, True, "1", " 1"]),
                                  max_size=2))


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(calls, max_size=7))
def test_redundant_tools_counts_each_repeat_of_an_earlier_call(made: list[ToolCall]) -> None:
    ctx = ScoringContext(arg_normalisers={"a": {"x": ("strip",)}})
    trajectory = Trajectory("i", 1, tuple(Step(c, True) for c in made))
    seen: set[Any] = set()
    repeats = 0
    for call in made:
        key = ctx.normalise(call)
        repeats += key in seen
        seen.add(key)
    assert RedundantTools().score(Gold(), trajectory, ctx) == ScoreValue(float(repeats))


def test_kept_views_are_each_owners_own() -> None:
    """The last trajectory's and gold's views are found first; another trajectory or gold,
    or the same one once the memo ended, is not given them."""
    ctx = ScoringContext()
    gold = Gold(path=(ToolCall("a"), ToolCall("b")))
    other_gold = Gold(path=(ToolCall("b"),))
    first = Trajectory("i", 1, (Step(ToolCall("a"), True),))
    second = Trajectory("i", 2, (Step(ToolCall("b"), True), Step(ToolCall("b"), True)))
    with ctx.memoised():
        assert ctx.view(first) is ctx.view(first)
        assert ctx.view(second).tools == ["b", "b"]
        assert ctx.view(first).tools == ["a"]
        assert ctx.view(gold).tools == ["a", "b"] and ctx.view(other_gold).tools == ["b"]
        kept = ctx.view(first)
        with ctx.memoised():  # an inner block leaves the outer one's memo
            assert ctx.view(first) is kept
        assert ctx.view(first) is kept
    assert ctx.view(first) is not kept  # nothing of a trajectory is kept after the block
    assert ctx.view(gold) is ctx.view(gold)  # a gold's is, from one trajectory to the next
    for trajectory in (first, second):
        by_name = {s.name: v for s, v in score_all(default_scorers(), gold, trajectory, ctx)}
        fresh = {s.name: s.score(gold, trajectory, ScoringContext()) for s in default_scorers()}
        assert by_name == fresh


def test_score_value_is_the_dataclass_it_was() -> None:
    value = ScoreValue(0.5, {"why": "x"})
    assert (value.value, value.detail, value.imported) == (0.5, {"why": "x"}, False)
    assert value == ScoreValue(0.5, {"why": "x"}, False) != ScoreValue(0.5, {"why": "x"}, True)
    assert ScoreValue(value=1, imported=True) == ScoreValue(1, None, True)
    assert repr(ScoreValue(1.0)) == "ScoreValue(value=1.0, detail=None, imported=False)"
    assert [f.name for f in dataclasses.fields(ScoreValue)] == ["value", "detail", "imported"]
    assert pickle.loads(pickle.dumps(value)) == value == copy.deepcopy(value)
    assert dataclasses.replace(value, value=None) == ScoreValue(None, {"why": "x"})
    assert hash(ScoreValue(1.0)) == hash(ScoreValue(1.0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.value = 1.0  # type: ignore[misc]
    assert not hasattr(value, "__dict__")
