"""A mutation pass draws from the run's suite, config and seed, never its run id: two runs of
one configuration get the same mutants (so a published table regenerates unchanged), and
another seed may draw others."""

from __future__ import annotations

from agent_assay import api
from agent_assay.mutation.config import OperatorSpec
from agent_assay.mutation.engine import run_pass
from agent_assay.runner import execute_run
from agent_assay.store import Store
from tests.mutation.test_swap_orders import mutant_set
from tests.support.toy import RichToyAdapter

SWAPS = mutant_set(OperatorSpec("swap_any_pair"), OperatorSpec("corrupt_arg"))


def drawn(store: Store, seed: int) -> list[tuple[str, object, object]]:
    adapter = RichToyAdapter()
    run = api.start(adapter, "chatty", store=store, repeats=2, seed=seed)
    execute_run(store, adapter, run, progress=False)
    return [(r.operator, r.mutants, r.orders) for r in run_pass(store, adapter, run, SWAPS).results]


def test_two_runs_of_one_configuration_draw_the_same_mutants(store: Store) -> None:
    first, second = drawn(store, 0), drawn(store, 0)
    assert first == second
    assert any(mutants for _, mutants, _ in first)  # something was drawn to compare


def test_the_draw_follows_the_seed(store: Store) -> None:
    assert any(drawn(store, 0) != drawn(store, seed) for seed in (1, 2, 3))
