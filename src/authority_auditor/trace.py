"""Turn one audited action into an observed-action row, and rows into JSONL.

Promise: each row reports the acting identities, the action-time decision and the
decision at audit, the side effect, the policy version and covering chain the
action-time check used, the required evidence and whether it survives to the
audit. Evidence fields stay None when no runtime could be resolved, because the
required set cannot be stated without one. Serialisation writes one JSON object
per line in row order. Must not import agent_assay, nor synthworld's replay,
relationship-derivation or evaluator helpers (so the JSONL writer is our own).
"""

from collections.abc import Set

from synthworld.agentic.models import (
    ActionAttempt,
    AgenticEvent,
    AgenticTraceSubmission,
    ObservedActionTrace,
)

from authority_auditor.authority import Verdict
from authority_auditor.binding import ActingIdentity
from authority_auditor.effects import side_effect_for
from authority_auditor.evidence import reconstructable, required_evidence


def observed_row(
    event: AgenticEvent,
    attempt: ActionAttempt,
    identity: ActingIdentity,
    at_action: Verdict,
    at_audit: Verdict,
    retained_at_audit: Set[str],
) -> ObservedActionTrace:
    """Assemble the row the auditor submits for one action event."""

    required = (
        None
        if identity.runtime_id is None
        else required_evidence(
            at_action.policy_version,
            identity.credential_id,
            identity.runtime_id,
            at_action.chain,
        )
    )
    return ObservedActionTrace(
        event_id=event.id,
        timestamp=event.occurred_at,
        originating_principal_id=identity.originating_principal_id,
        logical_agent_id=identity.logical_agent_id,
        runtime_principal_id=identity.runtime_principal_id,
        credential_subject_id=identity.credential_subject_id,
        attributed_actor_id=identity.attributed_actor_id,
        resource_id=attempt.resource_id,
        action=attempt.action,
        requested_scope=attempt.requested_scope,
        decision=at_action.decision,
        decision_at_audit=at_audit.decision,
        side_effect=side_effect_for(attempt.action, at_action.decision),
        policy_version=at_action.policy_version,
        delegation_chain_ids=at_action.chain,
        accountable_owner_chain=identity.accountable_owner_chain,
        evidence_refs=required,
        reconstructable_from_retained_evidence=(
            None if required is None else reconstructable(required, retained_at_audit)
        ),
    )


def submission_jsonl(submission: AgenticTraceSubmission) -> str:
    """Serialise rows as JSONL, one complete row per line, in submission order."""

    return "".join(f"{row.model_dump_json()}\n" for row in submission.rows)
