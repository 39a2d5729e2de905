"""Who may sign the executed instrument.

Promise: one pure check shared by the validator and the oracle, so both agree on what a
valid signatory is. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from govsim.defects import Code, Defect
from govsim.graph import Signatory
from govsim.quantities import Scalar
from govsim.world import World


def signatory_defects(
    world: World, node: Signatory, person_id: str, payload: Mapping[str, Scalar], day: date
) -> tuple[Defect, ...]:
    """Empty when the person holds an allowed office of the right entity within its limit."""
    if person_id in node.excluded_ids:
        return (Defect(Code.INVALID_SIGNATORY, person_id, "personally interested in the action"),)
    offices = world.offices(person_id, day)
    here = {role for entity_id, role in offices if entity_id == node.entity_id}
    if here & set(node.roles):
        if node.within is not None and not node.within.holds(payload):
            return (
                Defect(Code.INVALID_SIGNATORY, person_id, "above this officer's signing limit"),
            )
        return ()
    if offices and not here:
        return (Defect(Code.WRONG_ENTITY_SIGNATORY, person_id, "officer of a different entity"),)
    return (Defect(Code.INVALID_SIGNATORY, person_id, "holds no office allowed to sign"),)
