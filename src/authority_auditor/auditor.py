"""Audit a public bundle: replay it, then judge every action twice.

Promise: exactly one observed-action row per public action event, in stream order,
each judged at action time against the ledger immediately before it and again at
audit against the ledger immediately before the scenario's audit event. Reads only
the public bundle it is given. Must not import agent_assay, nor synthworld's
replay, relationship-derivation or evaluator helpers.
"""

from synthworld.agentic.models import (
    ActionAttempted,
    AgenticPublicBundle,
    AgenticTraceSubmission,
    AuditPerformed,
    ObservedActionTrace,
)

from authority_auditor.authority import judge
from authority_auditor.binding import resolve_identity
from authority_auditor.errors import AuditRejected
from authority_auditor.identities import IdentityGraph
from authority_auditor.timeline import replay
from authority_auditor.trace import observed_row


def audit_bundle(public: AgenticPublicBundle) -> AgenticTraceSubmission:
    """Return the auditor's submission for a public bundle."""

    graph = IdentityGraph(public.snapshot)
    timeline = replay(public, graph)
    audit_event = next(
        (item for item in public.events if item.id == public.scenario.audit_event_id),
        None,
    )
    if audit_event is None or not isinstance(audit_event.payload, AuditPerformed):
        raise AuditRejected("the scenario's audit event is not an audit in the stream")
    audit_ledger = timeline.before(audit_event)

    rows: list[ObservedActionTrace] = []
    for event in public.events:
        if not isinstance(event.payload, ActionAttempted):
            continue
        attempt = event.payload.attempt
        action_ledger = timeline.before(event)
        identity = resolve_identity(graph, action_ledger, attempt)
        at_action = judge(graph, action_ledger, identity, attempt, event.occurred_at)
        at_audit = judge(graph, audit_ledger, identity, attempt, audit_event.occurred_at)
        rows.append(
            observed_row(event, attempt, identity, at_action, at_audit, audit_ledger.retained)
        )
    return AgenticTraceSubmission(rows=tuple(rows))
