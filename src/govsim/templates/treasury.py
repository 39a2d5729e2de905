"""Token-treasury template: committee or board authority, a lock-up and a revoked delegation.

Promise: sales are capped by the treasury allocation, barred before the lock-up date unless
the lead investor consents, and a superseded policy still names the CFO to tempt agents
into stale authority. Must not import agent_assay.
"""

from __future__ import annotations

from datetime import timedelta

from govsim import sections as sx
from govsim.builder import Builder
from govsim.graph import AllOf, AnyOf, Authorization, Capacity, Consent, Prohibition, Signatory
from govsim.quantities import Bound, Scalar
from govsim.templates.common import Draft, Template, add_committee, found_company, round_to, terms

NOUN = "sales of treasury tokens"
BEYOND = "sales of treasury tokens beyond the committee's ceiling"


def lockup_sale(b: Builder) -> Draft:
    b.token = b.names.token()
    co = found_company(b)
    treasury_co = add_committee(b, co, "treasury", "Treasury Committee")
    lead = b.party("lead", b.names.investor(), "investor")
    reserved = b.rng.randrange(5_000_000, 20_000_000, 500_000)
    pool = b.pool(
        "treasury",
        co.entity,
        f"{b.token} Treasury",
        "token_treasury",
        reserved,
        round_to(reserved * b.rng.uniform(0.2, 0.6), 1_000),
    )
    ceiling = b.rng.choice((200_000, 500_000, 1_000_000))
    small = b.rng.random() < 0.5
    available = pool.reserved - pool.used
    amount = round_to(
        ceiling * b.rng.uniform(0.2, 0.95)
        if small
        else b.rng.uniform(1.1 * ceiling, min(4 * ceiling, available)),
        1_000,
    )
    locked = b.rng.random() < 0.5
    lock_end = b.days_after(30, 200) if locked else b.days_before(30, 300)
    adopted = b.days_before(60, 400)
    old = b.grant(
        "cfo_old",
        co.officers["cfo"].person_id,
        co.entity,
        Bound("token_amount", "<=", ceiling * 3),
        "policy_old",
        b.days_before(200, 600, adopted),
        adopted,
    )
    grant = b.grant(
        "committee",
        treasury_co.body.body_id,
        co.entity,
        Bound("token_amount", "<=", ceiling),
        "policy",
        adopted,
    )
    committee_ok = Authorization(
        node_id=b.rule_id("committee"),
        authorizer_id=treasury_co.body.body_id,
        methods=treasury_co.body.methods,
        within=grant.within,
    )
    board_ok = Authorization(
        node_id=b.rule_id("board"), authorizer_id=co.board.body_id, methods=co.board.methods
    )
    bar = Prohibition(
        node_id=b.rule_id("lockup"),
        when=Bound("effective_date", "<", lock_end.isoformat()),
        record_id=b.record_id("side_letter"),
    )
    waiver = Consent(node_id=b.rule_id("lead_waiver"), holder_id=lead.party_id)
    fits = Capacity(node_id=b.rule_id("allocation"), target_id=pool.pool_id, field="token_amount")
    signer = Signatory(
        node_id=b.rule_id("sign"), entity_id=co.entity.entity_id, roles=("cfo", "ceo")
    )
    payload: dict[str, Scalar] = {
        "entity_id": co.entity.entity_id,
        "token_symbol": b.token,
        "buyer": b.names.counterparty(),
        "token_amount": amount,
        "price_per_token": b.rng.randint(1, 9),
        "effective_date": b.day.isoformat(),
    }
    graph = AllOf(
        node_id=b.rule_id("root"),
        children=(
            AnyOf(node_id=b.rule_id("authority"), children=(committee_ok, board_ok)),
            AnyOf(node_id=b.rule_id("lock"), children=(bar, waiver)),
            fits,
            signer,
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
        [*sx.body_rules(co.board), *sx.signing(b, (signer,), NOUN)],
    )
    b.record(
        "treasury_charter",
        co.entity,
        "committee_charter",
        "Treasury Committee Charter",
        b.days_before(500, 1200),
        sx.body_rules(treasury_co.body),
    )
    b.record(
        "policy",
        co.entity,
        "board_resolution",
        "Token Treasury Policy",
        adopted,
        [
            sx.token_scope(co.entity, b.token),
            sx.treasury(b, co.entity, pool, (fits.node_id,)),
            sx.delegation(b, grant, NOUN, (committee_ok.node_id,)),
            *sx.reserved(b, board_ok, BEYOND),
            sx.supersedes(old.start),
        ],
    )
    b.record(
        "policy_old",
        co.entity,
        "board_resolution",
        "Token Treasury Policy",
        old.start,
        [sx.token_scope(co.entity, b.token), sx.delegation(b, old, NOUN)],
    )
    b.record(
        "side_letter",
        co.entity,
        "investor_agreement",
        "Lead Investor Side Letter",
        lock_end - timedelta(days=b.rng.randint(400, 700)),
        [sx.parties(name, (lead.name,)), sx.lockup(b, bar, waiver, NOUN)],
    )
    return Draft(graph, co.entity, payload)


TEMPLATES = (Template("treasury_lockup_sale", "token_treasury_sale", lockup_sale),)
