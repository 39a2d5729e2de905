"""Mutation operators, equivalence, both detectors, the score, show, and the control."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_assay import api
from agent_assay.errors import AssayError
from agent_assay.model import Gold, Run, ToolCall, Trajectory
from agent_assay.mutation.config import DEFAULT, MutantSet, OperatorSpec, load_mutants
from agent_assay.mutation.engine import MutationPass, pass_payloads, run_pass
from agent_assay.mutation.operators import OPERATORS, OperatorContext
from agent_assay.scoring.base import ScoreValue, ScoringContext
from agent_assay.scoring.tools import ArgsMatch, ToolRecall
from agent_assay.selection import Selection
from agent_assay.store import Store
from agent_assay.views.mutation_render import mutant_text, mutation_text
from tests.support.toy import RichToyAdapter

CALLS = [ToolCall("look", {"lamp": "L1"}), ToolCall("switch_on", {"lamp": "L1"})]
OCTX = OperatorContext(frozenset({"switch_on"}), {"lamp": ["L1", "L2"]})


def mutate(
    name: str, calls: list[ToolCall] = CALLS, octx: OperatorContext = OCTX
) -> list[ToolCall]:
    return OPERATORS[name].mutate(calls, random.Random(0), octx)


def test_each_operator_makes_its_own_defect() -> None:
    assert mutate("drop_tool_call") == CALLS[:1]
    assert mutate("duplicate_call") == [CALLS[0], CALLS[1], CALLS[1]]
    assert mutate("swap_call_order") == [CALLS[1], CALLS[0]]
    corrupted = mutate("corrupt_arg")
    assert corrupted[0] == ToolCall("look", {"lamp": "L2"}) and corrupted[1] == CALLS[1]
    assert mutate("skip_state") == CALLS  # the engine withholds the state change instead


def test_operators_leave_calls_alone_when_nothing_fits() -> None:
    assert mutate("swap_call_order", [CALLS[0], CALLS[0]]) == [CALLS[0], CALLS[0]]
    no_pool = OperatorContext(frozenset({"switch_on"}), {})
    assert mutate("corrupt_arg", CALLS, no_pool) == CALLS
    assert mutate("drop_tool_call", []) == []


def baseline_run(store: Store) -> Run:
    adapter = RichToyAdapter()
    run = api.evaluate(adapter, "good", store=store, repeats=1, seed=0).run
    return run


def statuses(result: MutationPass) -> dict[str, str]:
    return {r.operator: r.status for r in result.results}


def test_whole_suite_pass_kills_every_operator(store: Store) -> None:
    run = baseline_run(store)
    result = run_pass(store, RichToyAdapter(), run, DEFAULT)
    assert set(statuses(result).values()) == {"KILLED"}
    assert result.score == 1.0
    assert all(r.altered == r.would_alter > 0 for r in result.results)
    skip = {r.operator: r for r in result.results}["skip_state"]
    assert skip.means["state.assertions"] == 0.0  # a real consequence of the replay


def test_a_pass_reading_the_run_item_by_item_decides_as_one_holding_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run too large to hold is walked from the store each time: the pass's every figure
    and verdict is the one it gives on the same run held in memory."""
    from agent_assay.store.facade import run_trajectories

    adapter = RichToyAdapter()
    run = api.evaluate(adapter, "good", store=store, repeats=3, seed=0).run
    held = pass_payloads(run_pass(store, adapter, run, DEFAULT))
    monkeypatch.setattr(run_trajectories, "HELD_TRAJECTORIES", 0)
    streamed = pass_payloads(run_pass(store, adapter, run, DEFAULT))

    detector = held[-1][1]["detector_metrics"]
    assert isinstance(detector, list) and "trajectory.exact" in detector

    def comparable(rows: list[tuple[str, dict[str, Any]]]) -> list[object]:
        """All but the pass id and the replays' wall-clock measures (latency)."""
        return [(name, {k: ({m: x for m, x in v.items() if m in detector}
                            if k in ("means", "baseline_means") else v)
                        for k, v in row.items() if k != "pass_id"}) for name, row in rows]

    assert comparable(streamed) == comparable(held)
    assert streamed[-1][1]["trajectories"] == 3 * len(run.item_ids)


def test_scorers_that_ignore_arguments_let_corrupt_arg_survive(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def names_only_recall(self: ToolRecall, gold: Gold, t: Trajectory,
                          ctx: ScoringContext) -> ScoreValue:
        expected = Counter(c.tool for c in gold.path)
        proposed = Counter(c.tool for c in t.calls)
        return ScoreValue(sum((expected & proposed).values()) / len(gold.path))

    def always_matches(self: ArgsMatch, gold: Gold, t: Trajectory,
                       ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(1.0)

    monkeypatch.setattr(ToolRecall, "score", names_only_recall)
    monkeypatch.setattr(ArgsMatch, "score", always_matches)
    run = baseline_run(store)
    result = run_pass(store, RichToyAdapter(), run, DEFAULT)
    assert statuses(result)["corrupt_arg"] == "SURVIVED"
    assert result.score == pytest.approx(5 / 6)


def test_an_operator_that_cannot_alter_anything_is_equivalent(store: Store) -> None:
    run = baseline_run(store)
    mutants = MutantSet((OperatorSpec("corrupt_arg", {"args": ["no_such_argument"]}),
                         OperatorSpec("drop_tool_call")), {}, 0.05, 0.05, "test")
    result = run_pass(store, RichToyAdapter(), run, mutants)
    equivalent = result.results[0]
    assert (equivalent.status, equivalent.would_alter, equivalent.altered) == ("EQUIVALENT", 0, 0)
    assert result.score == 1.0  # excluded: 1 killed of 1 non-equivalent
    assert "1 equivalent" in mutation_text(pass_payloads_as_rows(result))


def pass_payloads_as_rows(result: MutationPass) -> list[dict[str, object]]:
    return [payload for _, payload in pass_payloads(result)]


def test_show_prints_a_corrupt_arg_mutant_where_only_an_argument_differs(store: Store) -> None:
    run = baseline_run(store)
    result = run_pass(store, RichToyAdapter(), run, DEFAULT)
    store.put_mutation_rows(run.run_id, pass_payloads(result))
    rows = store.latest_mutation_pass(run.run_id)
    text = mutant_text(rows, "on-L1", "corrupt_arg")
    differing = [line for line in text.splitlines() if "<- differs" in line]
    assert len(differing) == 1
    assert "look(lamp='L1')" in differing[0] and "look(lamp=" in differing[0].split("L1", 1)[1]
    with pytest.raises(AssayError, match="unknown operator"):
        mutant_text(rows, "on-L1", "nope")


def test_statistical_detector_needs_evidence_threshold_does_not(store: Store) -> None:
    run = baseline_run(store)
    limited = run_pass(store, RichToyAdapter(), run, DEFAULT,
                       selection=Selection(tags=("on",), limit=3))
    swap = {r.operator: r for r in limited.results}["swap_call_order"]
    # three items cannot reach significance; the threshold detector still fires
    assert swap.killed_by_test == [] and "trajectory.exact" in swap.killed_by_threshold
    assert swap.status == "SURVIVED"


def test_malformed_mutant_sets_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "m.yaml"
    bad.write_text("operators:\n  - operator: explode\n")
    with pytest.raises(AssayError, match=r"m\.yaml:2: operators\[0\] must name one of"):
        load_mutants(bad)
    bad.write_text("operators: [\n")
    with pytest.raises(AssayError, match=r"m\.yaml:2: malformed YAML"):
        load_mutants(bad)
    bad.write_text("operators: []\ndetector: {alpha: 2}\n")
    with pytest.raises(AssayError, match="alpha must be between 0 and 1"):
        load_mutants(bad)


def test_field_operators_edit_one_named_argument() -> None:
    row = [ToolCall("observe", {"decision": "allow", "refs": ["a", "b"], "chain": ["d1"]})]
    flip = OperatorContext(frozenset(), {}, {"arg": "decision", "values": ["allow", "deny"]})
    assert mutate("flip_arg", row, flip)[0].args["decision"] == "deny"
    drop = OperatorContext(frozenset(), {}, {"arg": "refs"})
    assert mutate("drop_list_element", row, drop)[0].args["refs"] == ["b"]
    empty = OperatorContext(frozenset(), {}, {"arg": "chain", "value": []})
    assert mutate("set_arg", row, empty)[0].args["chain"] == []
    absent = OperatorContext(frozenset(), {}, {"arg": "nope", "value": 1})
    assert mutate("set_arg", row, absent) == row


def test_field_operators_require_their_params(tmp_path: Path) -> None:
    bad = tmp_path / "m.yaml"
    bad.write_text("operators:\n  - operator: flip_arg\n    params: {arg: decision}\n")
    with pytest.raises(AssayError, match=r"operators\[0\] \(flip_arg\) needs params: values"):
        load_mutants(bad)


def test_default_set_is_the_parameter_free_operators() -> None:
    assert [s.name for s in DEFAULT.operators] == [
        "drop_tool_call", "corrupt_arg", "swap_call_order", "swap_any_pair", "duplicate_call",
        "skip_state"]
    assert replace(DEFAULT, alpha=0.01).alpha == 0.01
