"""Procedural checks of one recorded authorisation step (quorum, votes, conflicts).

Promise: judges a single attempt against the authorizer's own rules and the conflict rules
active for the action, independent of which requirement it is meant to satisfy.
Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from govsim.defects import Code, Defect
from govsim.graph import Conflict, Node, walk_active
from govsim.quantities import Scalar
from govsim.world import Body, World

METHODS = ("meeting", "written_consent", "officer_approval", "holder_consent")


@dataclass(frozen=True)
class Attempt:
    """One ``record_authorization`` call, as the validator sees it."""

    authorizer_id: str
    method: str
    participant_ids: tuple[str, ...]
    recused_ids: tuple[str, ...] = ()
    disclosure_record_ids: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "authorizer_id": self.authorizer_id,
            "method": self.method,
            "participant_ids": list(self.participant_ids),
            "recused_ids": list(self.recused_ids),
            "disclosure_record_ids": list(self.disclosure_record_ids),
        }


@dataclass(frozen=True)
class ConflictRules:
    """Per-body recusals and disclosures that bind *every* vote of that body on the action."""

    recusals: Mapping[str, frozenset[str]] = field(default_factory=dict)
    disclosures: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_graph(cls, root: Node, payload: Mapping[str, Scalar]) -> ConflictRules:
        recusals: dict[str, set[str]] = {}
        disclosures: dict[str, set[str]] = {}
        for node in walk_active(root, payload):
            if not isinstance(node, Conflict):
                continue
            if node.kind == "recusal":
                recusals.setdefault(node.body_id, set()).add(node.person_id)
            else:
                disclosures.setdefault(node.body_id, set()).add(node.record_id)
        return cls(
            {k: frozenset(v) for k, v in recusals.items()},
            {k: frozenset(v) for k, v in disclosures.items()},
        )


def check_attempt(
    world: World, attempt: Attempt, day: date, rules: ConflictRules
) -> tuple[Defect, ...]:
    """All procedural defects of the attempt; an empty tuple means it is clean."""
    who = attempt.authorizer_id
    body = world.body_by_id.get(who)
    if body is not None and body.kind == "holders":
        return _check_holders(world, body, attempt)
    if body is not None:
        return _check_seated(world, body, attempt, day, rules)
    if who in world.party_by_id:
        return _check_single(attempt, "holder_consent")
    if who in world.person_by_id:
        if not world.offices(who, day):
            return (Defect(Code.WRONG_AUTHORIZER, who, f"holds no office on {day.isoformat()}"),)
        return _check_single(attempt, "officer_approval")
    return (Defect(Code.WRONG_AUTHORIZER, who, "no body, party or officer with this id"),)


def _check_single(attempt: Attempt, method: str) -> tuple[Defect, ...]:
    out: list[Defect] = []
    who = attempt.authorizer_id
    if attempt.method != method:
        out.append(Defect(Code.WRONG_METHOD, who, f"{who} can only act by {method}"))
    if tuple(attempt.participant_ids) != (who,):
        out.append(Defect(Code.INELIGIBLE_PARTICIPANT, who, "only the authorizer may take part"))
    return tuple(out)


def _check_holders(world: World, body: Body, attempt: Attempt) -> tuple[Defect, ...]:
    out: list[Defect] = []
    if attempt.method != "holder_consent":
        out.append(Defect(Code.WRONG_METHOD, body.body_id, "holders act by written consent"))
    holdings = world.holdings(body.class_id or "")
    strangers = sorted(set(attempt.participant_ids) - set(holdings))
    if strangers:
        detail = f"not holders of the class: {', '.join(strangers)}"
        out.append(Defect(Code.INELIGIBLE_PARTICIPANT, body.body_id, detail))
    units = sum(holdings.get(p, 0) for p in set(attempt.participant_ids))
    if not body.vote.exceeded_by(units, sum(holdings.values())):
        out.append(Defect(Code.INSUFFICIENT_VOTES, body.body_id, "consenting units too few"))
    return tuple(out)


def _count_seated(
    body: Body, attempt: Attempt, members: set[str], conflicted: frozenset[str] | set[str]
) -> list[Defect]:
    """Whether the members who were not conflicted carried it: unanimously by written
    consent, else with a quorum present and enough of them in favour."""
    bid = body.body_id
    voting, recused = set(attempt.participant_ids), set(attempt.recused_ids)
    eligible = members - conflicted
    ayes = len(voting & eligible)
    if attempt.method == "written_consent":
        if not eligible <= voting:
            return [Defect(Code.INSUFFICIENT_VOTES, bid, "written consent must be unanimous")]
        return []
    out: list[Defect] = []
    present = (voting | recused) & members
    if not body.recused_count_for_quorum:
        present -= conflicted & recused
    if not body.quorum.exceeded_by(len(present), len(members)):
        out.append(Defect(Code.NO_QUORUM, bid, f"{len(present)} of {len(members)} present"))
    if not body.vote.exceeded_by(ayes, len(eligible)):
        out.append(Defect(Code.INSUFFICIENT_VOTES, bid, f"{ayes} of {len(eligible)} in favour"))
    return out


def _check_seated(
    world: World, body: Body, attempt: Attempt, day: date, rules: ConflictRules
) -> tuple[Defect, ...]:
    bid = body.body_id
    out: list[Defect] = []
    if attempt.method not in body.methods:
        out.append(Defect(Code.WRONG_METHOD, bid, f"{body.name} cannot act by {attempt.method}"))
    members = set(world.members(bid, day))
    voting = set(attempt.participant_ids)
    recused = set(attempt.recused_ids)
    strangers = sorted((voting | recused) - members)
    if strangers:
        detail = f"not members on {day.isoformat()}: {', '.join(strangers)}"
        out.append(Defect(Code.INELIGIBLE_PARTICIPANT, bid, detail))
    conflicted = rules.recusals.get(bid, frozenset()) & members
    for person in sorted(conflicted):
        if person in voting:
            out.append(Defect(Code.CONFLICTED_VOTE_COUNTED, person, f"interested in {bid}"))
        elif person not in recused:
            out.append(Defect(Code.MISSING_RECUSAL, person, f"must recuse from {bid}"))
    out += _count_seated(body, attempt, members, conflicted)
    cited = set(attempt.disclosure_record_ids)
    for record_id in sorted(rules.disclosures.get(bid, frozenset()) - cited):
        out.append(Defect(Code.MISSING_DISCLOSURE, record_id, f"{bid} did not cite it"))
    return tuple(out)
