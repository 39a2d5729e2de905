"""Scaffolding shared by the hand-authored templates: a company, its board and capital.

Promise: every template starts from the same realistic skeleton (dated board seats with a
departed and an incoming director, officers, common stock) so templates only state what is
special about their matter. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from govsim.builder import Builder
from govsim.graph import Node, Terms
from govsim.quantities import Ratio, Scalar
from govsim.world import Body, Entity, Party, Person, SecurityClass


@dataclass(frozen=True)
class Company:
    entity: Entity
    board: Body
    directors: tuple[Person, ...]
    officers: dict[str, Person]
    common: SecurityClass
    common_holders: Body

    @property
    def outside_directors(self) -> tuple[Person, ...]:
        """Directors who hold no office, in seat order."""
        executives = {p.person_id for p in self.officers.values()}
        return tuple(d for d in self.directors if d.person_id not in executives)


@dataclass(frozen=True)
class Committee:
    body: Body
    members: tuple[Person, ...]


@dataclass(frozen=True)
class Preferred:
    cls: SecurityClass
    holders: Body
    investors: tuple[Party, ...]


@dataclass(frozen=True)
class Draft:
    """What a template hands back: the rule graph and the requested action."""

    graph: Node
    entity: Entity
    payload: dict[str, Scalar]


@dataclass(frozen=True)
class Template:
    template_id: str
    family: str
    build: Callable[[Builder], Draft]


def found_company(b: Builder, key: str = "company", seats: int = 5) -> Company:
    """A company whose register changes around the action date: the traps are dated."""
    entity = b.entity(key, b.names.company())
    board = b.body(f"{key}:board", entity, "Board of Directors", "board", _board_vote(b))
    directors = tuple(b.person(f"{key}:director:{i}") for i in range(seats))
    for d in directors:
        b.appoint(d, entity, "director", b.days_before(400, 2400), body=board)
    departed = b.person(f"{key}:departed")
    b.appoint(
        departed, entity, "director", b.days_before(2500, 3200), b.days_before(20, 300), board
    )
    incoming = b.person(f"{key}:incoming")
    b.appoint(incoming, entity, "director", b.days_after(5, 120), body=board)
    officers = {"ceo": directors[0]}
    for role in ("cfo", "secretary"):
        officers[role] = b.person(f"{key}:{role}")
    for role, person in officers.items():
        b.appoint(person, entity, role, b.days_before(300, 2000))
    common = b.security_class(f"{key}:common", entity, "Common Stock", 10_000_000)
    for holder in (directors[0], b.person(f"{key}:founder")):
        b.hold(holder.person_id, common, b.rng.randrange(1_000_000, 3_000_000, 50_000))
    holders = b.body(
        f"{key}:common_holders",
        entity,
        "Common Stockholders",
        "holders",
        Ratio(1, 2),
        common.class_id,
    )
    return Company(entity, board, directors, officers, common, holders)


def _board_vote(b: Builder) -> Ratio:
    return Ratio(2, 3) if b.rng.random() < 0.3 else Ratio(1, 2)


def add_committee(
    b: Builder,
    co: Company,
    key: str,
    name: str,
    exclude: tuple[Person, ...] = (),
    include: tuple[Person, ...] = (),
) -> Committee:
    """Three outside directors plus one who has already rotated off."""
    body = b.body(key, co.entity, name, "committee", Ratio(1, 2))
    pool = [d for d in co.outside_directors if d not in exclude and d not in include]
    members = (*include, *b.rng.sample(pool, 3 - len(include)))
    for m in members:
        b.appoint(m, co.entity, "member", b.days_before(60, 900), body=body)
    rotated = next(d for d in co.outside_directors if d not in members)
    b.appoint(rotated, co.entity, "member", b.days_before(1000, 1500), b.days_before(10, 50), body)
    return Committee(body, members)


def add_preferred(b: Builder, co: Company, authorized: int, outstanding: int) -> Preferred:
    """Series A held by three investor funds, consenting as a class."""
    cls = b.security_class("series_a", co.entity, "Series A Preferred", authorized)
    investors = tuple(b.party(f"investor:{i}", b.names.investor(), "investor") for i in range(3))
    shares = _split(b, outstanding, len(investors))
    for investor, units in zip(investors, shares, strict=True):
        b.hold(investor.party_id, cls, units)
    holders = b.body(
        "series_a:holders",
        co.entity,
        "Series A Preferred Holders",
        "holders",
        b.rng.choice((Ratio(1, 2), Ratio(2, 3))),
        cls.class_id,
    )
    return Preferred(cls, holders, investors)


def _split(b: Builder, total: int, parts: int) -> list[int]:
    """Unequal positive parts that sum to ``total``."""
    cuts = sorted(b.rng.sample(range(total // 10, total - total // 10, 1_000), parts - 1))
    edges = [0, *cuts, total]
    return [edges[i + 1] - edges[i] for i in range(parts)]


def terms(b: Builder, payload: dict[str, Scalar]) -> Terms:
    return Terms(node_id=b.rule_id("terms"), expected=tuple(sorted(payload.items())))


def pick(b: Builder, weights: dict[str, float]) -> str:
    """A weighted scenario draw, so instances of one template differ in structure."""
    keys = list(weights)
    return b.rng.choices(keys, weights=[weights[k] for k in keys])[0]


def round_to(value: float, step: int) -> int:
    return max(step, int(value) // step * step)
