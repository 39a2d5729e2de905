"""A replay's final state crosses the pipe a section at a time, and only the sections that
changed: what the harness rebuilds is exactly what the whole state, sent as JSON, decodes
to (types included), and a section it never received cannot be named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.hosting.jobs import Replay
from agent_assay.hosting.pool import decode
from agent_assay.hosting.protocol import HEADER
from agent_assay.hosting.replays import EnvironmentReplays
from agent_assay.hosting.sections import GARBLED, ReceivedSections, SentSections
from agent_assay.model import ToolCall
from tests.support.toy import ToyAdapter, toy_items


class Unpicklable:
    """A value pickle refuses and JSON (through `default`) would not carry either."""

    def __reduce__(self) -> Any:
        raise TypeError("not picklable")


def _trajectory(state: Any) -> dict[str, Any]:
    return {"item_id": "a", "repetition": 1, "steps": [], "final_state": state}


def _sent(sections: SentSections, state: Any) -> tuple[dict[str, object], int]:
    """The decoded message for `state` and how many bytes it took."""
    framed = sections.answer(_trajectory(state))
    return decode(framed[HEADER:]), len(framed)


def _typed(value: Any) -> str:
    """`value` written so 1, 1.0 and True differ (as they do in JSON)."""
    return json.dumps(value, sort_keys=True)


STATES: list[dict[str, Any]] = [
    {"big": {str(n): n for n in range(500)}, "small": {"x": 1}},
    {"big": {str(n): n for n in range(500)}, "small": {"x": 2}},  # big unchanged
    {"big": {str(n): n for n in range(500)}, "small": {"x": 2.0}},  # 2 -> 2.0 is a change
    {"big": {str(n): n for n in range(500)}, "small": {"x": True}, "new": []},
    {"small": {"x": True}},  # big gone, then back as it was
    {"big": {str(n): n for n in range(500)}, "small": {"x": 1}},
    {"small": {"x": (1, 2)}, "big": {str(n): n for n in range(500)}},  # another key order
]


def test_every_state_is_rebuilt_exactly_as_sent_in_full() -> None:
    sent, received = SentSections(), ReceivedSections()
    for state in STATES:
        message, _ = _sent(sent, state)
        got = received.restored(message)
        trajectory = got["trajectory"]
        assert isinstance(trajectory, dict)
        whole = json.loads(json.dumps(state))
        assert _typed(trajectory["final_state"]) == _typed(whole)
        assert list(trajectory["final_state"]) == list(whole)  # the state's own key order


def test_a_section_sent_before_is_named_not_sent_again() -> None:
    sent = SentSections()
    _, first = _sent(sent, STATES[0])
    message, second = _sent(sent, STATES[1])
    assert message["unchanged"] == ["big"] and second * 5 < first
    message, _ = _sent(sent, STATES[2])
    assert message["unchanged"] == ["big"]  # small went from 2 to 2.0: sent again


def test_a_section_pickle_refuses_or_json_cannot_carry_is_not_remembered() -> None:
    sent, received = SentSections(), ReceivedSections()
    received.restored(_sent(sent, {"odd": {"v": 1}})[0])
    with pytest.raises(TypeError):
        sent.answer(_trajectory({"odd": Unpicklable()}))
    message, _ = _sent(sent, {"odd": {"v": 1}})
    assert message["unchanged"] == ["odd"]  # what was sent last is still what is held
    assert received.restored(message)["trajectory"] == _trajectory({"odd": {"v": 1}})


def test_naming_a_section_never_sent_is_garbled() -> None:
    received = ReceivedSections()
    forged: dict[str, object] = {"kind": "done", "trajectory": _trajectory({"big": None}),
                                 "unchanged": ["big"]}
    assert received.restored(forged) == GARBLED
    no_state: dict[str, object] = {"kind": "done", "trajectory": _trajectory(None),
                                   "unchanged": ["big"]}
    assert received.restored(no_state) == GARBLED
    assert received.restored({"kind": "done", "unchanged": [["big"]]}) == GARBLED


def test_replays_in_the_agent_process_are_the_replays_made_here() -> None:
    toy = ToyAdapter()
    items = [item.public() for item in toy_items()]
    paths = [(), (ToolCall("switch_on", {"lamp": "L1"}),),
             (ToolCall("switch_off", {"lamp": "L4"}), ToolCall("switch_on", {"lamp": "L4"}))]
    jobs = [Replay(item, calls, 0) for _ in range(2) for item in items for calls in paths]
    with EnvironmentReplays(load_system(toy), toy.build_suite().public()) as replays:
        got = replays.run_all(jobs) + replays.run_all(jobs[:3])
    for job, trajectory in zip([*jobs, *jobs[:3]], got, strict=True):
        here = toy.replay(job.item, job.calls, seed=job.seed)
        assert trajectory.final_state == here.final_state
        assert trajectory.steps == here.steps and trajectory.outcome == here.outcome
