"""The evidence an auditor needs to rebuild one decision, and whether it survives.

Promise: the required set is the sorted union of exactly four groups - the policy
version the decision was reached under, the presented credential, the canonical
runtime the claimed runtime principal maps to, and one entry per member of the
covering chain - and it is reconstructable at audit only if every member is still
retained when the audit happens. Revocation records are never required. Must not
import agent_assay, nor synthworld's replay, relationship-derivation or evaluator
helpers.
"""

from collections.abc import Set


def required_evidence(
    policy_version: str,
    credential_id: str,
    runtime_id: str,
    chain: tuple[str, ...],
) -> tuple[str, ...]:
    """Return the required evidence references, sorted and de-duplicated."""

    refs = {
        f"evidence:policy:{policy_version}",
        f"evidence:credential:{credential_id}",
        f"evidence:runtime:{runtime_id}",
        *(f"evidence:delegation:{delegation_id}" for delegation_id in chain),
    }
    return tuple(sorted(refs))


def reconstructable(required: tuple[str, ...], retained_at_audit: Set[str]) -> bool:
    """Return whether the audit still holds every required reference."""

    return set(required) <= retained_at_audit
