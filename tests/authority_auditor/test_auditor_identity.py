"""Who acted: resolving public claims into the binding the auditor reports."""

import pytest
from auditor_worlds import WorldKit, borealis_kit, cobalt_kit, imperfect, runtime
from synthworld.agentic import evaluate_agentic_trace
from synthworld.agentic.models import (
    ActionAttempted,
    Decision,
    ObservedActionTrace,
    RuntimeSpawned,
)

from authority_auditor import AuditRejected, audit_public_bundle
from authority_auditor.binding import resolve_identity
from authority_auditor.identities import IdentityGraph
from authority_auditor.ledger import Ledger


def _audited(kit: WorldKit, event_id: str) -> ObservedActionTrace:
    return next(row for row in audit_public_bundle(kit.public()).rows if row.event_id == event_id)


def test_missing_agent_claim_is_taken_from_the_runtime() -> None:
    kit = cobalt_kit()
    assert kit.attempt_of("c-publish-old-version").logical_agent_claim is None

    rows = {row.event_id: row for row in audit_public_bundle(kit.public()).rows}

    assert rows["c-publish-old-version"].logical_agent_id == "ca-orchestrator"


def test_missing_runtime_claim_is_narrowed_by_agent_then_credential() -> None:
    kit = cobalt_kit()
    assert kit.attempt_of("c-publish-current-version").runtime_principal_claim is None

    row = _audited(kit, "c-publish-current-version")

    assert row.runtime_principal_id == "cp-orch-wl-2"
    assert row.evidence_refs is not None
    assert "evidence:runtime:ct-orch-2" in row.evidence_refs


def test_with_no_identity_claims_the_credential_picks_the_runtime() -> None:
    kit = cobalt_kit().edit_attempt(
        "c-summarise-alpha",
        logical_agent_claim=None,
        runtime_principal_claim=None,
        originating_principal_claim=None,
        attributed_actor_claim=None,
    )
    benchmark = kit.build()

    report = evaluate_agentic_trace(audit_public_bundle(benchmark.public), benchmark=benchmark)

    assert imperfect(report) == {}


def test_an_unresolvable_runtime_leaves_evidence_uncaptured() -> None:
    kit = cobalt_kit()
    twin = kit.event("spawn-ct-sum")
    assert isinstance(twin.payload, RuntimeSpawned)
    kit.insert_after(
        twin.id,
        twin.model_copy(
            update={
                "id": "spawn-ct-sum-twin",
                "payload": RuntimeSpawned(
                    runtime=runtime(
                        "ct-sum-twin", "ca-summariser", "cp-sum-wl", "cp-lab-head", "co-cobalt"
                    )
                ),
            }
        ),
    )

    row = _audited(kit, "c-summarise-alpha")

    assert row.runtime_principal_id == "cp-sum-wl"
    assert row.evidence_refs is None
    assert row.reconstructable_from_retained_evidence is None
    assert row.decision is Decision.DENY


def test_an_attribution_claim_off_both_identity_paths_is_replaced() -> None:
    rows = {row.event_id: row for row in audit_public_bundle(borealis_kit().public()).rows}

    assert rows["b-misattributed-invoice-read"].attributed_actor_id == "bp-dispatch-svc"


@pytest.mark.parametrize(
    ("claim", "expected"),
    [(None, "cp-sum-svc"), ("cp-orch-svc", "cp-orch-svc"), ("cp-lab-head", "cp-sum-svc")],
)
def test_attribution_with_mismatched_runtime_and_credential(
    claim: str | None, expected: str
) -> None:
    """Either identity path is defensible; a claim on one of them is kept, else the runtime's."""

    kit = cobalt_kit().edit_attempt(
        "c-summariser-with-parent-credential", attributed_actor_claim=claim
    )

    row = _audited(kit, "c-summariser-with-parent-credential")

    assert row.attributed_actor_id == expected


def test_an_origin_claim_from_another_tenant_falls_back_to_the_sole_originator() -> None:
    kit = borealis_kit().edit_attempt("b-read-north", originating_principal_claim="bp-kestrel")

    row = _audited(kit, "b-read-north")

    assert row.originating_principal_id == "bp-ops-lead"
    assert row.decision is Decision.ALLOW


def test_an_agent_nobody_delegated_to_has_no_inferable_origin() -> None:
    kit = borealis_kit().edit_attempt("b-kestrel-reads-shipments", originating_principal_claim=None)

    row = _audited(kit, "b-kestrel-reads-shipments")

    assert row.originating_principal_id is None
    assert row.decision is Decision.DENY
    assert row.accountable_owner_chain == ("bp-kestrel",)


def test_resolving_against_a_ledger_without_the_credential_is_refused() -> None:
    kit = borealis_kit()
    payload = kit.event("b-read-north").payload
    assert isinstance(payload, ActionAttempted)

    with pytest.raises(AuditRejected, match="not yet issued"):
        resolve_identity(IdentityGraph(kit.snapshot), Ledger.initial(()), payload.attempt)


def test_credential_subject_comes_from_the_presented_credential() -> None:
    rows = {row.event_id: row for row in audit_public_bundle(cobalt_kit().public()).rows}

    wrong_runtime = rows["c-summariser-with-parent-credential"]
    assert wrong_runtime.runtime_principal_id == "cp-sum-wl"
    assert wrong_runtime.credential_subject_id == "cp-orch-wl-1"


def test_an_owner_chain_that_leaves_the_agents_tenant_is_refused() -> None:
    kit = borealis_kit()
    agents = tuple(
        item.model_copy(update={"owner_principal_id": "bp-ops-lead"})
        if item.id == "ba-kestrel-bot"
        else item
        for item in kit.snapshot.agents
    )
    graph = IdentityGraph(kit.snapshot.model_copy(update={"agents": agents}))

    assert graph.agent_owner_chain("ba-dispatch") == ("bp-ops-lead", "bp-borealis")
    with pytest.raises(AuditRejected, match="crosses organisations"):
        graph.agent_owner_chain("ba-kestrel-bot")


@pytest.mark.parametrize(
    ("event_id", "version", "expected"),
    [
        ("c-publish-current-version", "cob-v9", "cob-v2"),
        ("c-summarise-alpha", "cob-v9", "cob-v1"),
    ],
)
def test_an_unregistered_attempted_version_is_denied_but_the_cover_still_names_its_own(
    event_id: str, version: str, expected: str
) -> None:
    kit = cobalt_kit().edit_attempt(event_id, policy_version=version)
    benchmark = kit.build()
    submission = audit_public_bundle(benchmark.public)

    row = next(row for row in submission.rows if row.event_id == event_id)

    assert row.decision is Decision.DENY
    assert row.policy_version == expected
    assert imperfect(evaluate_agentic_trace(submission, benchmark=benchmark)) == {}


def test_with_nothing_covering_the_attempted_version_stands() -> None:
    kit = cobalt_kit().edit_attempt(
        "c-summarise-alpha", purpose="unrelated", policy_version="cob-v2"
    )
    benchmark = kit.build()
    submission = audit_public_bundle(benchmark.public)

    row = next(row for row in submission.rows if row.event_id == "c-summarise-alpha")

    assert row.delegation_chain_ids == ()
    assert row.policy_version == "cob-v2"
    assert imperfect(evaluate_agentic_trace(submission, benchmark=benchmark)) == {}
