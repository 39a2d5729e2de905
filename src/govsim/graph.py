"""The typed requirement graph: AllOf/AnyOf over eight kinds of governance requirement.

Promise: immutable node types and traversal helpers only; how nodes are judged lives in
``evaluate`` and how they are priced lives in ``oracle``. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from govsim.quantities import Bound, Scalar

ConflictKind = Literal["disclosure", "recusal", "special_approval"]


@dataclass(frozen=True, kw_only=True)
class _Node:
    node_id: str
    applies_if: Bound | None = None


@dataclass(frozen=True, kw_only=True)
class AllOf(_Node):
    children: tuple[Node, ...]


@dataclass(frozen=True, kw_only=True)
class AnyOf(_Node):
    children: tuple[Node, ...]


@dataclass(frozen=True, kw_only=True)
class Authorization(_Node):
    """A body or officer must approve; ``within`` caps what a delegation covers."""

    authorizer_id: str
    methods: tuple[str, ...]
    within: Bound | None = None


@dataclass(frozen=True, kw_only=True)
class Consent(_Node):
    """A holders body or an outside party must consent."""

    holder_id: str


@dataclass(frozen=True, kw_only=True)
class Capacity(_Node):
    """The payload ``field`` must fit in what remains of a pool or share class."""

    target_id: str
    field: str


@dataclass(frozen=True, kw_only=True)
class Conflict(_Node):
    """An interested person's matter: ``body_id`` must recuse them, cite, or specially approve."""

    kind: ConflictKind
    person_id: str
    body_id: str
    record_id: str


@dataclass(frozen=True, kw_only=True)
class Sequence(_Node):
    """If ``after_id`` acts, a clean act by ``before_id`` must precede it."""

    before_id: str
    after_id: str


@dataclass(frozen=True, kw_only=True)
class Signatory(_Node):
    entity_id: str
    roles: tuple[str, ...]
    within: Bound | None = None
    excluded_ids: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Terms(_Node):
    expected: tuple[tuple[str, Scalar], ...]


@dataclass(frozen=True, kw_only=True)
class Prohibition(_Node):
    """The action is barred while ``when`` holds for its payload."""

    when: Bound
    record_id: str


Node = (
    AllOf
    | AnyOf
    | Authorization
    | Consent
    | Capacity
    | Conflict
    | Sequence
    | Signatory
    | Terms
    | Prohibition
)


def children(node: Node) -> tuple[Node, ...]:
    return node.children if isinstance(node, AllOf | AnyOf) else ()


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal; the order is the deterministic tie-break everywhere."""
    yield node
    for child in children(node):
        yield from walk(child)


def applies(node: Node, payload: Mapping[str, Scalar]) -> bool:
    return node.applies_if is None or node.applies_if.holds(payload)


def walk_active(node: Node, payload: Mapping[str, Scalar]) -> Iterator[Node]:
    """Pre-order traversal that skips subtrees whose trigger does not hold."""
    if not applies(node, payload):
        return
    yield node
    for child in children(node):
        yield from walk_active(child, payload)


def step_authorizer(node: Node) -> str | None:
    """Who must record an authorisation step for this leaf, if anyone."""
    if isinstance(node, Authorization):
        return node.authorizer_id
    if isinstance(node, Consent):
        return node.holder_id
    if isinstance(node, Conflict):
        return node.body_id
    return None


def step_authorizers(root: Node) -> tuple[str, ...]:
    """Every authorizer the graph can ask for, in first-appearance order."""
    seen: list[str] = []
    for node in walk(root):
        who = step_authorizer(node)
        if who is not None and who not in seen:
            seen.append(who)
    return tuple(seen)
