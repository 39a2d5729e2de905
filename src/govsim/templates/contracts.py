"""Material-contract templates: a delegation ladder and an investor-consent threshold.

Promise: two hand-authored scenarios whose draws move the contract value across the
delegated and consent thresholds, so instances differ in their cheapest valid path.
Must not import agent_assay.
"""

from __future__ import annotations

from govsim import sections as sx
from govsim.builder import Builder
from govsim.graph import AllOf, AnyOf, Authorization, Consent, Sequence, Signatory
from govsim.quantities import Bound, Scalar
from govsim.templates.common import (
    Draft,
    Template,
    add_committee,
    add_preferred,
    found_company,
    pick,
    round_to,
    terms,
)

NOUN = "material contracts"
BEYOND = "material contracts beyond an officer's delegated authority"


def delegation_ladder(b: Builder) -> Draft:
    """CEO limit cut by a new matrix; above it the Finance Committee then the board act."""
    co = found_company(b)
    finance = add_committee(b, co, "finance", "Finance Committee")
    ceo = co.officers["ceo"]
    limit = b.rng.choice((250_000, 400_000, 500_000, 750_000))
    old_limit = limit * b.rng.choice((2, 3))
    band = pick(b, {"within": 0.4, "stale": 0.4, "above": 0.2})
    low, high = {
        "within": (0.3, 0.95),
        "stale": (1.1, 0.95 * old_limit / limit),
        "above": (1.1 * old_limit / limit, 2.0 * old_limit / limit),
    }[band]
    amount = round_to(limit * b.rng.uniform(low, high), 5_000)
    adopted = b.days_before(60, 500)
    replaced = b.days_before(200, 700, adopted)
    old = b.grant(
        "ceo_old",
        ceo.person_id,
        co.entity,
        Bound("amount", "<=", old_limit),
        "matrix_old",
        replaced,
        adopted,
    )
    new = b.grant(
        "ceo_new", ceo.person_id, co.entity, Bound("amount", "<=", limit), "matrix", adopted
    )
    ceo_ok = Authorization(
        node_id=b.rule_id("ceo"),
        authorizer_id=ceo.person_id,
        methods=("officer_approval",),
        within=new.within,
    )
    fin_ok = Authorization(
        node_id=b.rule_id("finance"),
        authorizer_id=finance.body.body_id,
        methods=finance.body.methods,
    )
    board_ok = Authorization(
        node_id=b.rule_id("board"), authorizer_id=co.board.body_id, methods=co.board.methods
    )
    order = Sequence(
        node_id=b.rule_id("finance_first"),
        before_id=finance.body.body_id,
        after_id=co.board.body_id,
    )
    signers = (
        Signatory(node_id=b.rule_id("sign_ceo"), entity_id=co.entity.entity_id, roles=("ceo",)),
        Signatory(
            node_id=b.rule_id("sign_cfo"),
            entity_id=co.entity.entity_id,
            roles=("cfo",),
            within=Bound("amount", "<=", b.rng.choice((100_000, 200_000, 300_000))),
        ),
    )
    payload: dict[str, Scalar] = {
        "entity_id": co.entity.entity_id,
        "counterparty": b.names.counterparty(),
        "amount": amount,
        "term_months": b.rng.choice((12, 24, 36, 48)),
        "effective_date": b.day.isoformat(),
    }
    graph = AllOf(
        node_id=b.rule_id("root"),
        children=(
            AnyOf(
                node_id=b.rule_id("authority"),
                children=(
                    ceo_ok,
                    AllOf(node_id=b.rule_id("escalation"), children=(fin_ok, board_ok, order)),
                ),
            ),
            AnyOf(node_id=b.rule_id("signing"), children=signers),
            terms(b, payload),
        ),
    )
    name = co.entity.name
    b.record(
        "bylaws",
        co.entity,
        "bylaws",
        f"Bylaws of {name}",
        b.days_before(1500, 2500),
        [
            *sx.body_rules(co.board),
            *sx.reserved(b, board_ok, BEYOND),
            *sx.signing(b, signers, NOUN),
        ],
    )
    b.record(
        "finance_charter",
        co.entity,
        "committee_charter",
        "Finance Committee Charter",
        b.days_before(700, 1400),
        [
            *sx.body_rules(finance.body),
            *sx.reserved(b, fin_ok, BEYOND),
            sx.sequence(b, order, BEYOND),
        ],
    )
    b.record(
        "matrix",
        co.entity,
        "delegation_matrix",
        "Delegation of Authority Matrix",
        adopted,
        [sx.delegation(b, new, NOUN, (ceo_ok.node_id,)), sx.supersedes(replaced)],
    )
    b.record(
        "matrix_old",
        co.entity,
        "delegation_matrix",
        "Delegation of Authority Matrix",
        replaced,
        [sx.delegation(b, old, NOUN)],
    )
    return Draft(graph, co.entity, payload)


def investor_threshold(b: Builder) -> Draft:
    """Board approval above the CEO's limit, plus prior Series A consent for large deals."""
    co = found_company(b)
    pref = add_preferred(b, co, 6_000_000, b.rng.randrange(2_000_000, 4_000_000, 100_000))
    ceo = co.officers["ceo"]
    limit = b.rng.choice((100_000, 150_000, 200_000))
    floor = b.rng.choice((1_000_000, 1_500_000, 2_000_000))
    band = pick(b, {"consent": 0.6, "board": 0.3, "officer": 0.1})
    low, high = {
        "consent": (1.1 * floor, 2.5 * floor),
        "board": (1.5 * limit, 0.95 * floor),
        "officer": (0.3 * limit, 0.9 * limit),
    }[band]
    amount = round_to(b.rng.uniform(low, high), 5_000)
    above = Bound("amount", ">", floor)
    grant = b.grant(
        "ceo",
        ceo.person_id,
        co.entity,
        Bound("amount", "<=", limit),
        "matrix",
        b.days_before(90, 700),
    )
    ceo_ok = Authorization(
        node_id=b.rule_id("ceo"),
        authorizer_id=ceo.person_id,
        methods=("officer_approval",),
        within=grant.within,
    )
    meeting_only = b.rng.random() < 0.5
    board_ok = Authorization(
        node_id=b.rule_id("board"),
        authorizer_id=co.board.body_id,
        methods=("meeting",) if meeting_only else co.board.methods,
    )
    consent = Consent(
        node_id=b.rule_id("series_a"), holder_id=pref.holders.body_id, applies_if=above
    )
    order = Sequence(
        node_id=b.rule_id("consent_first"),
        before_id=pref.holders.body_id,
        after_id=co.board.body_id,
        applies_if=above,
    )
    signer = Signatory(
        node_id=b.rule_id("sign"), entity_id=co.entity.entity_id, roles=("ceo", "cfo")
    )
    payload: dict[str, Scalar] = {
        "entity_id": co.entity.entity_id,
        "counterparty": b.names.counterparty(),
        "amount": amount,
        "term_months": b.rng.choice((24, 36, 60)),
        "effective_date": b.day.isoformat(),
    }
    graph = AllOf(
        node_id=b.rule_id("root"),
        children=(
            AnyOf(node_id=b.rule_id("authority"), children=(ceo_ok, board_ok)),
            consent,
            order,
            signer,
            terms(b, payload),
        ),
    )
    name = co.entity.name
    investors = tuple(p.name for p in pref.investors)
    b.record(
        "bylaws",
        co.entity,
        "bylaws",
        f"Bylaws of {name}",
        b.days_before(1500, 2500),
        [
            *sx.body_rules(co.board),
            *sx.reserved(b, board_ok, BEYOND),
            *sx.signing(b, (signer,), NOUN),
        ],
    )
    b.record(
        "matrix",
        co.entity,
        "delegation_matrix",
        "Delegation of Authority Matrix",
        grant.start,
        [sx.delegation(b, grant, NOUN, (ceo_ok.node_id,))],
    )
    b.record(
        "investors",
        co.entity,
        "investor_agreement",
        "Series A Investors' Agreement",
        b.days_before(400, 1200),
        [
            sx.parties(name, investors),
            sx.protective(b, consent, NOUN),
            sx.sequence(b, order, "material contracts that need investor consent"),
        ],
    )
    return Draft(graph, co.entity, payload)


TEMPLATES = (
    Template("contract_delegation_ladder", "material_contract", delegation_ladder),
    Template("contract_investor_threshold", "material_contract", investor_threshold),
)
