"""swap_any_pair reaches every order a path implies, and a pass names the orders each
detector metric ignores: a planted order-blind check shows up, an order-sensitive one does
not, and identical calls swapped are an equivalent mutant."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_assay import api
from agent_assay.model import Gold, Run, ToolCall, Trajectory
from agent_assay.mutation.config import MutantSet, OperatorSpec
from agent_assay.mutation.engine import pass_payloads, run_pass
from agent_assay.mutation.operators import OPERATORS, OperatorContext, transposition
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay.store import Store
from agent_assay.views.mutation_render import mutant_json, mutation_json, mutation_text
from tests.support.toy import RichToyAdapter

SWAP = OPERATORS["swap_any_pair"]
NO_CONTEXT = OperatorContext(frozenset(), {})
CALL = st.builds(ToolCall, st.sampled_from(["look", "switch_on"]),
                 st.fixed_dictionaries({"lamp": st.sampled_from(["L1", "L2"])}))


def reached(calls: list[ToolCall], params: dict[str, str] | None = None) -> set[tuple[int, int]]:
    """Every pair the operator swapped over 200 seeds, checking each mutant is one swap."""
    ctx = replace(NO_CONTEXT, params=params or {})
    pairs = set()
    for seed in range(200):
        mutant = SWAP.mutate(calls, random.Random(seed), ctx)
        if mutant != calls:
            swap = transposition(calls, mutant)
            assert swap is not None, mutant
            pairs.add(swap)
    return pairs


@settings(max_examples=15, deadline=None, database=None)
@given(st.lists(CALL, min_size=0, max_size=5))
def test_swap_any_pair_reaches_every_pair_of_differing_calls(calls: list[ToolCall]) -> None:
    differing = {(i, j) for i in range(len(calls)) for j in range(i + 1, len(calls))
                 if calls[i] != calls[j]}
    assert reached(calls) == differing
    assert reached(calls, {"distance": "adjacent"}) == {(i, j) for i, j in differing
                                                        if j == i + 1}


def test_same_tool_and_far_apart_pairs_are_swapped() -> None:
    """The pairs swap_call_order can never reach: one tool, other arguments, not neighbours."""
    calls = [ToolCall("look", {"lamp": "L1"}), ToolCall("look", {"lamp": "L1"}),
             ToolCall("look", {"lamp": "L2"})]
    assert reached(calls) == {(0, 2), (1, 2)}
    assert OPERATORS["swap_call_order"].mutate(calls, random.Random(0), NO_CONTEXT) == calls


def test_identical_calls_swapped_are_an_equivalent_mutant(store: Store) -> None:
    """chatty looks twice at the same lamp on look items: nothing there to reverse."""
    run = toy_run(store, RichToyAdapter(), "chatty")
    only_looks = OperatorSpec("swap_any_pair", tags=("look",))
    result = run_pass(store, RichToyAdapter(), run, mutant_set(only_looks))
    (swap,) = result.results
    assert (swap.status, swap.would_alter, swap.altered) == ("EQUIVALENT", 0, 0)


class PathCheck:
    """A planted benchmark check: the proposed calls against gold's, sorted first or not."""

    version = "1"
    definition = "the calls are gold's"
    kind: ScoreKind = "binary"

    def __init__(self, name: str, *, ordered: bool) -> None:
        self.name, self.ordered = name, ordered

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        mine, theirs = (list(map(ctx.normalise, c)) for c in (trajectory.calls, gold.path))
        if not self.ordered:
            mine, theirs = sorted(mine), sorted(theirs)
        return ScoreValue(float(mine == theirs))


class PlantedChecks(RichToyAdapter):
    name = "plantedchecks"
    facts = replace(RichToyAdapter.facts, scorers=(PathCheck("bench.sorted", ordered=False),
                                                   PathCheck("bench.ordered", ordered=True)))


def test_an_order_blind_check_is_named_with_the_order_it_ignores(store: Store) -> None:
    run = toy_run(store, PlantedChecks(), "good")
    result = run_pass(store, PlantedChecks(), run, mutant_set(OperatorSpec("swap_any_pair")))
    rows = [payload for _, payload in pass_payloads(result)]
    ignored = mutation_json(rows, run, command="mutate")["orders_ignored"]
    # 8 switch items (6 on, 2 off) have two differing calls; look items have one call
    assert ignored["bench.sorted"] == [
        {"earlier": "look", "later": "switch_off", "ignored": 2, "swapped": 2},
        {"earlier": "look", "later": "switch_on", "ignored": 6, "swapped": 6},
    ]
    assert "bench.ordered" not in ignored and "trajectory.exact" not in ignored
    text = mutation_text(rows)
    assert "bench.sorted: look -> switch_off 2/2; look -> switch_on 6/6" in text
    assert "bench.ordered:" not in text
    shown = mutant_json(rows, run, "on-L1", "swap_any_pair")["swapped"]
    assert shown == {"earlier_turn": 1, "later_turn": 2, "earlier": "look", "later": "switch_on"}


def mutant_set(*specs: OperatorSpec) -> MutantSet:
    return MutantSet(specs, {}, 0.05, 0.05, "test")


def toy_run(store: Store, adapter: RichToyAdapter, config: str) -> Run:
    run = api.evaluate(adapter, config, store=store, repeats=1, seed=0).run
    return run
