"""Validation before scoring, replay of observe_action calls, and the per-action scorers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from synthworld.agentic import AgenticTraceSubmission, ObservedActionTrace

from agent_assay.adapters.loaded import load_system
from agent_assay.errors import AssayError
from agent_assay.hosting.jobs import Task, run_task
from agent_assay.model import Config, Item, Suite, ToolCall, Trajectory
from agent_assay.scoring.base import ScoringContext
from agent_assay_bundled import synthworld as sw
from agent_assay_bundled.synthworld import SynthWorldAgenticAdapter, require_valid_trace
from agent_assay_bundled.synthworld_scoring import HEADLINE, synthworld_scorers

ADAPTER = SynthWorldAgenticAdapter()
SUITE: Suite = ADAPTER.build_suite(None)
ITEMS = {i.item_id: i for i in SUITE.items}
CTX: ScoringContext = load_system(ADAPTER).scoring_context()
SCORERS = {s.name: s for s in synthworld_scorers()}


def oracle(item: Item) -> Trajectory:
    return ADAPTER.replay(item.public(), item.gold.path, seed=0)


def broken_config(agent: str) -> Config:
    return Config(ADAPTER.name, agent, {"agent": agent, "reads": "public", "role": "test"})


def test_validator_errors_name_line_and_code() -> None:
    ids = ["evt-a", "evt-b"]
    text = '{"event_id": "evt-a", "decision": "deny"}\n{not json\n'
    with pytest.raises(AssayError, match=r"line 2: malformed_json") as err:
        require_valid_trace(text, ids, "a test trace")
    assert "event evt-b: missing_event_id" in str(err.value)
    bad_value = '{"event_id": "evt-a", "decision": "maybe"}\n{"event_id": "evt-b"}\n'
    with pytest.raises(AssayError, match=r"line 1: invalid_row: decision"):
        require_valid_trace(bad_value, ids, "a test trace")


def test_an_invalid_config_trace_never_reaches_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    def all_null(public: object, digest: str) -> AgenticTraceSubmission:
        rows = tuple(ObservedActionTrace(event_id=i.item_id) for i in SUITE.items)
        return AgenticTraceSubmission(rows=rows)

    def one_short(public: object, digest: str) -> AgenticTraceSubmission:
        rows = tuple(
            ObservedActionTrace.model_validate({"event_id": i.item_id, "decision": "deny"})
            for i in SUITE.items
        )
        return AgenticTraceSubmission(rows=rows[1:])

    monkeypatch.setitem(sw.TRACE_AGENTS, "all_null_agent", all_null)
    monkeypatch.setitem(sw.TRACE_AGENTS, "one_short", one_short)
    item = SUITE.items[0].public()
    with pytest.raises(AssayError, match=r"whole trace: all_rows_null"):
        ADAPTER.run_item(item, broken_config("all_null_agent"), seed=0, repetition=1)
    with pytest.raises(AssayError, match=rf"event {item.item_id}: missing_event_id"):
        ADAPTER.run_item(item, broken_config("one_short"), seed=0, repetition=1)

    # what every agent process does with a task turns the AssayError into a crashed
    # trajectory of its slot: no row reaches scoring as valid
    system = load_system(ADAPTER)
    for public in [i.public() for i in SUITE.items[:2]]:
        done = run_task(system, Task(public, broken_config("one_short"), 0, 1))
        assert done.crashed and "missing_event_id" in (done.error or "")


def test_null_agents_make_no_calls_and_record_the_validator_verdict() -> None:
    agents = ADAPTER.null_agents()
    assert set(agents) == {"all_null", "always_deny"}
    cfg = broken_config("auditor")
    for item in SUITE.items:
        empty = agents["all_null"](item.public(), cfg)
        deny = agents["always_deny"](item.public(), cfg)
        assert not empty.steps and not deny.steps
        nothing = ObservedActionTrace(event_id=item.item_id).model_dump(mode="json")
        assert empty.final_state == nothing
        assert deny.outcome == "deny"
        assert empty.meta["validator_on_whole_trace"] == {
            "valid": False,
            "issues": [{"severity": "error", "code": "all_rows_null"}],
        }


def test_replay_turns_observe_action_back_into_a_row() -> None:
    item = SUITE.items[0]
    expected = item.gold.truth["expected_row"]
    trajectory = oracle(item)
    assert trajectory.final_state == expected and trajectory.outcome == expected["decision"]
    assert [s.ok for s in trajectory.steps] == [True]

    bad = ToolCall("observe_action", {"decision": "maybe"})
    other = ToolCall("observe_action", {"event_id": "evt-999", "decision": "deny"})
    foreign = ToolCall("approve_supplier", {})
    nothing = ToolCall("observe_action", {})
    calls = [*item.gold.path, bad, other, foreign, nothing]
    replayed = ADAPTER.replay(item.public(), calls, seed=0)
    assert [s.ok for s in replayed.steps] == [True, False, False, False, False]
    assert "invalid_row" in (replayed.steps[1].error or "")
    assert "all_rows_null" in (replayed.steps[4].error or "")
    assert replayed.final_state == expected  # failed calls record nothing

    later = ToolCall("observe_action", {"decision": "deny"})
    overwritten = ADAPTER.replay(item.public(), [*item.gold.path, later], seed=0)
    assert overwritten.final_state is not None and overwritten.final_state["decision"] == "deny"
    assert overwritten.final_state["logical_agent_id"] is None  # the last valid row stands whole


def test_every_scorer_is_perfect_on_the_oracle_and_plants_its_defect() -> None:
    for item in SUITE.items:
        base = oracle(item)
        for scorer in synthworld_scorers():
            before = scorer.score(item.gold, base, CTX).value
            if before is None:
                continue
            assert before == (0.0 if scorer.kind == "count" else 1.0), (scorer.name, item.item_id)
            planted = scorer.plant_defect(item.gold, base, CTX)  # type: ignore[attr-defined]
            if scorer.name == "synthworld.decision_precision":
                assert planted is None  # its support is set by the trajectory: see its docstring
                continue
            after = scorer.score(item.gold, planted, CTX).value
            assert after is not None and after != before, (scorer.name, item.item_id)


def test_scorers_apply_only_inside_the_package_denominator() -> None:
    allowed = [i for i in SUITE.items if i.gold.outcome == "allow"]
    denied = [i for i in SUITE.items if i.gold.outcome == "deny"]
    temporal = [i for i in SUITE.items if i.gold.truth["temporal"]]
    assert (len(allowed), len(denied), len(temporal)) == (4, 7, 3)
    empty = {i.item_id: replace(oracle(i), final_state=None, steps=()) for i in SUITE.items}

    def applies(name: str, items: Sequence[Item]) -> list[bool]:
        return [
            SCORERS[name].score(i.gold, empty[i.item_id], CTX).value is not None for i in items
        ]

    assert applies("synthworld.decision_recall", SUITE.items) == [
        i.gold.outcome == "allow" for i in SUITE.items
    ]
    assert applies("synthworld.excess_authority", SUITE.items) == [
        i.gold.outcome == "deny" for i in SUITE.items
    ]
    assert applies("synthworld.decision_at_audit", SUITE.items) == [
        bool(i.gold.truth["temporal"]) for i in SUITE.items
    ]
    assert not any(applies("synthworld.decision_precision", SUITE.items))  # nothing allowed
    # a crash reports nothing: a miss everywhere, never a false allow
    for name in ("synthworld.decision", "synthworld.chain", "synthworld.provenance_complete"):
        assert all(SCORERS[name].score(i.gold, empty[i.item_id], CTX).value == 0.0
                   for i in SUITE.items)
    assert all(
        SCORERS["synthworld.excess_authority"].score(i.gold, empty[i.item_id], CTX).value == 0.0
        for i in denied
    )
    assert set(HEADLINE) <= set(SCORERS)
