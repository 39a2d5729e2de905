"""Multi-turn episodes in the core: turn boundaries in paths and trajectories, asked for by
a replay at the same points as by the model agent, invisible to turn-blind scorers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.adapters.loaded import run_calls
from agent_assay.adapters.system import Ending, ToolOutcome, ToolSpec, UserTurn
from agent_assay.controls.planted import planter_for
from agent_assay.model import USER_TURN, Config, Gold, PublicItem, Step, ToolCall, turns_of
from agent_assay.scoring.base import ScoringContext
from agent_assay.scoring.tools import RedundantTools, ToolRecall

TURNS = ("first", "second", "third")
BOUNDARY = ToolCall(USER_TURN, {})


class Talk:
    """An episode whose user speaks three times; it logs what it was asked, in order."""

    def __init__(self) -> None:
        self.turn, self.log = 0, []  # type: tuple[int, list[str]]

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolOutcome:
        self.log.append(f"call {tool}")
        return ToolOutcome(True, tool)

    def next_turn(self) -> UserTurn | None:
        self.log.append("next_turn")
        if self.turn + 1 >= len(TURNS):
            return None
        self.turn += 1
        return UserTurn(TURNS[self.turn])

    def finish(self) -> Ending:
        return Ending({"log": list(self.log)}, None)


class Talks:
    def open_episode(self, item: PublicItem, config: Config | None, *, seed: int) -> Talk:
        return Talk()

    def tools(self, item: PublicItem | None) -> Sequence[ToolSpec]:
        return (ToolSpec("a", "", {}), ToolSpec("b", "", {}))

    def baseline_snapshot(self) -> dict[str, Any]:
        return {}

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        return {}


ITEM = PublicItem("i", {"request": TURNS[0]})


def replay(path: Sequence[ToolCall]) -> Any:
    return run_calls(Talks(), ITEM, None, path, seed=0, repetition=1)


def test_a_replay_asks_for_a_turn_at_each_boundary_and_hears_the_rest_out() -> None:
    done = replay([ToolCall("a"), BOUNDARY, ToolCall("b")])
    assert done.final_state == {"log": ["call a", "next_turn", "call b", "next_turn", "next_turn"]}
    assert [[s.call.tool for s in t] for t in turns_of(done.steps)] == [["a"], ["b"], []]
    assert [s.result for s in done.steps if s.call.tool == USER_TURN] == ["second", "third"]
    assert done.calls == (ToolCall("a"), ToolCall("b"))
    assert done.path == (ToolCall("a"), BOUNDARY, ToolCall("b"), BOUNDARY)
    assert replay(done.path).steps == done.steps  # a replayed path splits the same way


def test_a_boundary_past_the_last_turn_is_a_failed_step_and_no_turn() -> None:
    done = replay([BOUNDARY, BOUNDARY, BOUNDARY])
    assert [s.ok for s in done.steps] == [True, True, False]
    assert len(turns_of(done.steps)) == 3
    assert done.path == (BOUNDARY, BOUNDARY)


def test_turn_blind_scorers_see_calls_only() -> None:
    gold = Gold(path=(ToolCall("a"), BOUNDARY, ToolCall("b")))
    silent = replay([])
    assert len(silent.steps) == 2 and silent.calls == ()
    assert ToolRecall().score(gold, silent, ScoringContext()).value == 0.0
    assert ToolRecall().score(gold, replay(gold.path), ScoringContext()).value == 1.0


def test_the_planted_repeat_is_a_call_not_a_boundary() -> None:
    opens_empty = replay([BOUNDARY, ToolCall("a")])
    planter = planter_for(RedundantTools())
    assert planter is not None
    planted = planter(Gold(), opens_empty, ScoringContext())
    assert planted is not None
    assert RedundantTools().score(Gold(), planted, ScoringContext()).value == 1.0
    assert Step(BOUNDARY, True, "second") in planted.steps
