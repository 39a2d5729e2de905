"""Statutory registers as an agent sees them, as they stood on a given date.

Promise: read-only rows built from the world's dated facts; nothing here reveals a rule,
a threshold or the requirement graph. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from govsim.errors import ToolError
from govsim.world import OFFICER_TITLES, World

Row = dict[str, Any]


def _people(world: World, ids: tuple[str, ...]) -> list[Row]:
    return [{"person_id": p, "name": world.name_of(p)} for p in ids]


def _directors(world: World, entity_id: str, day: date) -> list[Row]:
    boards = [b for b in world.bodies if b.entity_id == entity_id and b.kind == "board"]
    return [row for b in boards for row in _people(world, world.members(b.body_id, day))]


def _officers(world: World, entity_id: str, day: date) -> list[Row]:
    return [
        {"person_id": p, "name": world.name_of(p), "role": r, "title": OFFICER_TITLES[r]}
        for p, r in world.officers(entity_id, day)
    ]


def _committees(world: World, entity_id: str, day: date) -> list[Row]:
    return [
        {
            "body_id": b.body_id,
            "name": b.name,
            "members": _people(world, world.members(b.body_id, day)),
        }
        for b in world.bodies
        if b.entity_id == entity_id and b.kind == "committee"
    ]


def _bodies(world: World, entity_id: str, day: date) -> list[Row]:
    rows = []
    for b in world.bodies:
        if b.entity_id != entity_id:
            continue
        if b.kind == "holders":
            size = len(world.holdings(b.class_id or ""))
        else:
            size = len(world.members(b.body_id, day))
        rows.append(
            {
                "body_id": b.body_id,
                "name": b.name,
                "kind": b.kind,
                "members": size,
                "class_id": b.class_id,
            }
        )
    return rows


def _cap_table(world: World, entity_id: str, day: date) -> list[Row]:
    return [
        {
            "holder_id": holder,
            "holder_name": world.name_of(holder),
            "class_id": c.class_id,
            "class_name": c.name,
            "units": units,
        }
        for c in world.classes
        if c.entity_id == entity_id
        for holder, units in world.holdings(c.class_id).items()
    ]


def _capacity(world: World, entity_id: str, day: date) -> list[Row]:
    targets = [
        (c.class_id, c.name, "share_class") for c in world.classes if c.entity_id == entity_id
    ]
    targets += [(p.pool_id, p.name, p.kind) for p in world.pools if p.entity_id == entity_id]
    rows = []
    for target_id, name, kind in targets:
        limit, used = world.capacity(target_id) or (0, 0)
        rows.append(
            {
                "target_id": target_id,
                "name": name,
                "kind": kind,
                "limit": limit,
                "used": used,
                "available": limit - used,
            }
        )
    return rows


def _subsidiaries(world: World, entity_id: str, day: date) -> list[Row]:
    return [
        {"entity_id": e.entity_id, "name": e.name}
        for e in world.entities
        if e.parent_id == entity_id
    ]


def _parent(world: World, entity_id: str, day: date) -> list[Row]:
    parent_id = world.entity_by_id[entity_id].parent_id
    if parent_id is None:
        return []
    return [{"entity_id": parent_id, "name": world.name_of(parent_id)}]


def _parties(world: World, entity_id: str, day: date) -> list[Row]:
    return [{"party_id": p.party_id, "name": p.name, "kind": p.kind} for p in world.parties]


READERS: dict[str, Callable[[World, str, date], list[Row]]] = {
    "directors": _directors,
    "officers": _officers,
    "committees": _committees,
    "bodies": _bodies,
    "cap_table": _cap_table,
    "capacity": _capacity,
    "subsidiaries": _subsidiaries,
    "parent": _parent,
    "parties": _parties,
}


def read_register(world: World, entity_id: str, register: str, day: date) -> list[Row]:
    if entity_id not in world.entity_by_id:
        raise ToolError(f"unknown entity_id {entity_id!r}")
    reader = READERS.get(register)
    if reader is None:
        raise ToolError(f"register must be one of {sorted(READERS)}")
    return reader(world, entity_id, day)
