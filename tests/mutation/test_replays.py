"""An operator's replays of one item: each distinct set of calls is replayed once, with a seed
drawn from the item and the calls, and only one item's replays are kept."""

from __future__ import annotations

from typing import Any

from agent_assay.hosting.jobs import Replay
from agent_assay.model import Gold, Item, PublicItem, ToolCall, Trajectory
from agent_assay.mutation.engine import Replays, replay_all


class CountingView:
    """A replay view that records every replay it is asked for."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[str, ...], int]] = []

    def replay(self, item: PublicItem, calls: list[ToolCall], *, seed: int) -> Trajectory:
        self.asked.append((item.item_id, tuple(c.tool for c in calls), seed))
        return Trajectory(item.item_id, 1, final_state={"seed": seed})

    def run_all(self, jobs: list[Replay]) -> list[Trajectory]:
        return [self.replay(job.item, list(job.calls), seed=job.seed) for job in jobs]

    def __getattr__(self, name: str) -> Any:  # the rest of ReplayView is not used here
        raise AttributeError(name)


def _item(item_id: str) -> Item:
    return Item(item_id=item_id, input={"q": item_id}, gold=Gold())


def test_a_repeated_mutant_is_replayed_once_and_another_item_starts_afresh() -> None:
    view = CountingView()
    replays = Replays(view, 7, "drop_tool_call")  # type: ignore[arg-type]
    a, b = _item("a"), _item("b")
    one, two = [ToolCall("x", {})], [ToolCall("y", {"n": 1})]
    first = replays.replay(a, one)
    assert replays.replay(a, one) is first
    replays.replay(a, two)
    assert [asked[:2] for asked in view.asked] == [("a", ("x",)), ("a", ("y",))]
    replays.replay(b, one)
    assert replays.replay(a, one) is not first  # a's replays were let go when b came
    assert len(view.asked) == 4


def test_the_replay_seed_comes_from_the_item_and_the_calls_not_the_order() -> None:
    calls = [ToolCall("x", {"k": "v"})]
    seeds = []
    for order in (["a", "b"], ["b", "a"]):
        view = CountingView()
        replays = Replays(view, 7, "corrupt_arg")  # type: ignore[arg-type]
        for item_id in order:
            replays.replay(_item(item_id), calls)
        seeds.append({item: seed for item, _, seed in view.asked})
    assert seeds[0] == seeds[1] and seeds[0]["a"] != seeds[0]["b"]
    other = CountingView()
    Replays(other, 8, "corrupt_arg").replay(_item("a"), calls)  # type: ignore[arg-type]
    assert other.asked[0][2] != seeds[0]["a"]  # and from the pass's own seed


def test_every_operators_replays_of_an_item_go_to_the_agent_process_in_one_exchange() -> None:
    view = CountingView()
    exchanges: list[int] = []
    run_all = view.run_all
    view.run_all = lambda jobs: exchanges.append(len(jobs)) or run_all(jobs)  # type: ignore[method-assign]
    drop = Replays(view, 7, "drop_tool_call")  # type: ignore[arg-type]
    corrupt = Replays(view, 7, "corrupt_arg")  # type: ignore[arg-type]
    a = _item("a")
    one, two = [ToolCall("x", {})], [ToolCall("y", {"n": 1})]
    keys = [drop.ask(a, one), drop.ask(a, one), drop.ask(a, two), corrupt.ask(a, one)]
    replay_all(view, [drop, corrupt])  # type: ignore[arg-type]
    assert exchanges == [3]  # a repeat is asked once; each operator's own seed is its own job
    assert [asked[1] for asked in view.asked] == [("x",), ("y",), ("x",)]
    assert drop.done[keys[0]] is drop.done[keys[1]]
    assert drop.done[keys[0]].final_state != corrupt.done[keys[3]].final_state
    assert drop.replay(a, two) is drop.done[keys[2]] and exchanges == [3, 0]
