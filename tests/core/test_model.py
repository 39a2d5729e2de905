"""The domain-free model: JSON round trips, gold-free public items, suite hashes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_assay.hashing import canonical_json
from agent_assay.model import (
    Config,
    Cost,
    Gold,
    Item,
    PublicItem,
    StateAssertion,
    Step,
    Suite,
    ToolCall,
    Trajectory,
    calls_from,
)
from agent_assay.runner import execute_run
from agent_assay.store import Store
from tests.support.toy import ToyAdapter, toy_items
from tests.support.toyrun import new_toy_run

# ---- strategies -----------------------------------------------------------
keys = st.text(min_size=0, max_size=6)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(keys, json_values, max_size=4)
tool_calls = st.builds(ToolCall, tool=st.text(min_size=1, max_size=8), args=json_objects)
golds = st.builds(
    Gold,
    path=st.lists(tool_calls, max_size=3).map(tuple),
    outcome=st.none() | st.text(max_size=6),
    assertions=st.lists(
        st.builds(StateAssertion, path=st.text(min_size=1, max_size=8), equals=json_values),
        max_size=3,
    ).map(tuple),
    truth=json_objects,
)
items = st.builds(
    Item,
    item_id=st.text(min_size=1, max_size=10),
    input=json_objects,
    gold=golds,
    tags=st.lists(st.text(max_size=5), max_size=3).map(tuple),
)
steps = st.builds(
    Step, call=tool_calls, ok=st.booleans(), result=json_values,
    error=st.none() | st.text(max_size=8),
)
finite = st.floats(allow_nan=False, allow_infinity=False)
trajectories = st.builds(
    Trajectory,
    item_id=st.text(min_size=1, max_size=10),
    repetition=st.integers(min_value=1, max_value=50),
    steps=st.lists(steps, max_size=4).map(tuple),
    final_state=st.none() | json_objects,
    outcome=st.none() | st.text(max_size=6),
    latency_ms=finite,
    cost=st.builds(Cost, usd=finite, reason=st.text(max_size=10)),
    crashed=st.booleans(),
    error=st.none() | st.text(max_size=10),
    meta=json_objects,
)


def through_json(data: dict[str, Any]) -> Any:
    return json.loads(canonical_json(data))


@settings(max_examples=150, deadline=None, database=None)
@given(items)
def test_item_json_round_trip(item: Item) -> None:
    back = Item.from_json(through_json(item.to_json()))
    assert back == item
    assert back.content_hash == item.content_hash


@settings(max_examples=150, deadline=None, database=None)
@given(golds)
def test_gold_json_round_trip(gold: Gold) -> None:
    assert Gold.from_json(through_json(gold.to_json())) == gold


@settings(max_examples=150, deadline=None, database=None)
@given(trajectories)
def test_trajectory_json_round_trip(trajectory: Trajectory) -> None:
    back = Trajectory.from_json(through_json(trajectory.to_json()))
    assert back == trajectory
    assert back.path_key() == trajectory.path_key()


def test_trajectory_from_minimal_json_uses_defaults() -> None:
    t = Trajectory.from_json({"item_id": "x", "repetition": 2})
    assert t == Trajectory(item_id="x", repetition=2)
    assert t.cost == Cost(0.0, "not reported by the adapter")


def test_path_key_depends_on_calls_only() -> None:
    a = Trajectory("x", 1, steps=(Step(ToolCall("t", {"b": 1, "a": 2}), ok=True),))
    b = Trajectory("x", 2, steps=(Step(ToolCall("t", {"a": 2, "b": 1}), ok=False, error="e"),),
                   outcome="other")
    c = Trajectory("x", 1, steps=(Step(ToolCall("t", {"a": 3, "b": 1}), ok=True),))
    assert a.path_key() == b.path_key()
    assert a.path_key() != c.path_key()


def test_calls_from() -> None:
    assert calls_from([("look", {"lamp": "L1"}), ("switch_on", {})]) == (
        ToolCall("look", {"lamp": "L1"}), ToolCall("switch_on", {}),
    )


# ---- public items carry no gold ---------------------------------------------
def test_public_item_has_no_gold_and_cannot_be_given_one() -> None:
    item = toy_items()[0]
    public = item.public()
    assert isinstance(public, PublicItem)
    assert (public.item_id, public.input, public.tags) == (item.item_id, item.input, item.tags)
    assert "gold" not in {f.name for f in dataclasses.fields(PublicItem)}
    assert not hasattr(public, "__dict__")
    assert "gold" not in PublicItem.__slots__
    with pytest.raises(AttributeError):
        _ = public.gold  # type: ignore[attr-defined]
    assert getattr(public, "gold", None) is None
    # A frozen dataclass refuses the assignment. (For a name that is not a field, CPython
    # 3.12's frozen+slots __setattr__ fails with TypeError from its stale super() cell.)
    with pytest.raises((AttributeError, TypeError)):
        public.gold = item.gold  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        public.item_id = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        object.__setattr__(public, "gold", item.gold)
    with pytest.raises(TypeError):
        dataclasses.replace(public, gold=item.gold)  # type: ignore[call-arg]
    assert not hasattr(public, "gold")


class GoldPeekingAdapter(ToyAdapter):
    """An adapter that tries to read gold off the item it is handed."""

    def run_item(self, item: PublicItem, config: Config, *, seed: int,
                 repetition: int) -> Trajectory:
        assert type(item) is PublicItem, type(item)
        _ = item.gold  # type: ignore[attr-defined]
        raise AssertionError("unreachable: gold was found on the public item")


def test_adapter_reading_gold_gets_attribute_error(store: Store) -> None:
    adapter = GoldPeekingAdapter()
    run = new_toy_run(store, adapter, "good")
    result = execute_run(store, adapter, run, progress=False)
    assert result.crashed == 4
    for trajectory in store.trajectories(run.run_id):
        assert trajectory.crashed
        assert trajectory.error is not None
        assert trajectory.error.startswith(
            "AttributeError: 'PublicItem' object has no attribute 'gold'"
        )


# ---- suite hashes -------------------------------------------------------------
def toy_suite(items_: tuple[Item, ...] | None = None, source: str = "builtin") -> Suite:
    return Suite(adapter="toy", items=toy_items() if items_ is None else items_, source=source)


def test_suite_hash_identical_for_two_builds() -> None:
    toy = ToyAdapter()
    assert toy.build_suite(None).suite_hash == toy.build_suite(None).suite_hash
    assert toy_suite().suite_hash == toy_suite().suite_hash


def test_suite_hash_independent_of_item_order_and_source() -> None:
    base = toy_suite()
    assert toy_suite(tuple(reversed(toy_items()))).suite_hash == base.suite_hash
    assert toy_suite(source="/elsewhere/golden.yaml").suite_hash == base.suite_hash
    assert ToyAdapter().build_suite(Path("/x/y")).suite_hash == base.suite_hash


def test_suite_hash_depends_on_adapter_and_membership() -> None:
    base = toy_suite()
    assert Suite(adapter="other", items=toy_items()).suite_hash != base.suite_hash
    assert toy_suite(toy_items()[:-1]).suite_hash != base.suite_hash


def _variants(item: Item) -> dict[str, Item]:
    g = item.gold
    first, *rest = g.path
    return {
        "item_id": dataclasses.replace(item, item_id=item.item_id + "x"),
        "input": dataclasses.replace(item, input={**item.input, "request": "please switch"}),
        "input_extra_key": dataclasses.replace(item, input={**item.input, "extra": None}),
        "tags": dataclasses.replace(item, tags=(*item.tags, "new")),
        "tags_order": dataclasses.replace(item, tags=("z", *item.tags)),
        "gold.path_tool": dataclasses.replace(
            item, gold=dataclasses.replace(g, path=(ToolCall("peek", first.args), *rest))),
        "gold.path_args": dataclasses.replace(
            item, gold=dataclasses.replace(g, path=(ToolCall(first.tool, {"lamp": "L9"}), *rest))),
        "gold.path_len": dataclasses.replace(item, gold=dataclasses.replace(g, path=g.path[:1])),
        "gold.outcome": dataclasses.replace(item, gold=dataclasses.replace(g, outcome="nothing")),
        "gold.outcome_none": dataclasses.replace(item, gold=dataclasses.replace(g, outcome=None)),
        "gold.assertion_value": dataclasses.replace(
            item, gold=dataclasses.replace(
                g, assertions=(StateAssertion(g.assertions[0].path, "yes"),))),
        "gold.assertion_path": dataclasses.replace(
            item, gold=dataclasses.replace(
                g, assertions=(StateAssertion("lamps.L9.on", g.assertions[0].equals),))),
        "gold.truth": dataclasses.replace(
            item, gold=dataclasses.replace(g, truth={"decision": "approve"})),
    }


@pytest.mark.parametrize("field_name", sorted(_variants(toy_items()[1])))
def test_suite_hash_changes_when_one_item_field_changes(field_name: str) -> None:
    base_items = toy_items()
    changed = _variants(base_items[1])[field_name]
    assert changed != base_items[1]
    new_items = (base_items[0], changed, *base_items[2:])
    assert changed.content_hash != base_items[1].content_hash
    assert toy_suite(new_items).suite_hash != toy_suite().suite_hash


def test_config_hash_covers_every_parameter() -> None:
    a = Config("toy", "good", {"mode": "good", "t": 0.0})
    assert a.config_hash == Config("toy", "good", {"t": 0.0, "mode": "good"}).config_hash
    assert a.config_hash != Config("toy", "good", {"mode": "good", "t": 0.1}).config_hash
    assert a.config_hash != Config("toy", "best", {"mode": "good", "t": 0.0}).config_hash
    assert a.config_hash != Config("lamp", "good", {"mode": "good", "t": 0.0}).config_hash
