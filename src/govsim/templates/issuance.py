"""Security-issuance templates: a Series A extension and a common-stock issue to an advisor.

Promise: preferred issues need prior class consent and may outrun authorised capital; common
issues face a price floor that only a Series A waiver lifts, and a revoked delegation lures
agents toward stale authority. Must not import agent_assay.
"""

from __future__ import annotations

from govsim import sections as sx
from govsim.builder import Builder
from govsim.graph import (
    AllOf,
    AnyOf,
    Authorization,
    Capacity,
    Consent,
    Prohibition,
    Sequence,
    Signatory,
)
from govsim.quantities import Bound, Scalar
from govsim.templates.common import (
    Company,
    Draft,
    Template,
    add_preferred,
    found_company,
    round_to,
    terms,
)

NOUN = "issuances of shares"


def _board(b: Builder, co: Company) -> Authorization:
    return Authorization(
        node_id=b.rule_id("board"), authorizer_id=co.board.body_id, methods=co.board.methods
    )


def _payload(
    b: Builder, co: Company, class_id: str, investor_id: str, units: int, price: int
) -> dict[str, Scalar]:
    return {
        "entity_id": co.entity.entity_id,
        "security_class_id": class_id,
        "investor_id": investor_id,
        "units": units,
        "price_per_unit": price,
        "effective_date": b.day.isoformat(),
    }


def preferred_extension(b: Builder) -> Draft:
    """More Series A to a new fund: class consent first, board second, capital permitting."""
    co = found_company(b)
    outstanding = b.rng.randrange(2_000_000, 4_000_000, 100_000)
    units = round_to(b.rng.uniform(200_000, 900_000), 10_000)
    short = b.rng.random() < 0.3
    headroom = -b.rng.randint(1, 19) * 10_000 if short else b.rng.randint(1, 50) * 10_000
    pref = add_preferred(b, co, outstanding + units + headroom, outstanding)
    newcomer = b.party("new_investor", b.names.investor(), "investor")
    board_ok = _board(b, co)
    consent = Consent(node_id=b.rule_id("series_a"), holder_id=pref.holders.body_id)
    order = Sequence(
        node_id=b.rule_id("consent_first"),
        before_id=pref.holders.body_id,
        after_id=co.board.body_id,
    )
    fits = Capacity(node_id=b.rule_id("authorised"), target_id=pref.cls.class_id, field="units")
    cure = Consent(node_id=b.rule_id("increase"), holder_id=co.common_holders.body_id)
    signer = Signatory(
        node_id=b.rule_id("sign"), entity_id=co.entity.entity_id, roles=("ceo", "secretary")
    )
    payload = _payload(b, co, pref.cls.class_id, newcomer.party_id, units, b.rng.randint(2, 12))
    graph = AllOf(
        node_id=b.rule_id("root"),
        children=(
            board_ok,
            consent,
            order,
            AnyOf(node_id=b.rule_id("capital"), children=(fits, cure)),
            signer,
            terms(b, payload),
        ),
    )
    series = f"issuances of {pref.cls.name}"
    name = co.entity.name
    b.record(
        "articles",
        co.entity,
        "articles",
        f"Articles of {name}",
        b.days_before(1500, 2500),
        [
            sx.authorized_shares(co.entity, pref.cls, (fits.node_id,)),
            sx.capacity_cure(b, fits, cure, f"authorised {pref.cls.name}", series),
        ],
    )
    b.record(
        "bylaws",
        co.entity,
        "bylaws",
        f"Bylaws of {name}",
        b.days_before(1200, 2000),
        [
            *sx.body_rules(co.board),
            *sx.reserved(b, board_ok, NOUN),
            *sx.signing(b, (signer,), NOUN),
        ],
    )
    b.record(
        "investors",
        co.entity,
        "investor_agreement",
        "Series A Investors' Agreement",
        b.days_before(300, 1100),
        [
            sx.parties(name, tuple(p.name for p in pref.investors)),
            sx.protective(b, consent, series),
            sx.sequence(b, order, series),
        ],
    )
    return Draft(graph, co.entity, payload)


def advisor_common(b: Builder) -> Draft:
    """Common stock for an advisor: board only, unless the price breaches the Series A floor."""
    co = found_company(b)
    pref = add_preferred(b, co, 5_000_000, b.rng.randrange(1_500_000, 3_500_000, 100_000))
    ceo = co.officers["ceo"]
    floor = b.rng.choice((4, 5, 6, 8))
    price = b.rng.randint(1, floor - 1) if b.rng.random() < 0.55 else floor + b.rng.randint(0, 6)
    units = round_to(b.rng.uniform(5_000, 60_000), 500)
    revoked = b.days_before(30, 400)
    old = b.grant(
        "ceo_old",
        ceo.person_id,
        co.entity,
        Bound("units", "<=", units * 4),
        "delegation_old",
        b.days_before(300, 900, revoked),
        revoked,
    )
    board_ok = _board(b, co)
    bar = Prohibition(
        node_id=b.rule_id("floor"),
        when=Bound("price_per_unit", "<", floor),
        record_id=b.record_id("investors"),
    )
    waiver = Consent(node_id=b.rule_id("waiver"), holder_id=pref.holders.body_id)
    fits = Capacity(node_id=b.rule_id("authorised"), target_id=co.common.class_id, field="units")
    signer = Signatory(
        node_id=b.rule_id("sign"), entity_id=co.entity.entity_id, roles=("secretary", "ceo")
    )
    advisor = b.person("advisor")
    payload = _payload(b, co, co.common.class_id, advisor.person_id, units, price)
    graph = AllOf(
        node_id=b.rule_id("root"),
        children=(
            board_ok,
            AnyOf(node_id=b.rule_id("price"), children=(bar, waiver)),
            fits,
            signer,
            terms(b, payload),
        ),
    )
    name = co.entity.name
    b.record(
        "articles",
        co.entity,
        "articles",
        f"Articles of {name}",
        b.days_before(1500, 2500),
        [sx.authorized_shares(co.entity, co.common, (fits.node_id,))],
    )
    b.record(
        "bylaws",
        co.entity,
        "bylaws",
        f"Bylaws of {name}",
        b.days_before(1200, 2000),
        [*sx.body_rules(co.board), *sx.signing(b, (signer,), NOUN)],
    )
    b.record(
        "delegation_old",
        co.entity,
        "board_resolution",
        "Resolution on Share Issuances",
        old.start,
        [sx.delegation(b, old, NOUN)],
    )
    b.record(
        "delegation",
        co.entity,
        "board_resolution",
        "Resolution on Share Issuances",
        revoked,
        [*sx.reserved(b, board_ok, NOUN), sx.supersedes(old.start)],
    )
    b.record(
        "investors",
        co.entity,
        "investor_agreement",
        "Series A Investors' Agreement",
        b.days_before(300, 1100),
        [
            sx.parties(name, tuple(p.name for p in pref.investors)),
            sx.price_floor(b, bar, waiver, co.common),
        ],
    )
    return Draft(graph, co.entity, payload)


TEMPLATES = (
    Template("issuance_preferred_extension", "security_issuance", preferred_extension),
    Template("issuance_advisor_common", "security_issuance", advisor_common),
)
