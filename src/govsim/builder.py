"""Accumulates one world while a template describes it, then freezes it.

Promise: salted ids for every object, dated appointments relative to the action date, and
records rendered from section specs at creation time. Must not import agent_assay.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from govsim.families import FAMILIES
from govsim.ids import IdMint
from govsim.names import NameBook
from govsim.quantities import Bound, Ratio
from govsim.render import clauses, render
from govsim.world import (
    Appointment,
    Body,
    BodyKind,
    Entity,
    FactValue,
    Grant,
    Jurisdiction,
    Party,
    Person,
    Pool,
    Position,
    Quantity,
    Record,
    Section,
    SecurityClass,
    World,
)


@dataclass(frozen=True)
class SectionSpec:
    """A clause to render plus the structured facts and rule ids it comes from."""

    clause: str
    facts: Mapping[str, FactValue]
    rule_ids: tuple[str, ...] = ()


@dataclass
class Builder:
    mint: IdMint
    rng: random.Random
    names: NameBook
    jurisdiction: Jurisdiction
    family: str
    day: date
    token: str = ""
    entities: list[Entity] = field(default_factory=list)
    people: list[Person] = field(default_factory=list)
    appointments: list[Appointment] = field(default_factory=list)
    bodies: list[Body] = field(default_factory=list)
    parties: list[Party] = field(default_factory=list)
    classes: list[SecurityClass] = field(default_factory=list)
    positions: list[Position] = field(default_factory=list)
    pools: list[Pool] = field(default_factory=list)
    grants: list[Grant] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)

    # -- dates -------------------------------------------------------------------------
    def days_before(self, low: int, high: int, anchor: date | None = None) -> date:
        """A random date ``low``..``high`` days before ``anchor`` (default: action date)."""
        return (anchor or self.day) - timedelta(days=self.rng.randint(low, high))

    def days_after(self, low: int, high: int) -> date:
        return self.day + timedelta(days=self.rng.randint(low, high))

    # -- parties and people --------------------------------------------------------------
    def entity(self, key: str, name: str, parent: Entity | None = None) -> Entity:
        ent = Entity(self.mint("ent", key), name, parent.entity_id if parent else None)
        self.entities.append(ent)
        return ent

    def person(self, key: str) -> Person:
        person = Person(self.mint("prs", key), self.names.person())
        self.people.append(person)
        return person

    def party(self, key: str, name: str, kind: str) -> Party:
        party = Party(self.mint("pty", key), name, kind)
        self.parties.append(party)
        return party

    def appoint(
        self,
        person: Person,
        entity: Entity,
        role: str,
        start: date,
        end: date | None = None,
        body: Body | None = None,
    ) -> None:
        self.appointments.append(
            Appointment(
                person.person_id, entity.entity_id, role, start, end, body.body_id if body else None
            )
        )

    # -- bodies and capital --------------------------------------------------------------
    def body(
        self,
        key: str,
        entity: Entity,
        name: str,
        kind: BodyKind,
        vote: Ratio,
        class_id: str | None = None,
    ) -> Body:
        """Seated bodies draw their procedural options; holders bodies have none."""
        seated = kind != "holders"
        body = Body(
            body_id=self.mint("bdy", key),
            entity_id=entity.entity_id,
            name=name,
            kind=kind,
            quorum=Ratio(1, 2),
            vote=vote,
            written_consent=seated and self.rng.random() < 0.5,
            recused_count_for_quorum=self.rng.random() < 0.5,
            class_id=class_id,
        )
        self.bodies.append(body)
        return body

    def security_class(self, key: str, entity: Entity, name: str, authorized: int) -> SecurityClass:
        cls = SecurityClass(self.mint("cls", key), entity.entity_id, name, authorized)
        self.classes.append(cls)
        return cls

    def hold(self, holder_id: str, cls: SecurityClass, units: int) -> None:
        self.positions.append(Position(holder_id, cls.class_id, units))

    def pool(
        self, key: str, entity: Entity, name: str, kind: str, reserved: int, used: int
    ) -> Pool:
        pool = Pool(self.mint("pool", key), entity.entity_id, name, kind, reserved, used)
        self.pools.append(pool)
        return pool

    def grant(
        self,
        key: str,
        holder_id: str,
        entity: Entity,
        within: Bound | None,
        record_key: str,
        start: date,
        end: date | None = None,
    ) -> Grant:
        grant = Grant(
            self.mint("grt", key),
            holder_id,
            entity.entity_id,
            self.family,
            within,
            self.record_id(record_key),
            start,
            end,
        )
        self.grants.append(grant)
        return grant

    # -- rules and records ---------------------------------------------------------------
    def rule_id(self, key: str) -> str:
        return self.mint("rule", key)

    def record_id(self, key: str) -> str:
        return self.mint("rec", key)

    def amount(self, field_name: str, value: int) -> Quantity:
        """A payload number with the unit its family field implies."""
        unit = FAMILIES[self.family].unit_of(field_name)
        label = {
            "money": self.jurisdiction.currency,
            "shares": "shares",
            "tokens": f"{self.token} tokens",
            "months": "months",
            "bps": "basis points",
        }[unit]
        return Quantity(value, label)

    def bound_fact(self, bound: Bound) -> FactValue:
        if isinstance(bound.value, str):
            return date.fromisoformat(bound.value)
        return self.amount(bound.field, bound.value)

    def record(
        self,
        key: str,
        entity: Entity,
        record_type: str,
        title: str,
        effective: date,
        specs: Sequence[SectionSpec],
        distractor: bool = False,
    ) -> Record:
        sections = tuple(self._section(spec) for spec in specs)
        rec = Record(
            self.record_id(key),
            entity.entity_id,
            record_type,
            title,
            effective,
            sections,
            distractor,
        )
        self.records.append(rec)
        return rec

    def _section(self, spec: SectionSpec) -> Section:
        clause = clauses()[spec.clause]
        variant = self.rng.randrange(len(clause.variants))
        return Section(
            heading=clause.heading,
            text=render(spec.clause, spec.facts, variant),
            clause=spec.clause,
            facts=tuple(sorted(spec.facts.items())),
            rule_ids=spec.rule_ids,
        )

    def world(self) -> World:
        return World(
            jurisdiction=self.jurisdiction,
            entities=tuple(self.entities),
            people=tuple(self.people),
            appointments=tuple(self.appointments),
            bodies=tuple(self.bodies),
            parties=tuple(self.parties),
            classes=tuple(self.classes),
            positions=tuple(self.positions),
            pools=tuple(self.pools),
            grants=tuple(self.grants),
            records=tuple(self.records),
        )
