"""Hand-computed values for every default scorer, including n/a cases and normalisers."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_assay.errors import AssayError
from agent_assay.model import Cost, Gold, StateAssertion, Step, ToolCall, Trajectory
from agent_assay.scoring.base import (
    NORMALISERS,
    Scorer,
    ScoreValue,
    ScoringContext,
    passes,
)
from agent_assay.scoring.outcome import OutcomeMatch
from agent_assay.scoring.path import ExactPath, LcsRatio, lcs_length
from agent_assay.scoring.registry import default_scorers, score_all
from agent_assay.scoring.resources import CostUsd, LatencyTotal
from agent_assay.scoring.state import StateAssertions, StateCollateral
from agent_assay.scoring.tools import (
    ArgsMatch,
    MissingTools,
    OrderViolations,
    RedundantTools,
    ToolRecall,
    WrongTools,
)

PLAIN = ScoringContext()
LAMP_RULES = {"lamp": ("strip", "upper")}
TOY = ScoringContext(
    arg_normalisers={t: LAMP_RULES for t in ("look", "switch_on", "switch_off")},
    mutating_tools=frozenset({"switch_on", "switch_off"}),
    order_anchors={"*": "look"},
    baseline_state={"lamps": {"L1": {"on": False}, "L2": {"on": False}}},
)


def c(tool: str, **args: Any) -> ToolCall:
    return ToolCall(tool, args)


def traj(*calls: ToolCall, oks: tuple[bool, ...] | None = None, **kw: Any) -> Trajectory:
    flags = oks if oks is not None else (True,) * len(calls)
    steps = tuple(Step(call, ok=ok) for call, ok in zip(calls, flags, strict=True))
    return Trajectory(item_id="i", repetition=1, steps=steps, **kw)


def gold(*calls: ToolCall, **kw: Any) -> Gold:
    return Gold(path=calls, **kw)


LOOK1, ON1 = c("look", lamp="L1"), c("switch_on", lamp="L1")
STANDARD = gold(LOOK1, ON1)


def test_default_scorers_are_the_thirteen_in_order() -> None:
    scorers = default_scorers()
    assert [s.name for s in scorers] == [
        "trajectory.exact", "trajectory.lcs", "outcome.match", "state.assertions",
        "state.collateral", "args.match", "tools.recall", "tools.wrong", "tools.missing",
        "tools.redundant", "tools.order_violations", "latency.total_ms", "cost.usd",
    ]
    kinds = {s.name: s.kind for s in scorers}
    assert kinds["trajectory.exact"] == kinds["outcome.match"] == "binary"
    assert {kinds[n] for n in ("trajectory.lcs", "state.assertions", "args.match",
                               "tools.recall")} == {"fraction"}
    assert {kinds[n] for n in ("state.collateral", "tools.wrong", "tools.missing",
                               "tools.redundant", "tools.order_violations")} == {"count"}
    assert kinds["latency.total_ms"] == kinds["cost.usd"] == "measure"
    for s in scorers:
        assert isinstance(s, Scorer)
        assert s.version and s.definition


# ---- trajectory.exact / trajectory.lcs -------------------------------------------------
@pytest.mark.parametrize(
    ("proposed", "expected"),
    [
        ((LOOK1, ON1), 1.0),
        ((c("look", lamp="L3"), c("switch_on", lamp="L9")), 1.0),  # names only
        ((LOOK1, LOOK1, ON1), 0.0),
        ((ON1, LOOK1), 0.0),
        ((LOOK1,), 0.0),
        ((), 0.0),
    ],
)
def test_exact_path(proposed: tuple[ToolCall, ...], expected: float) -> None:
    assert ExactPath().score(STANDARD, traj(*proposed), PLAIN) == ScoreValue(expected)


def test_exact_path_both_empty() -> None:
    assert ExactPath().score(gold(), traj(), PLAIN).value == 1.0


@pytest.mark.parametrize(
    ("proposed", "gold_names", "expected"),
    [
        ("abc", "ac", 4 / 5),
        (["look", "look", "switch_on"], ["look", "switch_on"], 4 / 5),
        ("ba", "ab", 2 / 4),
        ("abcd", "bda", 4 / 7),
        ("", "", 1.0),
        ("x", "", 0.0),
        ("", "xy", 0.0),
        ("xyz", "xyz", 1.0),
    ],
)
def test_lcs_ratio(proposed: Any, gold_names: Any, expected: float) -> None:
    t = traj(*(c(n) for n in proposed))
    g = gold(*(c(n) for n in gold_names))
    assert LcsRatio().score(g, t, PLAIN).value == pytest.approx(expected)


def brute_lcs(a: list[str], b: list[str]) -> int:
    def is_subsequence(sub: tuple[str, ...], seq: list[str]) -> bool:
        it = iter(seq)
        return all(x in it for x in sub)

    for size in range(min(len(a), len(b)), 0, -1):
        if any(is_subsequence(sub, b) for sub in combinations(a, size)):
            return size
    return 0


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(st.sampled_from("abc"), max_size=7), st.lists(st.sampled_from("abc"), max_size=7))
def test_lcs_length_matches_brute_force(a: list[str], b: list[str]) -> None:
    assert lcs_length(a, b) == brute_lcs(a, b) == lcs_length(b, a)


def test_lcs_length_examples() -> None:
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs_length([], list("abc")) == 0


# ---- outcome.match ---------------------------------------------------------------
def test_outcome_match() -> None:
    g = gold(outcome="done")
    assert OutcomeMatch().score(g, traj(outcome="done"), PLAIN).value == 1.0
    assert OutcomeMatch().score(g, traj(outcome="nothing"), PLAIN).value == 0.0
    assert OutcomeMatch().score(g, traj(), PLAIN).value == 0.0
    na = OutcomeMatch().score(gold(), traj(outcome="done"), PLAIN)
    assert na.value is None
    assert na.detail == {"reason": "gold states no outcome"}


# ---- state.assertions ---------------------------------------------------------------
FINAL = {"a": {"b": 1, "c": 2}, "flag": None, "n": 0}


@pytest.mark.parametrize(
    ("assertions", "value", "failed"),
    [
        ((StateAssertion("a.b", 1), StateAssertion("a.c", 3)), 0.5, ["a.c"]),
        ((StateAssertion("a", {"b": 1, "c": 2}),), 1.0, None),
        ((StateAssertion("a", {"b": 1}),), 0.0, ["a"]),
        ((StateAssertion("flag", None),), 1.0, None),
        # an absent key is not null
        ((StateAssertion("missing", None),), 0.0, ["missing"]),
        # a path through a leaf does not resolve
        ((StateAssertion("a.b.x", 1),), 0.0, ["a.b.x"]),
        ((StateAssertion("a.b", 1), StateAssertion("n", 0), StateAssertion("a.c", 2),
          StateAssertion("zz", 1)), 0.75, ["zz"]),
    ],
)
def test_state_assertions(
    assertions: tuple[StateAssertion, ...], value: float, failed: list[str] | None
) -> None:
    result = StateAssertions().score(Gold(assertions=assertions), traj(final_state=FINAL), PLAIN)
    assert result.value == pytest.approx(value)
    assert result.detail == (None if failed is None else {"failed": failed})


def test_state_assertions_na_and_no_final_state() -> None:
    na = StateAssertions().score(Gold(), traj(final_state=FINAL), PLAIN)
    assert na.value is None and na.detail == {"reason": "gold asserts nothing about state"}
    g = Gold(assertions=(StateAssertion("a.b", 1), StateAssertion("n", 0)))
    crashed = StateAssertions().score(g, traj(final_state=None), PLAIN)
    assert crashed.value == 0.0
    assert crashed.detail == {"failed": ["a.b", "n"]}


# ---- state.collateral -----------------------------------------------------------------
BASE = {"lamps": {"L1": {"on": False}, "L2": {"on": False}, "L10": {"on": False}}, "n": 1}


def collateral(final: dict[str, Any] | None, *paths: str,
               base: dict[str, Any] | None = BASE) -> ScoreValue:
    ctx = ScoringContext(baseline_state=base)
    g = Gold(assertions=tuple(StateAssertion(p, True) for p in paths))
    return StateCollateral().score(g, traj(final_state=final), ctx)


def lamps(**on: bool) -> dict[str, Any]:
    state = {"L1": {"on": False}, "L2": {"on": False}, "L10": {"on": False}}
    for lamp, value in on.items():
        state[lamp] = {"on": value}
    return state


def test_collateral_na() -> None:
    assert collateral({"x": 1}, base=None).value is None
    na = collateral(None, "lamps.L1.on")
    assert na.value is None and na.detail == {"reason": "no baseline or no final state"}


def test_collateral_counts_uncovered_changes() -> None:
    final = {"lamps": lamps(L1=True, L2=True), "n": 1, "log": [1]}
    result = collateral(final, "lamps.L1.on")
    assert result == ScoreValue(2.0, {"paths": ["lamps.L2.on", "log"]})


def test_collateral_mapping_assertion_covers_subtree() -> None:
    final = {"lamps": lamps(L1=True, L2=True), "n": 1, "log": [1]}
    assert collateral(final, "lamps.L1", "lamps.L2") == ScoreValue(1.0, {"paths": ["log"]})
    assert collateral(final, "lamps", "log").value == 0.0


def test_collateral_prefix_is_not_coverage() -> None:
    final = {"lamps": lamps(L1=True, L10=True), "n": 1}
    assert collateral(final, "lamps.L1") == ScoreValue(1.0, {"paths": ["lamps.L10.on"]})


def test_collateral_removed_and_changed_leaves() -> None:
    final = {"lamps": lamps(), "n": 2}
    assert collateral(final) == ScoreValue(1.0, {"paths": ["n"]})
    removed = {"lamps": {"L1": {"on": False}, "L2": {"on": False}}, "n": 1}
    assert collateral(removed) == ScoreValue(1.0, {"paths": ["lamps.L10.on"]})


def test_collateral_unchanged_world_is_zero() -> None:
    assert collateral({"lamps": lamps(), "n": 1}, "lamps.L1.on") == ScoreValue(0.0, None)


def test_collateral_judges_a_created_record_by_its_asserted_fields() -> None:
    base = {"events": {"E1": {"title": "old"}}, "n": 1}
    made = {"title": "standup", "id": "E2", "created_by": "agent"}
    final = {"events": {"E1": {"title": "old"}, "E2": made}, "n": 1}
    # gold asserts the title: the id and the author stamp are how it was made
    assert collateral(final, "events.E2.title", base=base) == ScoreValue(0.0, None)
    # a nested mapping inside the asserted record that gold never mentions is its own record
    nested = {"events": {"E1": {"title": "old"}, "E2": {**made, "slot": {"at": 9}}}, "n": 1}
    assert collateral(nested, "events.E2.title", base=base) == \
        ScoreValue(1.0, {"created": ["events.E2.slot"]})
    assert collateral(nested, "events.E2.title", "events.E2.slot.at", base=base).value == 0.0


def test_collateral_counts_a_created_record_gold_ignores_once() -> None:
    base = {"events": {}, "n": 1}
    final = {"events": {"E2": {"title": "x", "id": "E2", "note": "y"}}, "n": 1}
    assert collateral(final, base=base) == ScoreValue(1.0, {"created": ["events.E2"]})


def test_collateral_still_counts_fields_of_records_that_existed() -> None:
    base = {"events": {"E1": {"title": "old", "room": "A"}}}
    final = {"events": {"E1": {"title": "new", "room": "B"}, "E2": {"title": "t"}}}
    assert collateral(final, "events.E2.title", "events.E1.title", base=base) == \
        ScoreValue(1.0, {"paths": ["events.E1.room"]})


def test_collateral_a_created_table_excuses_only_the_asserted_record() -> None:
    base: dict[str, Any] = {"n": 1}
    final = {"n": 1, "events": {"E1": {"title": "a", "id": 1}, "E2": {"title": "b"}}}
    assert collateral(final, "events.E1.title", base=base) == \
        ScoreValue(1.0, {"created": ["events.E2"]})
    both = collateral(final, "events.E1.title", "events.E2.title", base=base)
    assert both == ScoreValue(0.0, None)


def test_collateral_detail_is_capped_at_twenty() -> None:
    base = {f"k{i:02d}": 0 for i in range(25)}
    final = {f"k{i:02d}": 1 for i in range(25)}
    result = collateral(final, base=base)
    assert result.value == 25.0
    assert result.detail == {"paths": [f"k{i:02d}" for i in range(20)]}


# ---- args.match ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ctx", "g", "proposed", "expected"),
    [
        (TOY, STANDARD, (c("look", lamp=" l1 "), c("switch_on", lamp="L2")), 0.5),
        (PLAIN, STANDARD, (c("look", lamp=" l1 "), c("switch_on", lamp="L1")), 0.5),
        (TOY, STANDARD, (c("look", lamp=" l1 "), c("switch_on", lamp="l1")), 1.0),
        # greedy in gold order: look(L1) takes the first look, which is look(L2)
        (PLAIN, gold(c("look", lamp="L1"), c("look", lamp="L2")),
         (c("look", lamp="L2"), c("look", lamp="L1")), 0.0),
        (PLAIN, gold(LOOK1), (LOOK1, c("look", lamp="L9"), ON1), 1.0),
        (PLAIN, STANDARD, (LOOK1,), 1.0),
        (PLAIN, STANDARD, (c("look", lamp="L1", extra=1), ON1), 0.5),
    ],
)
def test_args_match(ctx: ScoringContext, g: Gold, proposed: tuple[ToolCall, ...],
                    expected: float) -> None:
    assert ArgsMatch().score(g, traj(*proposed), ctx).value == pytest.approx(expected)


def test_args_match_na_when_nothing_aligns() -> None:
    for t in (traj(c("switch_off", lamp="L1")), traj()):
        result = ArgsMatch().score(STANDARD, t, TOY)
        assert result.value is None
        assert result.detail == {"reason": "no proposed call aligned with a gold call"}
    assert ArgsMatch().score(gold(), traj(LOOK1), TOY).value is None


# ---- tools.recall ---------------------------------------------------------------
def test_tool_recall() -> None:
    g = gold(LOOK1, LOOK1, ON1)
    t = traj(LOOK1, ON1, ON1)
    assert ToolRecall().score(g, t, PLAIN).value == pytest.approx(2 / 3)
    sloppy = traj(c("look", lamp="l1 "), c("switch_on", lamp="L1"))
    assert ToolRecall().score(STANDARD, sloppy, TOY).value == 1.0
    assert ToolRecall().score(STANDARD, sloppy, PLAIN).value == 0.5
    wrong = traj(c("look", lamp="L2"), c("switch_on", lamp="L2"))
    assert ToolRecall().score(STANDARD, wrong, TOY).value == 0.0
    na = ToolRecall().score(gold(), traj(LOOK1), TOY)
    assert na.value is None and na.detail == {"reason": "gold expects no calls"}


# ---- tools.wrong / tools.missing / tools.redundant -------------------------------------
def test_wrong_tools() -> None:
    t = traj(LOOK1, c("broken"), c("switch_off", lamp="L1"), c("broken"))
    assert WrongTools().score(STANDARD, t, PLAIN).value == 3.0
    assert WrongTools().score(gold(), traj(LOOK1, ON1), PLAIN).value == 2.0
    assert WrongTools().score(STANDARD, traj(c("look", lamp="L7"), ON1, ON1), PLAIN).value == 0.0
    assert WrongTools().score(STANDARD, traj(), PLAIN).value == 0.0


def test_missing_tools() -> None:
    g = gold(LOOK1, LOOK1, ON1)
    assert MissingTools().score(g, traj(LOOK1, c("switch_off")), PLAIN).value == 2.0
    assert MissingTools().score(g, traj(c("look", lamp="L9"), ON1, LOOK1, c("x")),
                                PLAIN).value == 0.0
    assert MissingTools().score(g, traj(), PLAIN).value == 3.0
    assert MissingTools().score(gold(), traj(LOOK1), PLAIN).value == 0.0


def test_redundant_tools() -> None:
    t = traj(LOOK1, c("look", lamp=" l1"), c("look", lamp="L2"), LOOK1)
    assert RedundantTools().score(STANDARD, t, TOY).value == 2.0
    assert RedundantTools().score(STANDARD, t, PLAIN).value == 1.0
    same_args_other_tool = traj(LOOK1, c("switch_on", lamp="L1"), c("switch_off", lamp="L1"))
    assert RedundantTools().score(STANDARD, same_args_other_tool, TOY).value == 0.0
    assert RedundantTools().score(STANDARD, traj(), TOY).value == 0.0


# ---- tools.order_violations -------------------------------------------------------------
def test_order_violations() -> None:
    on, off, look = c("switch_on", lamp="L1"), c("switch_off", lamp="L1"), LOOK1
    t = traj(on, look, off, look, on, oks=(True, False, True, True, True))
    assert OrderViolations().score(STANDARD, t, TOY).value == 2.0
    never = traj(on, look, off, oks=(True, False, False))
    assert OrderViolations().score(STANDARD, never, TOY).value == 2.0
    assert OrderViolations().score(STANDARD, traj(look, on, off), TOY).value == 0.0
    # a non-mutating tool before the anchor is no violation
    assert OrderViolations().score(STANDARD, traj(c("broken"), look, on), TOY).value == 0.0
    na = OrderViolations().score(STANDARD, t, PLAIN)
    assert na.value is None and na.detail == {"reason": "the adapter declares no order anchor"}


# ---- latency.total_ms / cost.usd ----------------------------------------------------------
def test_resource_measures() -> None:
    t = traj(LOOK1, latency_ms=12.5, cost=Cost(0.25, "tokens"))
    assert LatencyTotal().score(STANDARD, t, PLAIN) == ScoreValue(12.5)
    assert CostUsd().score(STANDARD, t, PLAIN) == ScoreValue(0.25, {"reason": "tokens"})
    free = CostUsd().score(STANDARD, traj(), PLAIN)
    assert free == ScoreValue(0.0, {"reason": "not reported by the adapter"})


# ---- normalisers and passes ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "raw", "expected"),
    [
        ("strip", "  SYN-1 \t\n", "SYN-1"),
        ("lower", "SyN-1", "syn-1"),
        ("upper", "syn-1", "SYN-1"),
        ("casefold", "Straße", "strasse"),
        ("collapse_ws", "  a \t b\n\n c  ", "a b c"),
        ("digits_only", "SYN-12a3 ", "123"),
    ],
)
def test_normalisers(name: str, raw: str, expected: str) -> None:
    assert NORMALISERS[name](raw) == expected


def test_normalise_applies_ops_in_declared_order() -> None:
    up_then_fold = ScoringContext(arg_normalisers={"t": {"x": ("upper", "casefold")}})
    fold_then_up = ScoringContext(arg_normalisers={"t": {"x": ("casefold", "upper")}})
    call = c("t", x="ß")
    assert up_then_fold.normalise(call) == ("t", (("x", "str", "ss"),))
    assert fold_then_up.normalise(call) == ("t", (("x", "str", "SS"),))


def test_normalise_scope() -> None:
    ctx = ScoringContext(arg_normalisers={"t": {"x": ("strip", "lower")}})
    assert ctx.normalise(c("t", x=" A ", y=" B ", n=5)) == (
        "t", (("n", "int", 5), ("x", "str", "a"), ("y", "str", " B ")))
    assert ctx.normalise(c("u", x=" A ")) == ("u", (("x", "str", " A "),))
    assert ctx.normalise(c("t", x=7)) == ("t", (("x", "int", 7),))
    assert ctx.normalise(ToolCall("t", {"b": 1, "a": 2})) == ctx.normalise(
        ToolCall("t", {"a": 2, "b": 1}))
    # True is not 1 and 1 is not 1.0, as in their JSON forms; nested values compare as JSON
    assert ctx.normalise(c("t", x=True)) != ctx.normalise(c("t", x=1))
    assert ctx.normalise(c("t", x=1)) != ctx.normalise(c("t", x=1.0))
    nested = ctx.normalise(c("t", x={"b": [1], "a": 2}))
    assert nested == ctx.normalise(c("t", x={"a": 2, "b": [1]}))


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("binary", 1.0, True), ("binary", 0.0, False),
        ("fraction", 1.0, True), ("fraction", 0.999, False),
        ("count", 0.0, True), ("count", 1.0, False),
        ("measure", 0.0, None), ("binary", None, None), ("count", None, None),
    ],
)
def test_passes(kind: Any, value: float | None, expected: bool | None) -> None:
    assert passes(kind, value) is expected


# ---- a scorer that raises --------------------------------------------------------------------
class Boom:
    name = "boom.scorer"
    version = "7"
    definition = "always raises"
    kind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(1 / 0)


def test_raising_scorer_is_named_assay_error() -> None:
    t = Trajectory(item_id="item-42", repetition=3)
    with pytest.raises(AssayError) as err:
        score_all([ExactPath(), Boom()], STANDARD, t, PLAIN)
    message = str(err.value)
    assert message.startswith("scorer boom.scorer v7 raised on item item-42 repetition 3: ")
    assert "ZeroDivisionError" in message
    assert isinstance(err.value.__cause__, ZeroDivisionError)


def test_score_all_keeps_scorer_order() -> None:
    results = score_all(default_scorers(), STANDARD, traj(LOOK1, ON1, outcome="done"), TOY)
    assert [s.name for s, _ in results] == [s.name for s in default_scorers()]
