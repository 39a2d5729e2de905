"""Select the delegation chain that covers an action, version-blind.

Promise: among delegations granted to the acting logical agent by the originating
principal that are in force at the decision instant and unrevoked, keep those
whose capability covers the resource, the action, every requested scope and the
purpose; pick the lexicographically smallest id and expand it through its parents,
root first. Policy version plays no part in selection; covering delegations that
disagree on version make the world ambiguous and are refused. When nothing covers,
the result says why (revoked, exceeded, or no active delegation). Must not import
agent_assay, nor synthworld's replay, relationship-derivation or evaluator helpers.
"""

from dataclasses import dataclass
from datetime import datetime

from synthworld.agentic.models import (
    ActionAttempt,
    AuthorityFailureReason,
    Capability,
    Delegation,
)

from authority_auditor.errors import AuditRejected
from authority_auditor.ledger import Ledger
from authority_auditor.windows import is_in_force


@dataclass(frozen=True)
class Cover:
    """The outcome of the search: a chain ending at its leaf, or the reason for none."""

    chain: tuple[str, ...]
    leaf: Delegation | None
    gap: AuthorityFailureReason | None


def find_cover(
    ledger: Ledger,
    agent_id: str | None,
    origin_id: str | None,
    attempt: ActionAttempt,
    at: datetime,
) -> Cover:
    """Return the covering chain an action-time (or audit-time) check selects."""

    granted = [
        item
        for item in ledger.delegations
        if item.grantee_agent_id == agent_id and item.originating_principal_id == origin_id
    ]
    in_force = [item for item in granted if is_in_force(item.valid_from, item.expires_at, at)]
    unrevoked = [item for item in in_force if item.id not in ledger.revoked]
    covering = [item for item in unrevoked if covers(item.capability, attempt)]
    if covering:
        versions = {item.policy_version for item in covering}
        if len(versions) > 1:
            raise AuditRejected(
                "delegations covering one action disagree on policy version: "
                + ", ".join(sorted(versions))
            )
        chosen = min(covering, key=lambda item: item.id)
        return Cover(_root_first(ledger, chosen), chosen, None)
    if any(covers(item.capability, attempt) for item in in_force):
        return Cover((), None, AuthorityFailureReason.DELEGATION_REVOKED)
    if unrevoked:
        return Cover((), None, AuthorityFailureReason.CAPABILITY_EXCEEDED)
    return Cover((), None, AuthorityFailureReason.NO_ACTIVE_DELEGATION)


def covers(capability: Capability, attempt: ActionAttempt) -> bool:
    """Return whether a capability reaches the resource, action, scopes and purpose."""

    return (
        attempt.resource_id in capability.resource_ids
        and attempt.action in capability.actions
        and set(attempt.requested_scope) <= set(capability.scopes)
        and attempt.purpose == capability.purpose
    )


def _root_first(ledger: Ledger, leaf: Delegation) -> tuple[str, ...]:
    """Expand a delegation through its parents; the replay guarantees they exist."""

    granted = {item.id: item for item in ledger.delegations}
    chain = [leaf]
    while chain[-1].parent_delegation_id is not None:
        chain.append(granted[chain[-1].parent_delegation_id])
    return tuple(item.id for item in reversed(chain))
