"""identical_config compares runs a trajectory at a time, flattening only trajectories that
differ: what it reports (differing paths, largest numeric difference, values compared)
must be what comparing every flattened value of both runs reports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_assay.controls.identical_config import StoredValues, differences
from agent_assay.statepaths import flatten

leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, 1.0, -2.5]),
                 st.sampled_from(["a", "b"]), st.lists(st.integers(0, 2), max_size=2))
tree = st.recursive(leaf, lambda inner: st.dictionaries(st.sampled_from(["x", "y", "z"]), inner,
                                                        max_size=3), max_leaves=8)
trajectory = st.dictionaries(st.sampled_from(["steps", "final_state", "outcome", "meta"]), tree,
                             max_size=4)
items = st.sampled_from(["i1", "i2", "i3"])
run = st.tuples(st.dictionaries(items, trajectory, max_size=3),
                st.dictionaries(st.sampled_from(["i1/score.a", "i2/score.b"]),
                                st.sampled_from([None, 0.0, 1.0, 0.25]), max_size=2))


def _every_value(trajectories: dict[str, dict[str, Any]], scores: dict[str, Any]
                 ) -> dict[str, Any]:
    values = {f"{item}/trajectory.{path}": value for item, t in trajectories.items()
              for path, value in flatten(t).items()}
    return {**values, **scores}


def _by_every_value(first: dict[str, Any], second: dict[str, Any]
                    ) -> tuple[list[str], float, int]:
    differing = sorted(p for p in first.keys() | second.keys() if first.get(p) != second.get(p))
    deltas = [abs(first[p] - second[p]) for p in differing
              if isinstance(first.get(p), int | float) and isinstance(second.get(p), int | float)]
    return differing, max(deltas, default=0.0), len(first.keys() | second.keys())


@settings(max_examples=300, deadline=None)
@given(run, run, st.booleans())
def test_a_trajectory_at_a_time_reports_what_every_value_does(
    first: tuple[dict[str, Any], dict[str, Any]], second: tuple[dict[str, Any], dict[str, Any]],
    twin: bool,
) -> None:
    if twin:  # a twin that stored what the first run did, but for one item or none
        second = ({**first[0], **dict(list(second[0].items())[:1])}, first[1])
    got = differences(StoredValues(*first), StoredValues(*second))
    assert got == _by_every_value(_every_value(*first), _every_value(*second))


def test_equal_trajectories_are_counted_without_being_compared_leaf_by_leaf() -> None:
    state = {"final_state": {"accounts": {f"a{i}": {"balance": i} for i in range(50)}}}
    first, second = StoredValues({"i1": state}, {}), StoredValues({"i1": dict(state)}, {})
    assert differences(first, second) == ([], 0.0, 50)
    assert "i1" not in second._leaves  # the twin's trajectory was never flattened


def test_runs_walked_an_item_at_a_time_meet_every_slot_of_each() -> None:
    """A run that lacks an item is empty there (its slots then differ from the others'),
    and a slot that only has scores is still compared."""
    from agent_assay.controls.identical_config import by_item
    from agent_assay.model import Trajectory

    def walk(*items: str) -> Iterator[tuple[str, list[Trajectory]]]:
        return iter([(i, [Trajectory(i, 1), Trajectory(i, 2)]) for i in items])

    scores: list[dict[str, dict[str, Any]]] = [
        {"a": {"a/1/score.x": 1.0}}, {"a": {"a/1/score.x": 1.0}, "z": {"z/1/score.x": 0.0}}]
    got = {item: values for item, values in by_item([walk("a", "b"), walk("a", "c")], scores,
                                                     {"meta"})}
    assert sorted(got) == ["a", "b", "c", "z"]
    assert sorted(got["b"][0].trajectories) == ["b/1", "b/2"] and got["b"][1].trajectories == {}
    assert got["c"][0].trajectories == {} and sorted(got["c"][1].trajectories) == ["c/1", "c/2"]
    assert got["z"][1].scores == {"z/1/score.x": 0.0} and got["z"][0].scores == {}
    assert "meta" not in got["a"][0].trajectories["a/1"]
    paths, _, _ = differences(got["b"][0], got["b"][1])
    assert paths and all(p.startswith("b/") for p in paths)
    assert differences(got["a"][0], got["a"][1])[0] == []
