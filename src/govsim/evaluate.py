"""Judge a requirement graph against what actually happened in an episode.

Promise: deterministic node-by-node outcomes with every defect that explains a failure;
a failed AnyOf reports the defects of all its branches. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from govsim.attempts import Attempt, ConflictRules, check_attempt
from govsim.defects import Code, Defect, merge
from govsim.graph import (
    AllOf,
    AnyOf,
    Authorization,
    Capacity,
    Conflict,
    Consent,
    Node,
    Prohibition,
    Sequence,
    Signatory,
    Terms,
    applies,
    step_authorizers,
)
from govsim.quantities import Scalar
from govsim.signing import signatory_defects
from govsim.world import World

_MISSING_CONFLICT_CODE = {
    "recusal": Code.MISSING_RECUSAL,
    "disclosure": Code.MISSING_DISCLOSURE,
    "special_approval": Code.MISSING_SPECIAL_APPROVAL,
}


@dataclass(frozen=True)
class Outcome:
    ok: bool
    defects: tuple[Defect, ...] = ()


OK = Outcome(True)


@dataclass(frozen=True)
class Episode:
    """The facts an evaluation needs; ``signatory_id=None`` skips signatory checks."""

    family: str
    day: date
    payload: Mapping[str, Scalar]
    attempts: tuple[Attempt, ...]
    signatory_id: str | None


class Evaluator:
    """Precomputes per-attempt defects once, then answers node outcomes."""

    def __init__(self, world: World, root: Node, episode: Episode) -> None:
        self.world = world
        self.root = root
        self.ep = episode
        rules = ConflictRules.from_graph(root, episode.payload)
        self.attempt_defects = tuple(
            check_attempt(world, a, episode.day, rules) for a in episode.attempts
        )
        self.by_authorizer: dict[str, list[int]] = {}
        for i, a in enumerate(episode.attempts):
            self.by_authorizer.setdefault(a.authorizer_id, []).append(i)
        known = set(step_authorizers(root))
        self.strays = tuple(
            a.authorizer_id for a in episode.attempts if a.authorizer_id not in known
        )

    def outcome(self, node: Node | None = None) -> Outcome:
        node = self.root if node is None else node
        if not applies(node, self.ep.payload):
            return OK
        if isinstance(node, AllOf):
            results = [self.outcome(child) for child in node.children]
            return _combine(all(r.ok for r in results), results)
        if isinstance(node, AnyOf):
            results = [self.outcome(child) for child in node.children]
            return _combine(any(r.ok for r in results), results)
        return self._leaf(node)

    def _leaf(self, node: Node) -> Outcome:
        if isinstance(node, Authorization):
            return self._authorization(node)
        if isinstance(node, Consent):
            return self._step(node.holder_id, None, Code.MISSING_CONSENT)
        if isinstance(node, Conflict):
            return self._conflict(node)
        if isinstance(node, Sequence):
            return self._sequence(node)
        if isinstance(node, Signatory):
            return self._signatory(node)
        if isinstance(node, Terms):
            return self._terms(node)
        if isinstance(node, Capacity):
            return self._capacity(node)
        if isinstance(node, Prohibition):
            if node.when.holds(self.ep.payload):
                return Outcome(False, (Defect(Code.PROHIBITED_ACTION, node.record_id, "barred"),))
            return OK
        raise TypeError(f"not a leaf node: {node!r}")

    def _authorization(self, node: Authorization) -> Outcome:
        who = node.authorizer_id
        if node.within is not None and not node.within.holds(self.ep.payload):
            if not self.by_authorizer.get(who):
                return Outcome(False)
            code = Code.STALE_AUTHORITY if self._stale_cover(who) else Code.WRONG_AUTHORIZER
            return Outcome(False, (Defect(code, who, "acted beyond authority in force"),))
        return self._step(who, node.methods, Code.MISSING_AUTHORIZATION)

    def _step(self, who: str, methods: tuple[str, ...] | None, missing: Code) -> Outcome:
        """A step is met by any clean attempt of ``who`` using an allowed method."""
        indices = self.by_authorizer.get(who, [])
        for i in indices:
            method_ok = methods is None or self.ep.attempts[i].method in methods
            if method_ok and not self.attempt_defects[i]:
                return OK
        if not indices:
            return Outcome(
                False, (Defect(missing, who, "no step recorded"), *self._stray_defects())
            )
        best = self._best(indices)
        extra: tuple[Defect, ...] = ()
        if methods is not None and self.ep.attempts[best].method not in methods:
            extra = (Defect(Code.WRONG_METHOD, who, f"allowed methods: {', '.join(methods)}"),)
        return Outcome(False, merge(self.attempt_defects[best], extra))

    def _conflict(self, node: Conflict) -> Outcome:
        indices = self.by_authorizer.get(node.body_id, [])
        if any(not self.attempt_defects[i] for i in indices):
            return OK
        if indices:
            return Outcome(False, self.attempt_defects[self._best(indices)])
        subject = {"recusal": node.person_id, "disclosure": node.record_id}.get(
            node.kind, node.body_id
        )
        code = _MISSING_CONFLICT_CODE[node.kind]
        return Outcome(False, (Defect(code, subject, f"{node.body_id} has not acted"),))

    def _sequence(self, node: Sequence) -> Outcome:
        after = self._clean(node.after_id)
        if not after:
            return OK
        before = self._clean(node.before_id)
        if before and min(before) < max(after):
            return OK
        detail = f"{node.before_id} must act before {node.after_id}"
        return Outcome(False, (Defect(Code.SEQUENCE_VIOLATED, node.after_id, detail),))

    def _signatory(self, node: Signatory) -> Outcome:
        if self.ep.signatory_id is None:
            return OK
        found = signatory_defects(
            self.world, node, self.ep.signatory_id, self.ep.payload, self.ep.day
        )
        return Outcome(not found, found)

    def _terms(self, node: Terms) -> Outcome:
        wrong = [k for k, v in node.expected if self.ep.payload.get(k) != v]
        defects = tuple(Defect(Code.TERMS_MISMATCH, k, "differs from the request") for k in wrong)
        return Outcome(not defects, defects)

    def _capacity(self, node: Capacity) -> Outcome:
        need = self.ep.payload.get(node.field)
        if isinstance(need, int) and need <= self.world.available(node.target_id):
            return OK
        detail = f"{node.field} exceeds what remains available"
        return Outcome(False, (Defect(Code.CAPACITY_EXCEEDED, node.target_id, detail),))

    def _clean(self, who: str) -> list[int]:
        return [i for i in self.by_authorizer.get(who, []) if not self.attempt_defects[i]]

    def _best(self, indices: list[int]) -> int:
        """The attempt closest to valid: fewest defects, latest on ties."""
        return min(indices, key=lambda i: (len(self.attempt_defects[i]), -i))

    def _stale_cover(self, who: str) -> bool:
        """Would a grant that is no longer in force have covered this action?"""
        return any(
            g.holder_id == who
            and g.family == self.ep.family
            and not g.in_force_on(self.ep.day)
            and (g.within is None or g.within.holds(self.ep.payload))
            for g in self.world.grants
        )

    def _stray_defects(self) -> tuple[Defect, ...]:
        """Explain a missing step by the authorizers who acted instead, if any."""
        return tuple(
            Defect(
                Code.STALE_AUTHORITY if self._stale_cover(who) else Code.WRONG_AUTHORIZER,
                who,
                "acted without authority over this action",
            )
            for who in self.strays
        )


def _combine(ok: bool, results: list[Outcome]) -> Outcome:
    if ok:
        return OK
    return Outcome(False, merge(*(r.defects for r in results if not r.ok)))
