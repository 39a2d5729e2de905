"""Name the side effect an action should record.

Promise: a denied action records `none`; an allowed one records a fixed name
derived from its action verb, with `action_recorded` for any verb not listed.
Must not import agent_assay, nor synthworld's replay, relationship-derivation or
evaluator helpers.
"""

from synthworld.agentic.models import Decision

_NAMED_EFFECTS = {
    "read": "read_recorded",
    "request_quotation": "quotation_requested",
    "compare": "comparison_recorded",
    "create_draft": "draft_created",
    "create_delegation": "delegation_created",
}


def side_effect_for(action: str, decision: Decision) -> str:
    """Return the side-effect name for an action-time decision."""

    if decision is Decision.DENY:
        return "none"
    return _NAMED_EFFECTS.get(action, "action_recorded")
