"""The fictional corporate world: entities, people, dated roles, bodies, capital and records.

Promise: immutable facts plus as-of-date queries (who sat on a body, who held an office,
what capacity remains). Nothing here knows about tools or rewards.
Must not import agent_assay.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Literal

from govsim.quantities import Bound, Ratio

BodyKind = Literal["board", "committee", "holders"]

OFFICER_TITLES: dict[str, str] = {
    "ceo": "Chief Executive Officer",
    "cfo": "Chief Financial Officer",
    "secretary": "Company Secretary",
    "managing_director": "Managing Director",
    "finance_director": "Finance Director",
}
SEAT_ROLES = ("director", "member")


@dataclass(frozen=True)
class Jurisdiction:
    name: str
    currency: str
    registry: str


@dataclass(frozen=True)
class Entity:
    entity_id: str
    name: str
    parent_id: str | None = None


@dataclass(frozen=True)
class Person:
    person_id: str
    name: str


@dataclass(frozen=True)
class Appointment:
    """A dated role; ``end`` is exclusive so a resignation date is the first day out."""

    person_id: str
    entity_id: str
    role: str
    start: date
    end: date | None = None
    body_id: str | None = None

    def active_on(self, day: date) -> bool:
        return self.start <= day and (self.end is None or day < self.end)


@dataclass(frozen=True)
class Body:
    """A collective decision-maker; holders bodies vote by units of one class."""

    body_id: str
    entity_id: str
    name: str
    kind: BodyKind
    quorum: Ratio
    vote: Ratio
    written_consent: bool = False
    recused_count_for_quorum: bool = True
    class_id: str | None = None

    @property
    def methods(self) -> tuple[str, ...]:
        if self.kind == "holders":
            return ("holder_consent",)
        return ("meeting", "written_consent") if self.written_consent else ("meeting",)


@dataclass(frozen=True)
class Party:
    """An outside organisation: investor, lender or counterparty."""

    party_id: str
    name: str
    kind: str


@dataclass(frozen=True)
class SecurityClass:
    class_id: str
    entity_id: str
    name: str
    authorized: int


@dataclass(frozen=True)
class Position:
    holder_id: str
    class_id: str
    units: int


@dataclass(frozen=True)
class Pool:
    """Reserved capacity outside the share register (equity plan, token treasury)."""

    pool_id: str
    entity_id: str
    name: str
    kind: str
    reserved: int
    used: int


@dataclass(frozen=True)
class Grant:
    """Delegated authority from a record; superseded grants stay for stale-authority checks."""

    grant_id: str
    holder_id: str
    entity_id: str
    family: str
    within: Bound | None
    record_id: str
    start: date
    end: date | None = None

    def in_force_on(self, day: date) -> bool:
        return self.start <= day and (self.end is None or day < self.end)


@dataclass(frozen=True)
class Quantity:
    """A number with its unit, so prose never prints a bare figure without meaning."""

    value: int
    unit: str


FactValue = str | int | date | Ratio | Quantity | tuple[str, ...]


@dataclass(frozen=True)
class Section:
    """One clause of a record; ``clause``/``facts`` keep the structured source of ``text``."""

    heading: str
    text: str
    clause: str
    facts: tuple[tuple[str, FactValue], ...]
    rule_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Record:
    record_id: str
    entity_id: str
    record_type: str
    title: str
    effective: date
    sections: tuple[Section, ...]
    distractor: bool = False


@dataclass(frozen=True)
class World:
    jurisdiction: Jurisdiction
    entities: tuple[Entity, ...]
    people: tuple[Person, ...]
    appointments: tuple[Appointment, ...]
    bodies: tuple[Body, ...]
    parties: tuple[Party, ...]
    classes: tuple[SecurityClass, ...]
    positions: tuple[Position, ...]
    pools: tuple[Pool, ...]
    grants: tuple[Grant, ...]
    records: tuple[Record, ...]

    @cached_property
    def _names(self) -> dict[str, str]:
        names: dict[str, str] = {}
        for e in self.entities:
            names[e.entity_id] = e.name
        for p in self.people:
            names[p.person_id] = p.name
        for b in self.bodies:
            names[b.body_id] = b.name
        for q in self.parties:
            names[q.party_id] = q.name
        for c in self.classes:
            names[c.class_id] = c.name
        for pool in self.pools:
            names[pool.pool_id] = pool.name
        for r in self.records:
            names[r.record_id] = r.title
        return names

    def name_of(self, any_id: str) -> str | None:
        return self._names.get(any_id)

    @cached_property
    def body_by_id(self) -> dict[str, Body]:
        return {b.body_id: b for b in self.bodies}

    @cached_property
    def party_by_id(self) -> dict[str, Party]:
        return {p.party_id: p for p in self.parties}

    @cached_property
    def person_by_id(self) -> dict[str, Person]:
        return {p.person_id: p for p in self.people}

    @cached_property
    def entity_by_id(self) -> dict[str, Entity]:
        return {e.entity_id: e for e in self.entities}

    @cached_property
    def record_by_id(self) -> dict[str, Record]:
        return {r.record_id: r for r in self.records}

    def members(self, body_id: str, day: date) -> tuple[str, ...]:
        """Seated members on ``day`` in appointment order, without duplicates."""
        seen: list[str] = []
        for a in self.appointments:
            seated = a.body_id == body_id and a.role in SEAT_ROLES and a.active_on(day)
            if seated and a.person_id not in seen:
                seen.append(a.person_id)
        return tuple(seen)

    def holdings(self, class_id: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.positions:
            if p.class_id == class_id and p.units > 0:
                out[p.holder_id] = out.get(p.holder_id, 0) + p.units
        return out

    def outstanding(self, class_id: str) -> int:
        return sum(self.holdings(class_id).values())

    def capacity(self, target_id: str) -> tuple[int, int] | None:
        """(limit, used) for a pool or a security class; None when the id is unknown."""
        for pool in self.pools:
            if pool.pool_id == target_id:
                return pool.reserved, pool.used
        for c in self.classes:
            if c.class_id == target_id:
                return c.authorized, self.outstanding(c.class_id)
        return None

    def available(self, target_id: str) -> int:
        cap = self.capacity(target_id)
        return 0 if cap is None else cap[0] - cap[1]

    def offices(self, person_id: str, day: date) -> tuple[tuple[str, str], ...]:
        """(entity_id, role) officer posts held by the person on ``day``."""
        return tuple(
            (a.entity_id, a.role)
            for a in self.appointments
            if a.person_id == person_id and a.role in OFFICER_TITLES and a.active_on(day)
        )

    def officers(self, entity_id: str, day: date) -> tuple[tuple[str, str], ...]:
        """(person_id, role) officer posts of the entity on ``day`` in title order."""
        order = list(OFFICER_TITLES)
        posts = [
            (a.person_id, a.role)
            for a in self.appointments
            if a.entity_id == entity_id and a.role in OFFICER_TITLES and a.active_on(day)
        ]
        return tuple(sorted(posts, key=lambda post: order.index(post[1])))
