"""Dynamic program over an AND/OR graph: the minimal sets of authorisation steps.

Promise: for every node, the antichain of step sets that satisfy it (no set contains
another). Leaves are priced by a caller-supplied function, so the recursion is exact for
monotone graphs and testable without a world. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from govsim.graph import AllOf, AnyOf, Node

StepSet = frozenset[str]
Family = frozenset[StepSet]
FREE: Family = frozenset({frozenset()})
INFEASIBLE: Family = frozenset()


def minimal(sets: Iterable[StepSet]) -> Family:
    """Drop every set that is a superset of another; order-independent."""
    kept: list[StepSet] = []
    for candidate in sorted(set(sets), key=lambda s: (len(s), sorted(s))):
        if not any(k <= candidate for k in kept):
            kept.append(candidate)
    return frozenset(kept)


def all_of(families: Iterable[Family]) -> Family:
    acc = FREE
    for fam in families:
        acc = minimal(a | b for a in acc for b in fam)
        if not acc:
            return INFEASIBLE
    return acc


def any_of(families: Iterable[Family]) -> Family:
    return minimal(s for fam in families for s in fam)


def step_families(
    root: Node, leaf: Callable[[Node], Family], active: Callable[[Node], bool]
) -> Family:
    """Memoised bottom-up pass; inactive subtrees cost nothing."""
    memo: dict[str, Family] = {}

    def visit(node: Node) -> Family:
        if node.node_id in memo:
            return memo[node.node_id]
        if not active(node):
            result = FREE
        elif isinstance(node, AllOf):
            result = all_of(visit(c) for c in node.children)
        elif isinstance(node, AnyOf):
            result = any_of(visit(c) for c in node.children)
        else:
            result = leaf(node)
        memo[node.node_id] = result
        return result

    return visit(root)


def cheapest(family: Family, order: Iterable[str]) -> StepSet | None:
    """The smallest set, ties broken by first appearance of its members in ``order``."""
    rank = {who: i for i, who in enumerate(order)}
    if not family:
        return None
    return min(family, key=lambda s: (len(s), sorted(rank.get(w, len(rank)) for w in s)))
