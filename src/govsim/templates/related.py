"""Related-party template: a director's firm contracts with the company.

Promise: the Audit Committee must specially approve citing the disclosure (recusing the
director if they sit on it); above a threshold the board must also approve at a meeting,
after the committee, with the director recused. Must not import agent_assay.
"""

from __future__ import annotations

from govsim import sections as sx
from govsim.builder import Builder
from govsim.graph import AllOf, Authorization, Conflict, Node, Sequence, Signatory
from govsim.quantities import Bound, Scalar
from govsim.templates.common import Draft, Template, add_committee, found_company, round_to, terms

NOUN = "related-party transactions"


def director_firm(b: Builder) -> Draft:
    co = found_company(b)
    insider = b.rng.choice(co.outside_directors)
    on_audit = b.rng.random() < 0.5
    audit = add_committee(
        b,
        co,
        "audit",
        "Audit Committee",
        exclude=() if on_audit else (insider,),
        include=(insider,) if on_audit else (),
    )
    threshold = b.rng.choice((100_000, 250_000, 500_000))
    above = b.rng.random() < 0.55
    amount = round_to(
        threshold * (b.rng.uniform(1.1, 4.0) if above else b.rng.uniform(0.2, 0.95)), 1_000
    )
    firm = b.names.counterparty()
    rec = b.record_id("disclosure")
    who = insider.person_id
    big = Bound("amount", ">", threshold)
    special = Conflict(
        node_id=b.rule_id("audit_special"),
        kind="special_approval",
        person_id=who,
        body_id=audit.body.body_id,
        record_id=rec,
    )
    audit_recuse = Conflict(
        node_id=b.rule_id("audit_recuse"),
        kind="recusal",
        person_id=who,
        body_id=audit.body.body_id,
        record_id=rec,
    )
    board_ok = Authorization(
        node_id=b.rule_id("board"),
        authorizer_id=co.board.body_id,
        methods=("meeting",),
        applies_if=big,
    )
    board_recuse = Conflict(
        node_id=b.rule_id("board_recuse"),
        kind="recusal",
        person_id=who,
        body_id=co.board.body_id,
        record_id=rec,
        applies_if=big,
    )
    board_cite = Conflict(
        node_id=b.rule_id("board_cite"),
        kind="disclosure",
        person_id=who,
        body_id=co.board.body_id,
        record_id=rec,
        applies_if=big,
    )
    order = Sequence(
        node_id=b.rule_id("audit_first"),
        before_id=audit.body.body_id,
        after_id=co.board.body_id,
        applies_if=big,
    )
    signer = Signatory(
        node_id=b.rule_id("sign"),
        entity_id=co.entity.entity_id,
        roles=("ceo", "cfo"),
        excluded_ids=(who,),
    )
    payload: dict[str, Scalar] = {
        "entity_id": co.entity.entity_id,
        "counterparty": firm,
        "related_person_id": who,
        "amount": amount,
        "effective_date": b.day.isoformat(),
    }
    audit_rules: tuple[Node, ...] = (special, audit_recuse) if on_audit else (special,)
    graph = AllOf(
        node_id=b.rule_id("root"),
        children=(
            *audit_rules,
            board_ok,
            board_recuse,
            board_cite,
            order,
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
        [
            *sx.body_rules(co.board),
            *sx.reserved(b, board_ok, NOUN),
            *sx.conflict_policy(co.board, board_recuse, board_cite),
            *sx.signing(b, (signer,), NOUN),
        ],
    )
    b.record(
        "audit_charter",
        co.entity,
        "committee_charter",
        "Audit Committee Charter",
        b.days_before(300, 1200),
        [
            *sx.body_rules(audit.body),
            sx.special_approval(b, special, NOUN),
            *sx.conflict_policy(audit.body, audit_recuse, None),
            sx.sequence(b, order, NOUN),
        ],
    )
    when = b.days_before(5, 60)
    b.record(
        "disclosure",
        co.entity,
        "conflict_disclosure",
        f"Disclosure of Interest: {insider.name}",
        when,
        sx.disclosure(
            b,
            who,
            firm,
            b.names.interest(),
            NOUN,
            when,
            tuple(n.node_id for n in (*audit_rules, board_recuse, board_cite)),
        ),
    )
    return Draft(graph, co.entity, payload)


TEMPLATES = (Template("related_director_firm", "related_party_transaction", director_firm),)
