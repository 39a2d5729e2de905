"""The dynamic-programming oracle: minimum authorisation steps and one optimal path.

Promise: ``solve`` prices the graph with ``dp.step_families`` and turns the cheapest step
set into concrete, ordered ``record_authorization`` arguments plus a signatory, then
verifies the path with the validator's own evaluator. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date

from govsim.attempts import Attempt, ConflictRules, check_attempt
from govsim.dp import FREE, INFEASIBLE, Family, cheapest, step_families
from govsim.evaluate import Episode, Evaluator
from govsim.graph import (
    Authorization,
    Capacity,
    Node,
    Prohibition,
    Sequence,
    Signatory,
    applies,
    step_authorizer,
    step_authorizers,
    walk_active,
)
from govsim.quantities import Scalar
from govsim.signing import signatory_defects
from govsim.task import Task
from govsim.world import World


class Unsolvable(RuntimeError):
    """Raised when a generated world admits no valid path (a template bug)."""


@dataclass(frozen=True)
class Solution:
    cost: int
    steps: tuple[Attempt, ...]
    signatory_id: str
    create_args: Mapping[str, Scalar]

    def as_dict(self) -> dict[str, object]:
        return {
            "cost": self.cost,
            "steps": [s.as_dict() for s in self.steps],
            "signatory_person_id": self.signatory_id,
            "create_args": dict(self.create_args),
        }


def canonical_attempt(
    world: World, root: Node, payload: Mapping[str, Scalar], day: date, who: str
) -> Attempt | None:
    """The fullest clean attempt ``who`` can make, or None if none can be clean."""
    rules = ConflictRules.from_graph(root, payload)
    body = world.body_by_id.get(who)
    if body is not None and body.kind == "holders":
        attempt = Attempt(who, "holder_consent", tuple(world.holdings(body.class_id or "")))
    elif body is not None:
        methods = [m for m in body.methods if m in _node_methods(root, payload, who)]
        if not methods:
            return None
        members = world.members(who, day)
        conflicted = rules.recusals.get(who, frozenset())
        attempt = Attempt(
            who,
            "meeting" if "meeting" in methods else methods[0],
            tuple(p for p in members if p not in conflicted),
            tuple(p for p in members if p in conflicted),
            tuple(sorted(rules.disclosures.get(who, frozenset()))),
        )
    elif who in world.party_by_id:
        attempt = Attempt(who, "holder_consent", (who,))
    else:
        attempt = Attempt(who, "officer_approval", (who,))
    return None if check_attempt(world, attempt, day, rules) else attempt


def _node_methods(root: Node, payload: Mapping[str, Scalar], who: str) -> set[str]:
    """Methods every active Authorization of ``who`` accepts (all, if none restricts)."""
    allowed = {"meeting", "written_consent"}
    for node in walk_active(root, payload):
        if isinstance(node, Authorization) and node.authorizer_id == who:
            allowed &= set(node.methods)
    return allowed


def leaf_pricer(
    world: World, root: Node, payload: Mapping[str, Scalar], day: date
) -> Callable[[Node], Family]:
    """Price each leaf: one step for its authorizer, free, or infeasible in this world."""

    def price(node: Node) -> Family:
        within = node.within if isinstance(node, Authorization) else None
        if within is not None and not within.holds(payload):
            return INFEASIBLE
        who = step_authorizer(node)
        if who is not None:
            found = canonical_attempt(world, root, payload, day, who)
            return INFEASIBLE if found is None else frozenset({frozenset({who})})
        if isinstance(node, Capacity):
            need = payload.get(node.field)
            fits = isinstance(need, int) and need <= world.available(node.target_id)
            return FREE if fits else INFEASIBLE
        if isinstance(node, Prohibition):
            return INFEASIBLE if node.when.holds(payload) else FREE
        if isinstance(node, Signatory):
            ok = any(
                not signatory_defects(world, node, p.person_id, payload, day) for p in world.people
            )
            return FREE if ok else INFEASIBLE
        return FREE

    return price


def step_sets(task: Task) -> Family:
    payload = task.request.payload
    return step_families(
        task.graph,
        leaf_pricer(task.world, task.graph, payload, task.request.day),
        lambda node: applies(node, payload),
    )


def _cheapest_set(task: Task) -> frozenset[str]:
    best = cheapest(step_sets(task), step_authorizers(task.graph))
    if best is None:
        raise Unsolvable(task.task_id)
    return best


def minimum_cost(task: Task) -> int:
    """Fewest ``record_authorization`` calls on any valid path."""
    return len(_cheapest_set(task))


def order_steps(
    root: Node, payload: Mapping[str, Scalar], chosen: frozenset[str]
) -> tuple[str, ...]:
    """Topological order under active Sequence nodes, ties by first appearance."""
    order = [who for who in step_authorizers(root) if who in chosen]
    edges = {
        (n.before_id, n.after_id)
        for n in walk_active(root, payload)
        if isinstance(n, Sequence) and n.before_id in chosen and n.after_id in chosen
    }
    placed: list[str] = []
    while order:
        ready = next((w for w in order if not any(b in order and a == w for b, a in edges)), None)
        if ready is None:
            raise Unsolvable("cyclic sequence requirements")
        placed.append(ready)
        order.remove(ready)
    return tuple(placed)


def plan_attempts(task: Task, chosen: frozenset[str]) -> tuple[Attempt, ...]:
    """Concrete, ordered attempts for a step set (used by the oracle and brute force)."""
    payload, day = task.request.payload, task.request.day
    attempts = []
    for who in order_steps(task.graph, payload, chosen):
        attempt = canonical_attempt(task.world, task.graph, payload, day, who)
        if attempt is None:
            raise Unsolvable(f"{who} cannot act cleanly")
        attempts.append(attempt)
    return tuple(attempts)


def first_valid_signatory(task: Task, attempts: tuple[Attempt, ...]) -> str | None:
    """The first person, in world order, whose signature makes the path fully valid."""
    for person in task.world.people:
        episode = Episode(
            task.family, task.request.day, task.request.payload, attempts, person.person_id
        )
        if Evaluator(task.world, task.graph, episode).outcome().ok:
            return person.person_id
    return None


def solve(task: Task) -> Solution:
    """Minimum cost and one optimal path; raises ``Unsolvable`` for broken worlds."""
    best = _cheapest_set(task)
    attempts = plan_attempts(task, best)
    signatory = first_valid_signatory(task, attempts)
    if signatory is None:
        raise Unsolvable(f"{task.task_id}: no valid signatory for the optimal path")
    return Solution(len(best), attempts, signatory, dict(task.request.payload))
