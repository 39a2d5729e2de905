"""Distractor records: plausible but inoperative documents that add search noise.

Promise: distractors never change the rules (no grants, no graph nodes) and state only
names and their own dates, so they mislead keyword matching without making any world
unsolvable. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Callable

from govsim.builder import Builder, SectionSpec
from govsim.families import FAMILIES
from govsim.world import Entity, FactValue

Maker = Callable[[Builder, Entity, int], None]


def _policy(clause: str, title: str) -> Maker:
    def make(b: Builder, entity: Entity, n: int) -> None:
        when = b.days_before(30, 900)
        b.record(
            f"distractor:{n}",
            entity,
            "policy",
            title,
            when,
            [SectionSpec(clause, {"entity": entity.name, "date": when})],
            distractor=True,
        )

    return make


def _draft(b: Builder, entity: Entity, n: int) -> None:
    facts: dict[str, FactValue] = {
        "title": "Chief Executive Officer",
        "noun": FAMILIES[b.family].noun,
    }
    b.record(
        f"distractor:{n}",
        entity,
        "delegation_matrix",
        "Draft Delegation Proposal",
        b.days_before(20, 300),
        [SectionSpec("draft_proposal", facts)],
        distractor=True,
    )


def _affiliate(b: Builder, entity: Entity, n: int) -> None:
    when = b.days_before(30, 700)
    facts: dict[str, FactValue] = {
        "affiliate": b.names.company(),
        "noun": FAMILIES[b.family].noun,
        "date": when,
    }
    b.record(
        f"distractor:{n}",
        entity,
        "board_resolution",
        "Resolution of an Affiliate",
        when,
        [SectionSpec("affiliate_resolution", facts)],
        distractor=True,
    )


def _withdrawn(b: Builder, entity: Entity, n: int) -> None:
    when = b.days_before(60, 900)
    person = b.rng.choice(b.people)
    facts: dict[str, FactValue] = {
        "person": person.name,
        "counterparty": b.names.counterparty(),
        "date": when,
    }
    b.record(
        f"distractor:{n}",
        entity,
        "conflict_disclosure",
        f"Withdrawn Disclosure: {person.name}",
        when,
        [SectionSpec("withdrawn_disclosure", facts)],
        distractor=True,
    )


def _sustainability(b: Builder, entity: Entity, n: int) -> None:
    b.record(
        f"distractor:{n}",
        entity,
        "policy",
        "Sustainability Statement",
        b.days_before(30, 900),
        [SectionSpec("sustainability_statement", {"entity": entity.name})],
        distractor=True,
    )


MAKERS: tuple[Maker, ...] = (
    _policy("travel_policy", "Travel Policy"),
    _policy("retention_policy", "Records Retention Schedule"),
    _draft,
    _affiliate,
    _withdrawn,
    _sustainability,
)


def add_distractors(b: Builder, entity: Entity, count: int) -> None:
    """Add ``count`` distinct distractor kinds, chosen by the world's own RNG."""
    for n, make in enumerate(b.rng.sample(MAKERS, count)):
        make(b, entity, n)
