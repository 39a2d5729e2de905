"""Decide allow or deny for one action against one ledger at one instant.

Promise: the same function gives the action-time decision (ledger immediately
before the action, at the action's timestamp) and the decision at audit (ledger
immediately before the audit event, at the audit's timestamp). An action is denied
for a missing runtime, a credential not in force or not permitted on the runtime,
a tenant mismatch, an unknown or mismatched policy version, an absent covering
chain, or a proposed sub-delegation that widens its parent or comes from an
unrelated delegator. The covering chain is reported whatever the decision. Must
not import agent_assay, nor synthworld's replay, relationship-derivation or
evaluator helpers.
"""

from dataclasses import dataclass
from datetime import datetime

from synthworld.agentic.models import (
    ActionAttempt,
    AuthorityFailureReason,
    Decision,
    Delegation,
)

from authority_auditor.binding import ActingIdentity
from authority_auditor.coverage import find_cover
from authority_auditor.identities import IdentityGraph
from authority_auditor.ledger import Ledger
from authority_auditor.provenance import delegator_is_permitted, is_attenuated
from authority_auditor.windows import is_in_force

Reason = AuthorityFailureReason


@dataclass(frozen=True)
class Verdict:
    """A decision with the chain and policy version it was reached under."""

    decision: Decision
    reasons: frozenset[AuthorityFailureReason]
    chain: tuple[str, ...]
    policy_version: str


def judge(
    graph: IdentityGraph,
    ledger: Ledger,
    identity: ActingIdentity,
    attempt: ActionAttempt,
    at: datetime,
) -> Verdict:
    """Evaluate an attempt; every failed check contributes its own reason."""

    reasons: set[AuthorityFailureReason] = set()
    if identity.runtime_id is None or ledger.runtime(identity.runtime_id) is None:
        reasons.add(Reason.WRONG_RUNTIME)
    credential = ledger.credential(identity.credential_id)
    if credential is None or not is_in_force(credential.valid_from, credential.expires_at, at):
        reasons.add(Reason.CREDENTIAL_INVALID)
    elif identity.runtime_principal_id not in credential.allowed_runtime_principal_ids:
        reasons.add(Reason.WRONG_RUNTIME)
    reasons |= _tenant_reasons(graph, identity, attempt)
    if attempt.policy_version not in graph.policy_versions:
        reasons.add(Reason.POLICY_VERSION_MISMATCH)

    cover = find_cover(
        ledger,
        identity.logical_agent_id,
        identity.originating_principal_id,
        attempt,
        at,
    )
    if cover.gap is not None:
        reasons.add(cover.gap)
    if cover.leaf is not None and cover.leaf.policy_version != attempt.policy_version:
        reasons.add(Reason.POLICY_VERSION_MISMATCH)
    if _proposal_overreaches(graph, ledger, attempt, cover.leaf):
        reasons.add(Reason.OVERPRIVILEGED_SUBDELEGATION)
    return Verdict(
        decision=Decision.DENY if reasons else Decision.ALLOW,
        reasons=frozenset(reasons),
        chain=cover.chain,
        policy_version=(
            cover.leaf.policy_version if cover.leaf is not None else attempt.policy_version
        ),
    )


def _tenant_reasons(
    graph: IdentityGraph, identity: ActingIdentity, attempt: ActionAttempt
) -> set[AuthorityFailureReason]:
    origin = graph.principal(identity.originating_principal_id)
    agent = graph.agent(identity.logical_agent_id)
    resource = graph.resource(attempt.resource_id)
    if origin is None or agent is None or resource is None:
        return {Reason.NO_ACTIVE_DELEGATION}
    tenants = {origin.organisation_id, agent.organisation_id, resource.organisation_id}
    return {Reason.TENANT_MISMATCH} if len(tenants) > 1 else set()


def _proposal_overreaches(
    graph: IdentityGraph,
    ledger: Ledger,
    attempt: ActionAttempt,
    leaf: Delegation | None,
) -> bool:
    """A proposed child must attenuate the covering leaf and come from a related delegator.

    With no covering chain there is no parent to compare against; the missing
    chain already denies the action.
    """

    proposal = attempt.proposed_delegation
    if proposal is None or leaf is None:
        return False
    return not is_attenuated(proposal, leaf) or not delegator_is_permitted(
        graph, ledger.runtimes, proposal, leaf
    )
