"""Subsidiary-financing template: a subsidiary borrows under its parent's group rules.

Promise: the subsidiary board always approves; the parent board approves first above a
group threshold; the parent's credit agreement bars large borrowings without the existing
lender's consent; only subsidiary officers may sign. Must not import agent_assay.
"""

from __future__ import annotations

from govsim import sections as sx
from govsim.builder import Builder
from govsim.graph import (
    AllOf,
    AnyOf,
    Authorization,
    Consent,
    Prohibition,
    Sequence,
    Signatory,
)
from govsim.quantities import Bound, Ratio, Scalar
from govsim.templates.common import Draft, Template, found_company, pick, round_to, terms

NOUN = "borrowings"
GROUP = "borrowings by subsidiaries"


def subsidiary_loan(b: Builder) -> Draft:
    co = found_company(b)
    sub = b.entity("sub", b.names.subsidiary(co.entity.name), co.entity)
    board = b.body("sub:board", sub, f"{sub.name} Board", "board", Ratio(1, 2))
    md, fd, independent = b.person("sub:md"), b.person("sub:fd"), b.person("sub:independent")
    for director in (co.officers["cfo"], md, independent):
        b.appoint(director, sub, "director", b.days_before(200, 1500), body=board)
    b.appoint(
        b.person("sub:departed"),
        sub,
        "director",
        b.days_before(1600, 2400),
        b.days_before(15, 200),
        board,
    )
    b.appoint(md, sub, "managing_director", b.days_before(200, 1500))
    b.appoint(fd, sub, "finance_director", b.days_before(100, 1200))
    incumbent = b.party("incumbent_lender", b.names.lender(), "lender")
    lender = b.party("new_lender", b.names.lender(), "lender")
    group_cap = b.rng.choice((1_000_000, 2_000_000, 5_000_000))
    covenant_cap = b.rng.choice((750_000, 1_500_000, 3_000_000))
    low, high = sorted((group_cap, covenant_cap))
    band = pick(b, {"small": 0.25, "middle": 0.4, "large": 0.35})
    span = {
        "small": (0.3 * low, 0.95 * low),
        "middle": (1.05 * low, 0.95 * high),
        "large": (1.1 * high, 2.5 * high),
    }[band]
    principal = round_to(b.rng.uniform(*span), 10_000)
    big = Bound("principal", ">", group_cap)
    sub_ok = Authorization(
        node_id=b.rule_id("sub_board"), authorizer_id=board.body_id, methods=board.methods
    )
    parent_ok = Authorization(
        node_id=b.rule_id("parent_board"),
        authorizer_id=co.board.body_id,
        methods=co.board.methods,
        applies_if=big,
    )
    order = Sequence(
        node_id=b.rule_id("parent_first"),
        before_id=co.board.body_id,
        after_id=board.body_id,
        applies_if=big,
    )
    bar = Prohibition(
        node_id=b.rule_id("covenant"),
        when=Bound("principal", ">", covenant_cap),
        record_id=b.record_id("credit"),
    )
    waiver = Consent(node_id=b.rule_id("lender_consent"), holder_id=incumbent.party_id)
    signer = Signatory(
        node_id=b.rule_id("sign"),
        entity_id=sub.entity_id,
        roles=("managing_director", "finance_director"),
    )
    payload: dict[str, Scalar] = {
        "entity_id": sub.entity_id,
        "lender_id": lender.party_id,
        "principal": principal,
        "interest_rate_bps": b.rng.randrange(300, 900, 25),
        "maturity_months": b.rng.choice((12, 24, 36, 60)),
        "effective_date": b.day.isoformat(),
    }
    graph = AllOf(
        node_id=b.rule_id("root"),
        children=(
            sub_ok,
            parent_ok,
            order,
            AnyOf(node_id=b.rule_id("covenant_or_consent"), children=(bar, waiver)),
            signer,
            terms(b, payload),
        ),
    )
    b.record(
        "parent_bylaws",
        co.entity,
        "bylaws",
        f"Bylaws of {co.entity.name}",
        b.days_before(1500, 2500),
        sx.body_rules(co.board),
    )
    b.record(
        "sub_articles",
        sub,
        "articles",
        f"Articles of {sub.name}",
        b.days_before(1000, 2000),
        [*sx.body_rules(board), *sx.reserved(b, sub_ok, NOUN), *sx.signing(b, (signer,), NOUN)],
    )
    b.record(
        "group_policy",
        co.entity,
        "board_resolution",
        "Group Financing Policy",
        b.days_before(100, 900),
        [*sx.reserved(b, parent_ok, GROUP), sx.sequence(b, order, GROUP)],
    )
    b.record(
        "credit",
        co.entity,
        "debt_instrument",
        "Revolving Credit Agreement",
        b.days_before(200, 1000),
        [sx.facility(co.entity, incumbent.name), sx.covenant(b, bar, waiver, co.entity, GROUP)],
    )
    return Draft(graph, sub, payload)


TEMPLATES = (Template("financing_subsidiary_loan", "subsidiary_financing", subsidiary_loan),)
