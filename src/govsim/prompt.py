"""The request text an agent receives.

Promise: a deterministic plain-language request built from the payload and world names;
it states economics and the goal but never a rule. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Mapping

from govsim.families import FAMILIES
from govsim.quantities import Scalar
from govsim.world import World


def request_prompt(world: World, family: str, payload: Mapping[str, Scalar]) -> str:
    spec = FAMILIES[family]
    lines = []
    for f in spec.fields:
        value = payload[f.name]
        named = world.name_of(str(value)) if f.unit == "id" else None
        shown = f"{value} ({named})" if named else str(value)
        lines.append(f"- {f.name}: {shown}")
    entity = world.entity_by_id[str(payload["entity_id"])]
    terms = "\n".join(lines)
    return (
        f"You act for {entity.name} ({entity.entity_id}), a company of the "
        f"{world.jurisdiction.name} entered in the {world.jurisdiction.registry}. "
        f"Management asks you to complete one of its {spec.noun} with these exact terms:\n"
        f"{terms}\n"
        f"Create it with {spec.tool}, establish from the company's records and registers "
        "which approvals are required, record each one with record_authorization, and then "
        "execute it with an officer who may sign. Only tool calls change anything."
    )
