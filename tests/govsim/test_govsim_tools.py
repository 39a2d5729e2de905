"""Tool behaviour: envelopes, search, reading, registers, create, approvals, preflight, execute."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from govsim import TOOL_SPECS, Environment, generate_worlds, solve, tools_for
from govsim.families import FAMILIES
from govsim.generator import generate_one
from govsim.search import Bm25Index
from govsim.task import Task

ENVELOPE_KEYS = {
    "ok",
    "tool",
    "result",
    "error",
    "remaining_turns",
    "preflight_remaining",
    "action_status",
    "action_id",
    "terminal",
}


def _task(template_id: str, seed: int = 0, difficulty: str = "medium") -> Task:
    return generate_one(seed, "train", 0, difficulty, template_id)


def _created(task: Task) -> tuple[Environment, str]:
    env = Environment(task)
    out = env.call(task.public().create_tool, dict(task.request.payload))
    assert out["ok"], out
    return env, out["result"]["action_id"]


def test_tool_specs_are_json_data_with_one_create_tool_per_task() -> None:
    json.dumps([s.as_dict() for s in TOOL_SPECS])
    assert {s.name for s in TOOL_SPECS if s.mutating} >= {"record_authorization", "execute_action"}
    for family, spec in FAMILIES.items():
        names = [t.name for t in tools_for(family)]
        assert [n for n in names if n.startswith("create_")] == [spec.tool]


def test_environment_presents_only_its_own_tools() -> None:
    task = _task("treasury_lockup_sale")
    specs = Environment(task).tool_specs()
    assert specs == [s.as_dict() for s in tools_for(task.family)]
    assert set(task.public().tools) == {s["name"] for s in specs}


def test_every_response_is_an_envelope() -> None:
    task = _task("related_director_firm")
    env = Environment(task)
    calls: list[tuple[Any, Any]] = [
        ("search_records", {"query": "audit"}),
        ("read_record", {"record_id": "nope"}),
        ("no_such_tool", {}),
        ("inspect_register", "not a dict"),
        (42, None),
    ]
    for tool, args in calls:
        out = env.call(tool, args)
        assert set(out) == ENVELOPE_KEYS
        json.dumps(out)
    assert len(env.log) == len(calls)
    assert env.state.tool_errors == len(calls) - 1


def test_search_treats_empty_filters_as_absent_and_is_deterministic() -> None:
    task = _task("related_director_firm")
    env = Environment(task)
    plain = env.call("search_records", {"query": "disclosure interest"})
    empty = env.call(
        "search_records", {"query": "disclosure interest", "entity_id": "", "record_type": ""}
    )
    assert plain["result"] == empty["result"]
    top = plain["result"]["results"][0]
    assert top["record_type"] == "conflict_disclosure"
    only = env.call("search_records", {"query": "disclosure", "record_type": "bylaws"})
    assert {r["record_type"] for r in only["result"]["results"]} == {"bylaws"}
    assert not env.call("search_records", {"query": "x", "entity_id": "ent_missing"})["ok"]


def test_bm25_ranks_by_term_weight_and_breaks_ties_by_id() -> None:
    index = Bm25Index([("b", "lock up lock up"), ("a", "lock up"), ("c", "travel policy")])
    hits = index.search("lock", lambda _: True, 5)
    assert [h.doc_id for h in hits] == ["b", "a"]
    twins = Bm25Index([("z", "same words"), ("y", "same words")])
    assert [h.doc_id for h in twins.search("same", lambda _: True, 5)] == ["y", "z"]
    assert index.search("absent", lambda _: True, 5) == []


def test_read_record_strips_hidden_rule_ids() -> None:
    task = _task("equity_insider_award")
    env = Environment(task)
    for record in task.world.records:
        out = env.call("read_record", {"record_id": record.record_id})
        text = json.dumps(out)
        assert "rule_" not in text and "rule_ids" not in text and "facts" not in text
        assert [s["text"] for s in out["result"]["sections"]] == [s.text for s in record.sections]


def test_registers_are_dated() -> None:
    task = _task("contract_delegation_ladder")
    env = Environment(task)
    board = next(b for b in task.world.bodies if b.kind == "board")
    departed = next(
        a for a in task.world.appointments if a.body_id == board.body_id and a.end is not None
    )
    assert departed.end is not None

    def directors(day: str) -> set[str]:
        out = env.call(
            "inspect_register",
            {"entity_id": task.request.entity_id, "register": "directors", "as_of_date": day},
        )
        return {r["person_id"] for r in out["result"]["rows"]}

    before = (departed.end - timedelta(days=1)).isoformat()
    assert departed.person_id in directors(before)
    assert departed.person_id not in directors(task.request.day.isoformat())
    bad = env.call(
        "inspect_register",
        {"entity_id": task.request.entity_id, "register": "directors", "as_of_date": "31/12/2031"},
    )
    assert not bad["ok"]


def test_subsidiary_registers_point_to_the_parent() -> None:
    task = _task("financing_subsidiary_loan")
    env = Environment(task)
    day = task.request.day.isoformat()
    parent = env.call(
        "inspect_register",
        {"entity_id": task.request.entity_id, "register": "parent", "as_of_date": day},
    )
    (row,) = parent["result"]["rows"]
    subs = env.call(
        "inspect_register",
        {"entity_id": row["entity_id"], "register": "subsidiaries", "as_of_date": day},
    )
    assert [r["entity_id"] for r in subs["result"]["rows"]] == [task.request.entity_id]


def test_create_rejects_different_economics_and_creates_nothing() -> None:
    task = _task("issuance_advisor_common")
    env = Environment(task)
    tool = task.public().create_tool
    wrong = {**task.request.payload, "units": int(task.request.payload["units"]) + 1}
    out = env.call(tool, wrong)
    assert not out["ok"] and "units" in out["error"] and out["action_status"] == "none"
    assert env.snapshot()["action"] is None
    assert env.call(tool, dict(task.request.payload))["ok"]
    assert not env.call(tool, dict(task.request.payload))["ok"]


def test_record_authorization_needs_the_action_and_never_reveals_validity() -> None:
    task = _task("contract_investor_threshold")
    env = Environment(task)
    step = {"authorizer_id": "x", "method": "meeting", "participant_ids": []}
    assert not env.call("record_authorization", {"action_id": "act_x", **step})["ok"]
    env, action = _created(task)
    good = solve(task).steps[0].as_dict()
    ok = env.call("record_authorization", {"action_id": action, **good})
    junk = env.call("record_authorization", {"action_id": action, **step})
    assert set(ok["result"]) == set(junk["result"]) == {"recorded", "attempt_number"}
    assert not env.call("record_authorization", {"action_id": "act_other", **step})["ok"]
    assert len(env.snapshot()["authorizations"]) == 2


def test_preflight_is_budgeted_and_read_only() -> None:
    task = _task("issuance_preferred_extension")
    env, action = _created(task)
    first = env.call("preflight_action", {"action_id": action})
    assert first["ok"] and first["result"]["would_be_valid"] is False
    assert first["result"]["defects"] and first["preflight_remaining"] == 0
    assert not env.call("preflight_action", {"action_id": action})["ok"]
    assert env.snapshot()["authorizations"] == []
    assert env.snapshot()["preflight_used"] == 1


def test_execute_is_terminal_and_irreversible() -> None:
    task = _task("treasury_lockup_sale")
    env, action = _created(task)
    solution = solve(task)
    out = env.call(
        "execute_action", {"action_id": action, "signatory_person_id": solution.signatory_id}
    )
    assert out["ok"] and out["terminal"] and out["action_status"] == "executed"
    turns = env.state.turns_used
    again = env.call(
        "execute_action", {"action_id": action, "signatory_person_id": solution.signatory_id}
    )
    assert not again["ok"] and again["terminal"]
    assert env.state.turns_used == turns
    assert env.snapshot()["execution"]["receipt"] == out["result"]["receipt"]


def test_turn_budget_ends_the_episode() -> None:
    task = _task("contract_delegation_ladder", difficulty="easy")
    env = Environment(task)
    for _ in range(task.max_turns):
        out = env.call("search_records", {"query": "board"})
    assert out["terminal"] and out["remaining_turns"] == 0
    late = env.call("search_records", {"query": "board"})
    assert not late["ok"] and late["terminal"]
    assert len(env.log) == task.max_turns + 1


def test_schema_violations_are_error_envelopes() -> None:
    task = _task("equity_committee_award")
    env = Environment(task)
    bad: list[dict[str, Any]] = [
        {"query": "x", "extra": 1},
        {},
        {"query": 5},
        {"query": "x", "record_type": "memo"},
    ]
    for args in bad:
        assert not env.call("search_records", args)["ok"]
    tool = task.public().create_tool
    assert not env.call(tool, {**task.request.payload, "units": True})["ok"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
tool_names = st.sampled_from([s.name for s in TOOL_SPECS] + ["", "exec", "execute_action "])


@settings(max_examples=200, deadline=None)
@given(calls=st.lists(st.tuples(tool_names, json_values), min_size=1, max_size=6))
def test_environment_never_raises_on_arbitrary_input(calls: list[tuple[str, Any]]) -> None:
    task = generate_worlds(0, "eval", 1, "easy")[0]
    env = Environment(task)
    for tool, args in calls:
        assert set(env.call(tool, args)) == ENVELOPE_KEYS
    json.dumps(env.snapshot())
    json.dumps(env.log)
