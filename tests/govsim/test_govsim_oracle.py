"""The dynamic program agrees with brute force, on abstract graphs and on real worlds."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from govsim import generate_worlds, minimum_cost, solve, validate
from govsim.agents.driver import Driver
from govsim.agents.guided import replay
from govsim.dp import FREE, INFEASIBLE, Family, minimal, step_families
from govsim.environment import Environment
from govsim.evaluate import Episode, Evaluator
from govsim.graph import AllOf, AnyOf, Authorization, Node, Prohibition, Terms, step_authorizers
from govsim.oracle import Unsolvable, first_valid_signatory, plan_attempts
from govsim.quantities import Bound
from govsim.task import Task

LETTERS = "ABCDE"
_counter = iter(range(10**9))


def _nid() -> str:
    return f"n{next(_counter)}"


def _leaf(kind: str) -> Node:
    if kind in LETTERS:
        return Authorization(node_id=_nid(), authorizer_id=kind, methods=("meeting",))
    if kind == "free":
        return Terms(node_id=_nid(), expected=())
    return Prohibition(node_id=_nid(), when=Bound("x", "<", 1), record_id="r")


leaves = st.sampled_from([*LETTERS, "free", "never"]).map(_leaf)
graphs = st.recursive(
    leaves,
    lambda kids: st.lists(kids, min_size=1, max_size=4).flatmap(
        lambda cs: st.sampled_from(
            [AllOf(node_id=_nid(), children=tuple(cs)), AnyOf(node_id=_nid(), children=tuple(cs))]
        )
    ),
    max_leaves=14,
)


def _price(node: Node) -> Family:
    if isinstance(node, Authorization):
        return frozenset({frozenset({node.authorizer_id})})
    return INFEASIBLE if isinstance(node, Prohibition) else FREE


def _satisfied(node: Node, chosen: frozenset[str]) -> bool:
    if isinstance(node, AllOf):
        return all(_satisfied(c, chosen) for c in node.children)
    if isinstance(node, AnyOf):
        return any(_satisfied(c, chosen) for c in node.children)
    if isinstance(node, Authorization):
        return node.authorizer_id in chosen
    return not isinstance(node, Prohibition)


def _subsets(universe: tuple[str, ...]) -> list[frozenset[str]]:
    return [frozenset(c) for k in range(len(universe) + 1) for c in combinations(universe, k)]


@settings(max_examples=300, deadline=None)
@given(graphs)
def test_dp_matches_brute_force_on_random_and_or_graphs(root: Node) -> None:
    family = step_families(root, _price, lambda _: True)
    satisfying = [s for s in _subsets(tuple(LETTERS)) if _satisfied(root, s)]
    if not satisfying:
        assert family == INFEASIBLE
        return
    assert min(len(s) for s in family) == min(len(s) for s in satisfying)
    assert family == minimal(satisfying)


def test_minimal_keeps_only_an_antichain() -> None:
    sets = [frozenset("AB"), frozenset("A"), frozenset("BC"), frozenset("ABC")]
    assert minimal(sets) == frozenset({frozenset("A"), frozenset("BC")})


def _brute_force_cost(task: Task) -> int | None:
    """Smallest step set whose canonical attempts the real validator accepts."""
    universe = step_authorizers(task.graph)
    for chosen in _subsets(universe):
        try:
            attempts = plan_attempts(task, chosen)
        except Unsolvable:
            continue
        signatory = first_valid_signatory(task, attempts)
        if signatory is None:
            continue
        episode = Episode(task.family, task.request.day, task.request.payload, attempts, signatory)
        if Evaluator(task.world, task.graph, episode).outcome().ok:
            return len(chosen)
    return None


def test_oracle_cost_equals_brute_force_on_generated_worlds() -> None:
    tasks = generate_worlds(21, "train", 36, "easy") + generate_worlds(21, "eval", 18, "hard")
    for task in tasks:
        assert len(step_authorizers(task.graph)) <= 6
        assert _brute_force_cost(task) == minimum_cost(task), task.template_id


def test_oracle_path_replays_to_full_reward() -> None:
    for task in generate_worlds(8, "eval", 18, "medium"):
        solution = solve(task)
        env = Environment(task)
        replay(Driver(env, task.public()), list(solution.steps), solution.signatory_id)
        report = validate(task, env.snapshot())
        assert report.valid and report.reward == 1.0, report.defects
        assert report.attempts == report.oracle_cost == solution.cost


def test_oracle_is_deterministic() -> None:
    task = generate_worlds(2, "train", 1, "hard")[0]
    assert solve(task) == solve(task)
