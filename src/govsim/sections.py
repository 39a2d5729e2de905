"""Turn structured rules into section specs, reading every fact off the rule it states.

Promise: each function takes the node or world object a clause describes and pulls its
numbers, dates and names from that object, and tags the section with the rule ids it
renders. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from govsim.builder import Builder, SectionSpec
from govsim.graph import Authorization, Capacity, Conflict, Consent, Prohibition, Signatory
from govsim.graph import Sequence as SequenceRule
from govsim.world import (
    OFFICER_TITLES,
    Body,
    Entity,
    FactValue,
    Grant,
    Pool,
    Quantity,
    SecurityClass,
)


def name(b: Builder, any_id: str) -> str:
    """Display name of any body, entity, party or person the builder has made so far."""
    names = {x.body_id: x.name for x in b.bodies}
    names.update({x.entity_id: x.name for x in b.entities})
    names.update({x.party_id: x.name for x in b.parties})
    names.update({x.person_id: x.name for x in b.people})
    return names[any_id]


def body_rules(body: Body, rule_ids: tuple[str, ...] = ()) -> list[SectionSpec]:
    """Quorum, vote, written consent and recusal-quorum rules of a seated body."""
    return [
        SectionSpec(
            "body_procedure",
            {"body": body.name, "quorum": body.quorum, "vote": body.vote},
            rule_ids,
        ),
        SectionSpec(
            "written_consent_allowed" if body.written_consent else "written_consent_barred",
            {"body": body.name},
            rule_ids,
        ),
        SectionSpec(
            "recused_counted" if body.recused_count_for_quorum else "recused_not_counted",
            {"body": body.name},
            rule_ids,
        ),
    ]


def conflict_policy(
    body: Body, recusal: Conflict | None, disclosure: Conflict | None
) -> list[SectionSpec]:
    out = []
    if recusal is not None:
        out.append(SectionSpec("interested_recusal", {"body": body.name}, (recusal.node_id,)))
    if disclosure is not None:
        out.append(SectionSpec("disclosure_reference", {"body": body.name}, (disclosure.node_id,)))
    return out


def reserved(b: Builder, node: Authorization, noun: str) -> list[SectionSpec]:
    """Board-level approval, with its trigger threshold and any meeting-only restriction."""
    body = name(b, node.authorizer_id)
    restricts = _body(b, node.authorizer_id).written_consent and node.methods == ("meeting",)
    if node.applies_if is None:
        out = [SectionSpec("reserved_matter", {"body": body, "noun": noun}, (node.node_id,))]
    else:
        facts: dict[str, FactValue] = {
            "body": body,
            "noun": noun,
            "limit": b.bound_fact(node.applies_if),
        }
        out = [SectionSpec("reserved_matter_above", facts, (node.node_id,))]
    if restricts:
        out.append(SectionSpec("meeting_only", {"body": body, "noun": noun}, (node.node_id,)))
    return out


def delegation(b: Builder, grant: Grant, noun: str, rule_ids: tuple[str, ...] = ()) -> SectionSpec:
    """A delegated ceiling, stated from the grant (current or since superseded)."""
    if grant.within is None:
        raise ValueError("delegation clauses need a ceiling")
    return SectionSpec(
        "delegation",
        {
            "holder": holder_label(b, grant.holder_id),
            "noun": noun,
            "limit": b.bound_fact(grant.within),
        },
        rule_ids,
    )


def holder_label(b: Builder, holder_id: str) -> str:
    """Officers are named by title (the register maps titles to people), bodies by name."""
    for a in b.appointments:
        if a.person_id == holder_id and a.role in OFFICER_TITLES:
            return OFFICER_TITLES[a.role]
    return name(b, holder_id)


def supersedes(old: date) -> SectionSpec:
    return SectionSpec("delegation_replaces", {"old_date": old})


def sequence(b: Builder, node: SequenceRule, noun: str) -> SectionSpec:
    facts: dict[str, FactValue] = {
        "before": name(b, node.before_id),
        "after": name(b, node.after_id),
        "noun": noun,
    }
    return SectionSpec("sequence_rule", facts, (node.node_id,))


def signing(b: Builder, nodes: Sequence[Signatory], noun: str) -> list[SectionSpec]:
    """Who signs, any per-title ceiling, and any interested-signatory bar."""
    entity = name(b, nodes[0].entity_id)
    titles = tuple(OFFICER_TITLES[r] for n in nodes for r in n.roles)
    ids = tuple(n.node_id for n in nodes)
    out = [
        SectionSpec("signing_authority", {"entity": entity, "titles": titles, "noun": noun}, ids)
    ]
    for n in nodes:
        if n.within is not None:
            for role in n.roles:
                facts: dict[str, FactValue] = {
                    "title": OFFICER_TITLES[role],
                    "noun": noun,
                    "limit": b.bound_fact(n.within),
                }
                out.append(SectionSpec("signing_limit", facts, (n.node_id,)))
    if any(n.excluded_ids for n in nodes):
        out.append(SectionSpec("signing_excluded", {"noun": noun}, ids))
    return out


def plan_reserve(b: Builder, pool: Pool, rule_ids: tuple[str, ...]) -> SectionSpec:
    facts: dict[str, FactValue] = {"plan": pool.name, "reserved": Quantity(pool.reserved, "shares")}
    return SectionSpec("plan_reserve", facts, rule_ids)


def authorized_shares(entity: Entity, cls: SecurityClass, rule_ids: tuple[str, ...]) -> SectionSpec:
    facts: dict[str, FactValue] = {
        "entity": entity.name,
        "class_name": cls.name,
        "authorized": Quantity(cls.authorized, "shares"),
    }
    return SectionSpec("authorized_shares", facts, rule_ids)


def treasury(b: Builder, entity: Entity, pool: Pool, rule_ids: tuple[str, ...]) -> SectionSpec:
    facts: dict[str, FactValue] = {
        "entity": entity.name,
        "reserved": Quantity(pool.reserved, f"{b.token} tokens"),
    }
    return SectionSpec("treasury_holding", facts, rule_ids)


def capacity_cure(
    b: Builder, cap: Capacity, consent: Consent, pool_label: str, noun: str
) -> SectionSpec:
    holders = _body(b, consent.holder_id)
    facts: dict[str, FactValue] = {
        "pool": pool_label,
        "holders": holders.name,
        "vote": holders.vote,
        "noun": noun,
    }
    return SectionSpec("capacity_cure", facts, (cap.node_id, consent.node_id))


def protective(b: Builder, consent: Consent, noun: str) -> SectionSpec:
    holders = _body(b, consent.holder_id)
    if consent.applies_if is None:
        facts: dict[str, FactValue] = {"holders": holders.name, "vote": holders.vote, "noun": noun}
        return SectionSpec("protective_provision", facts, (consent.node_id,))
    facts = {
        "holders": holders.name,
        "vote": holders.vote,
        "noun": noun,
        "limit": b.bound_fact(consent.applies_if),
    }
    return SectionSpec("protective_provision_above", facts, (consent.node_id,))


def covenant(
    b: Builder, bar: Prohibition, consent: Consent, entity: Entity, noun: str
) -> SectionSpec:
    facts: dict[str, FactValue] = {
        "party": name(b, consent.holder_id),
        "entity": entity.name,
        "noun": noun,
        "limit": b.bound_fact(bar.when),
    }
    return SectionSpec("covenant_cap", facts, (bar.node_id, consent.node_id))


def lockup(b: Builder, bar: Prohibition, consent: Consent, noun: str) -> SectionSpec:
    facts: dict[str, FactValue] = {
        "party": name(b, consent.holder_id),
        "noun": noun,
        "date": b.bound_fact(bar.when),
    }
    return SectionSpec("lockup", facts, (bar.node_id, consent.node_id))


def price_floor(b: Builder, bar: Prohibition, consent: Consent, cls: SecurityClass) -> SectionSpec:
    holders = _body(b, consent.holder_id)
    facts: dict[str, FactValue] = {
        "class_name": cls.name,
        "floor": b.bound_fact(bar.when),
        "holders": holders.name,
        "vote": holders.vote,
    }
    return SectionSpec("price_floor", facts, (bar.node_id, consent.node_id))


def special_approval(b: Builder, node: Conflict, noun: str) -> SectionSpec:
    facts: dict[str, FactValue] = {"body": name(b, node.body_id), "noun": noun}
    return SectionSpec("special_approval", facts, (node.node_id,))


def disclosure(
    b: Builder,
    person_id: str,
    counterparty: str,
    interest: str,
    noun: str,
    when: date,
    rule_ids: tuple[str, ...],
) -> list[SectionSpec]:
    statement = {"person": name(b, person_id), "interest": interest, "counterparty": counterparty}
    return [
        SectionSpec("disclosure_statement", statement, rule_ids),
        SectionSpec("disclosure_scope", {"noun": noun, "date": when}, rule_ids),
    ]


def _body(b: Builder, body_id: str) -> Body:
    for body in b.bodies:
        if body.body_id == body_id:
            return body
    raise KeyError(body_id)


def parties(entity: str, others: tuple[str, ...]) -> SectionSpec:
    return SectionSpec("agreement_parties", {"entity": entity, "parties": others})


def facility(entity: Entity, lender: str) -> SectionSpec:
    return SectionSpec("facility_parties", {"entity": entity.name, "party": lender})


def token_scope(entity: Entity, token: str) -> SectionSpec:
    return SectionSpec("token_scope", {"entity": entity.name, "token": token})


def plan_purpose(entity: Entity, pool: Pool) -> SectionSpec:
    return SectionSpec("plan_purpose", {"entity": entity.name, "plan": pool.name})
