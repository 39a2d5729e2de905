"""Replay the public event stream into one ledger per prefix.

Promise: `replay` validates the complete stream, then exposes the ledger in force
immediately before any event, with grants, credential issues, runtime spawns,
revocations and evidence discards effective at their own index. A grant whose
provenance breaks the bounded v1 rules, or any other record the rules cannot
place, rejects the whole stream. Must not import agent_assay, nor synthworld's
replay, relationship-derivation or evaluator helpers (this module is the
auditor's own replay).
"""

from dataclasses import dataclass, replace
from datetime import datetime

from synthworld.agentic.models import (
    ActionAttempt,
    ActionAttempted,
    AgenticEvent,
    AgenticPublicBundle,
    AuditPerformed,
    Credential,
    CredentialIssued,
    Delegation,
    DelegationGranted,
    DelegationRevoked,
    EvidenceDiscarded,
    Runtime,
    RuntimeSpawned,
)

from authority_auditor.errors import AuditRejected
from authority_auditor.identities import IdentityGraph
from authority_auditor.ledger import Ledger
from authority_auditor.ordering import require_replayable_order
from authority_auditor.provenance import delegator_is_permitted, is_attenuated
from authority_auditor.windows import is_in_force


@dataclass(frozen=True)
class Timeline:
    """Ledgers indexed by how many events have been applied."""

    ledgers: tuple[Ledger, ...]

    def before(self, event: AgenticEvent) -> Ledger:
        """Return the state an event is judged against: everything strictly earlier."""

        return self.ledgers[event.event_index - 1]


def replay(public: AgenticPublicBundle, graph: IdentityGraph) -> Timeline:
    """Validate and apply every public event in order."""

    require_replayable_order(public.events)
    ledger = Ledger.initial(public.snapshot.initial_evidence_refs)
    ledgers = [ledger]
    for event in public.events:
        ledger = _apply(graph, ledger, event)
        ledgers.append(ledger)
    return Timeline(tuple(ledgers))


def _apply(graph: IdentityGraph, ledger: Ledger, event: AgenticEvent) -> Ledger:
    retained = ledger.retained | set(event.evidence_refs)
    after = replace(ledger, retained=retained)
    match event.payload:
        case DelegationGranted(delegation=delegation):
            _admit_grant(graph, ledger, delegation, event.occurred_at)
            return replace(after, delegations=(*ledger.delegations, delegation))
        case CredentialIssued(credential=credential):
            _admit_credential(graph, ledger, credential, event.occurred_at)
            return replace(after, credentials=(*ledger.credentials, credential))
        case RuntimeSpawned(runtime=runtime):
            _admit_runtime(graph, ledger, runtime)
            return replace(after, runtimes=(*ledger.runtimes, runtime))
        case DelegationRevoked(delegation_id=delegation_id):
            if ledger.delegation(delegation_id) is None or delegation_id in ledger.revoked:
                raise AuditRejected(f"{event.id} revokes an unknown or revoked delegation")
            withdrawn = {delegation_id, *ledger.descendants(delegation_id)}
            return replace(after, revoked=ledger.revoked | withdrawn)
        case EvidenceDiscarded(evidence_refs=discarded):
            if not set(discarded) <= retained:
                raise AuditRejected(f"{event.id} discards evidence that is not retained")
            return replace(after, retained=retained - set(discarded))
        case ActionAttempted(attempt=attempt):
            _admit_action(graph, ledger, attempt, event.id)
            return after
        case AuditPerformed():
            return after


def _admit_grant(
    graph: IdentityGraph, ledger: Ledger, delegation: Delegation, at: datetime
) -> None:
    label = f"delegation {delegation.id}"
    if ledger.delegation(delegation.id) is not None:
        raise AuditRejected(f"{label} is granted twice")
    if _names_unknown_records(graph, delegation):
        raise AuditRejected(f"{label} references an unknown record")
    if not is_in_force(delegation.valid_from, delegation.expires_at, at):
        raise AuditRejected(f"{label} is granted outside its own validity")
    parent = None
    if delegation.parent_delegation_id is not None:
        parent = ledger.delegation(delegation.parent_delegation_id)
        if parent is None or parent.id in ledger.revoked:
            raise AuditRejected(f"{label} needs an active parent")
        if not is_attenuated(delegation, parent):
            raise AuditRejected(f"{label} widens its parent")
    if not delegator_is_permitted(graph, ledger.runtimes, delegation, parent):
        raise AuditRejected(f"{label} has a delegator outside the v1 authority chain")


def _admit_credential(
    graph: IdentityGraph, ledger: Ledger, credential: Credential, at: datetime
) -> None:
    label = f"credential {credential.id}"
    if ledger.credential(credential.id) is not None:
        raise AuditRejected(f"{label} is issued twice")
    named = (
        credential.issuer_principal_id,
        credential.subject_principal_id,
        *credential.allowed_runtime_principal_ids,
    )
    if any(graph.principal(item) is None for item in named):
        raise AuditRejected(f"{label} references an unknown principal")
    if not is_in_force(credential.valid_from, credential.expires_at, at):
        raise AuditRejected(f"{label} is issued outside its own validity")


def _admit_runtime(graph: IdentityGraph, ledger: Ledger, runtime: Runtime) -> None:
    if ledger.runtime(runtime.id) is not None:
        raise AuditRejected(f"runtime {runtime.id} is spawned twice")
    graph.runtime_path(runtime)


def _admit_action(
    graph: IdentityGraph, ledger: Ledger, attempt: ActionAttempt, event_id: str
) -> None:
    if ledger.credential(attempt.presented_credential_id) is None:
        raise AuditRejected(f"{event_id} presents a credential not yet issued")
    resource = graph.resource(attempt.resource_id)
    if resource is None or attempt.action not in resource.actions:
        raise AuditRejected(f"{event_id} targets an undeclared resource action")
    principal_claims = (
        attempt.originating_principal_claim,
        attempt.runtime_principal_claim,
        attempt.attributed_actor_claim,
    )
    if any(claim is not None and graph.principal(claim) is None for claim in principal_claims):
        raise AuditRejected(f"{event_id} claims an unknown principal")
    if attempt.logical_agent_claim is not None and graph.agent(attempt.logical_agent_claim) is None:
        raise AuditRejected(f"{event_id} claims an unknown logical agent")
    if not set(attempt.evidence_refs) <= ledger.retained:
        raise AuditRejected(f"{event_id} cites evidence not retained at action time")
    proposal = attempt.proposed_delegation
    if proposal is not None and (
        _names_unknown_records(graph, proposal)
        or (
            proposal.parent_delegation_id is not None
            and ledger.delegation(proposal.parent_delegation_id) is None
        )
    ):
        raise AuditRejected(f"{event_id} proposes a delegation with broken references")


def _names_unknown_records(graph: IdentityGraph, delegation: Delegation) -> bool:
    """A delegation, granted or proposed, must name only records the snapshot defines."""

    return (
        graph.principal(delegation.originating_principal_id) is None
        or graph.principal(delegation.delegator_principal_id) is None
        or graph.agent(delegation.grantee_agent_id) is None
        or any(graph.resource(item) is None for item in delegation.capability.resource_ids)
        or delegation.policy_version not in graph.policy_versions
    )
