"""Equity-grant templates: a committee-delegated employee award and an insider award.

Promise: plan capacity may fall short (then common holders must consent), the committee
ceiling may be exceeded (then the board acts on its recommendation), and an insider award
carries recusal, disclosure and a disinterested signatory. Must not import agent_assay.
"""

from __future__ import annotations

from govsim import sections as sx
from govsim.builder import Builder
from govsim.graph import (
    AllOf,
    AnyOf,
    Authorization,
    Capacity,
    Conflict,
    Consent,
    Node,
    Sequence,
    Signatory,
)
from govsim.quantities import Bound, Scalar
from govsim.templates.common import (
    Company,
    Draft,
    Template,
    add_committee,
    found_company,
    round_to,
    terms,
)
from govsim.world import Person, Pool

NOUN = "equity awards"
ESCALATED = "equity awards above the committee's ceiling"
INSIDER = "equity awards to directors or officers"


def _plan(b: Builder, co: Company, units: int, short: bool) -> Pool:
    """An equity plan whose remaining shares do or do not cover the award."""
    reserved = b.rng.choice((1_000_000, 1_500_000, 2_000_000))
    available = (
        units - b.rng.randint(1, units // 2) if short else units + b.rng.randint(5, 200) * 500
    )
    name = f"{co.entity.name.split()[0]} Equity Incentive Plan"
    return b.pool("plan", co.entity, name, "equity_plan", reserved, reserved - available)


def _capacity(b: Builder, co: Company, plan: Pool) -> tuple[AnyOf, Capacity, Consent]:
    fits = Capacity(node_id=b.rule_id("plan_capacity"), target_id=plan.pool_id, field="units")
    cure = Consent(node_id=b.rule_id("plan_increase"), holder_id=co.common_holders.body_id)
    return AnyOf(node_id=b.rule_id("capacity"), children=(fits, cure)), fits, cure


def _plan_record(b: Builder, co: Company, plan: Pool, fits: Capacity, cure: Consent) -> None:
    b.record(
        "plan",
        co.entity,
        "equity_plan",
        plan.name,
        b.days_before(400, 1500),
        [
            sx.plan_purpose(co.entity, plan),
            sx.plan_reserve(b, plan, (fits.node_id,)),
            sx.capacity_cure(b, fits, cure, plan.name, NOUN),
        ],
    )


def _payload(b: Builder, co: Company, recipient: Person, units: int) -> dict[str, Scalar]:
    return {
        "entity_id": co.entity.entity_id,
        "recipient_person_id": recipient.person_id,
        "award_type": b.rng.choice(("rsu", "option")),
        "units": units,
        "vesting_months": b.rng.choice((36, 48)),
        "cliff_months": b.rng.choice((6, 12)),
        "effective_date": b.day.isoformat(),
    }


def committee_award(b: Builder) -> Draft:
    """An employee award within or above the Compensation Committee's ceiling."""
    co = found_company(b)
    comp = add_committee(b, co, "comp", "Compensation Committee")
    ceiling = b.rng.choice((20_000, 30_000, 50_000))
    large = b.rng.random() < 0.45
    units = round_to(
        ceiling * b.rng.uniform(1.2, 3.0) if large else ceiling * b.rng.uniform(0.3, 0.95), 500
    )
    plan = _plan(b, co, units, short=b.rng.random() < 0.25)
    grant = b.grant(
        "comp",
        comp.body.body_id,
        co.entity,
        Bound("units", "<=", ceiling),
        "comp_charter",
        b.days_before(300, 900),
    )
    alone = Authorization(
        node_id=b.rule_id("comp_alone"),
        authorizer_id=comp.body.body_id,
        methods=comp.body.methods,
        within=grant.within,
    )
    recommend = Authorization(
        node_id=b.rule_id("comp_recommends"),
        authorizer_id=comp.body.body_id,
        methods=comp.body.methods,
    )
    board_ok = Authorization(
        node_id=b.rule_id("board"), authorizer_id=co.board.body_id, methods=co.board.methods
    )
    order = Sequence(
        node_id=b.rule_id("comp_first"), before_id=comp.body.body_id, after_id=co.board.body_id
    )
    capacity, fits, cure = _capacity(b, co, plan)
    signer = Signatory(
        node_id=b.rule_id("sign"), entity_id=co.entity.entity_id, roles=("ceo", "secretary")
    )
    payload = _payload(b, co, b.person("employee"), units)
    graph = AllOf(
        node_id=b.rule_id("root"),
        children=(
            AnyOf(
                node_id=b.rule_id("authority"),
                children=(
                    alone,
                    AllOf(node_id=b.rule_id("escalation"), children=(recommend, board_ok, order)),
                ),
            ),
            capacity,
            signer,
            terms(b, payload),
        ),
    )
    b.record(
        "bylaws",
        co.entity,
        "bylaws",
        f"Bylaws of {co.entity.name}",
        b.days_before(1500, 2500),
        [
            *sx.body_rules(co.board),
            *sx.reserved(b, board_ok, ESCALATED),
            *sx.signing(b, (signer,), NOUN),
        ],
    )
    b.record(
        "comp_charter",
        co.entity,
        "committee_charter",
        "Compensation Committee Charter",
        grant.start,
        [
            *sx.body_rules(comp.body),
            sx.delegation(b, grant, NOUN, (alone.node_id,)),
            sx.sequence(b, order, ESCALATED),
        ],
    )
    _plan_record(b, co, plan, fits, cure)
    return Draft(graph, co.entity, payload)


def insider_award(b: Builder) -> Draft:
    """An award to the CEO-director: committee first, then a board vote without the CEO."""
    co = found_company(b)
    comp = add_committee(b, co, "comp", "Compensation Committee")
    ceo = co.officers["ceo"]
    units = round_to(b.rng.uniform(20_000, 150_000), 1_000)
    plan = _plan(b, co, units, short=b.rng.random() < 0.2)
    disclosure_id = b.record_id("disclosure")
    comp_ok = Authorization(
        node_id=b.rule_id("comp"), authorizer_id=comp.body.body_id, methods=comp.body.methods
    )
    board_ok = Authorization(
        node_id=b.rule_id("board"), authorizer_id=co.board.body_id, methods=co.board.methods
    )
    order = Sequence(
        node_id=b.rule_id("comp_first"), before_id=comp.body.body_id, after_id=co.board.body_id
    )
    recuse = Conflict(
        node_id=b.rule_id("recuse"),
        kind="recusal",
        person_id=ceo.person_id,
        body_id=co.board.body_id,
        record_id=disclosure_id,
    )
    cite = Conflict(
        node_id=b.rule_id("cite"),
        kind="disclosure",
        person_id=ceo.person_id,
        body_id=co.board.body_id,
        record_id=disclosure_id,
    )
    capacity, fits, cure = _capacity(b, co, plan)
    signer = Signatory(
        node_id=b.rule_id("sign"),
        entity_id=co.entity.entity_id,
        roles=("secretary", "cfo"),
        excluded_ids=(ceo.person_id,),
    )
    payload = _payload(b, co, ceo, units)
    parts: tuple[Node, ...] = (comp_ok, board_ok, order, recuse, cite, capacity, signer)
    graph = AllOf(node_id=b.rule_id("root"), children=(*parts, terms(b, payload)))
    b.record(
        "bylaws",
        co.entity,
        "bylaws",
        f"Bylaws of {co.entity.name}",
        b.days_before(1500, 2500),
        [
            *sx.body_rules(co.board),
            *sx.reserved(b, board_ok, INSIDER),
            *sx.conflict_policy(co.board, recuse, cite),
            *sx.signing(b, (signer,), NOUN),
        ],
    )
    b.record(
        "comp_charter",
        co.entity,
        "committee_charter",
        "Compensation Committee Charter",
        b.days_before(300, 900),
        [
            *sx.body_rules(comp.body),
            *sx.reserved(b, comp_ok, INSIDER),
            sx.sequence(b, order, INSIDER),
        ],
    )
    _plan_record(b, co, plan, fits, cure)
    when = b.days_before(3, 40)
    b.record(
        "disclosure",
        co.entity,
        "conflict_disclosure",
        f"Disclosure of Interest: {ceo.name}",
        when,
        sx.disclosure(
            b,
            ceo.person_id,
            co.entity.name,
            "is the intended recipient of a proposed equity award from",
            NOUN,
            when,
            (recuse.node_id, cite.node_id),
        ),
    )
    return Draft(graph, co.entity, payload)


TEMPLATES = (
    Template("equity_committee_award", "equity_grant", committee_award),
    Template("equity_insider_award", "equity_grant", insider_award),
)
