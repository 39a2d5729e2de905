"""Streams the replay rules forbid are refused whole, as synthworld's builder refuses them."""

from collections.abc import Callable
from datetime import timedelta, timezone

import pytest
from auditor_worlds import WorldKit, borealis_kit, cobalt_kit, credential, runtime
from synthworld.agentic import AgenticReplayError
from synthworld.agentic.models import (
    AuditPerformed,
    CredentialIssued,
    DelegationGranted,
    DelegationRevoked,
    EvidenceDiscarded,
    RuntimeSpawned,
)

from authority_auditor import AuditRejected, audit_public_bundle


def _grant_edit(event_id: str, **update: object) -> Callable[[WorldKit], WorldKit]:
    def edit(kit: WorldKit) -> WorldKit:
        payload = kit.event(event_id).payload
        assert isinstance(payload, DelegationGranted)
        changed = payload.delegation.model_copy(update=update)
        return kit.edit(event_id, payload=DelegationGranted(delegation=changed))

    return edit


def _capability_edit(event_id: str, **update: object) -> Callable[[WorldKit], WorldKit]:
    def edit(kit: WorldKit) -> WorldKit:
        payload = kit.event(event_id).payload
        assert isinstance(payload, DelegationGranted)
        capability = payload.delegation.capability.model_copy(update=update)
        changed = payload.delegation.model_copy(update={"capability": capability})
        return kit.edit(event_id, payload=DelegationGranted(delegation=changed))

    return edit


def _inserted(after_id: str, event_id: str, payload: object) -> Callable[[WorldKit], WorldKit]:
    def edit(kit: WorldKit) -> WorldKit:
        template = kit.event(after_id)
        return kit.insert_after(
            after_id, template.model_copy(update={"id": event_id, "payload": payload})
        )

    return edit


def _retimed(event_id: str, minutes: int) -> Callable[[WorldKit], WorldKit]:
    def edit(kit: WorldKit) -> WorldKit:
        at = kit.event(event_id).occurred_at + timedelta(minutes=minutes)
        return kit.edit(event_id, occurred_at=at)

    return edit


def _foreign_invoice_owner(kit: WorldKit) -> WorldKit:
    resources = tuple(
        item.model_copy(update={"owner_principal_id": "bp-kestrel"})
        if item.id == "br-invoices"
        else item
        for item in kit.snapshot.resources
    )
    kit.snapshot = kit.snapshot.model_copy(update={"resources": resources})
    return kit


def _proposal_edit(**update: object) -> Callable[[WorldKit], WorldKit]:
    def edit(kit: WorldKit) -> WorldKit:
        proposal = kit.attempt_of("c-propose-early").proposed_delegation
        assert proposal is not None
        changed = proposal.model_copy(update=update)
        return kit.edit_attempt("c-propose-early", proposed_delegation=changed)

    return edit


_B = borealis_kit
_C = cobalt_kit
_B_START = borealis_kit().start

CASES: dict[str, tuple[Callable[[], WorldKit], Callable[[WorldKit], WorldKit], str]] = {
    "equal timestamps": (_B, _retimed("grant-bd-ship-1", -1), "strictly follow"),
    "index gap": (
        _B,
        lambda kit: kit.edit("audit-borealis-quarterly", event_index=99),
        "contiguous",
    ),
    "duplicate event id": (
        _B,
        lambda kit: kit.edit("b-read-north", id="grant-bd-ship-1"),
        "unique",
    ),
    "revoke unknown": (
        _B,
        lambda kit: kit.edit("revoke-bd-ship-1", payload=DelegationRevoked(delegation_id="nope")),
        "revokes an unknown",
    ),
    "revoke twice": (
        _B,
        _inserted("revoke-bd-ship-1", "revoke-again", DelegationRevoked(delegation_id="bd-ship-1")),
        "revokes an unknown or revoked",
    ),
    "discard unretained": (
        _B,
        _inserted("b-read-north", "discard-x", EvidenceDiscarded(evidence_refs=("evidence:x",))),
        "not retained",
    ),
    "duplicate grant": (
        _B,
        _grant_edit("grant-bd-ship-2", id="bd-ship-1"),
        "granted twice",
    ),
    "grant to unknown agent": (
        _B,
        _grant_edit("grant-bd-ship-1", grantee_agent_id="ba-ghost"),
        "unknown record",
    ),
    "grant before its window": (
        _B,
        _grant_edit(
            "grant-bd-invoices",
            valid_from=_B_START + timedelta(hours=1),
        ),
        "outside its own validity",
    ),
    "root delegator unrelated to the resource": (
        _B,
        _grant_edit("grant-bd-ship-1", delegator_principal_id="bp-dispatch-svc"),
        "delegator",
    ),
    "delegator from another tenant": (
        _B,
        _grant_edit("grant-bd-ship-1", delegator_principal_id="bp-kestrel"),
        "delegator",
    ),
    "child widens its parent": (
        _C,
        _capability_edit("grant-cd-child", scopes=("set:alpha", "set:gamma")),
        "widens",
    ),
    "child of a revoked parent": (
        _C,
        _inserted("grant-cd-root", "revoke-root-early", DelegationRevoked(delegation_id="cd-root")),
        "needs an active parent",
    ),
    "child granted to an agent that is not the parent's child": (
        _C,
        _grant_edit("grant-cd-child", grantee_agent_id="ca-orchestrator"),
        "delegator",
    ),
    "resource owned across the tenant boundary": (_B, _foreign_invoice_owner, "crosses"),
    "duplicate credential": (
        _B,
        _inserted(
            "issue-bc-dispatch",
            "issue-again",
            CredentialIssued(
                credential=credential(
                    "bc-dispatch",
                    "bp-borealis",
                    "bp-dispatch-wl",
                    _B_START,
                    _B_START + timedelta(hours=9),
                )
            ),
        ),
        "issued twice",
    ),
    "credential for an unknown subject": (
        _B,
        _inserted(
            "issue-bc-dispatch",
            "issue-ghost",
            CredentialIssued(
                credential=credential(
                    "bc-ghost", "bp-borealis", "bp-ghost", _B_START, _B_START + timedelta(hours=9)
                )
            ),
        ),
        "unknown principal",
    ),
    "credential issued after expiry": (
        _B,
        _inserted(
            "issue-bc-dispatch",
            "issue-stale",
            CredentialIssued(
                credential=credential(
                    "bc-stale",
                    "bp-borealis",
                    "bp-dispatch-wl",
                    _B_START - timedelta(hours=2),
                    _B_START,
                )
            ),
        ),
        "outside its own validity",
    ),
    "duplicate runtime": (
        _B,
        _inserted(
            "spawn-bt-kestrel",
            "spawn-again",
            RuntimeSpawned(
                runtime=runtime(
                    "bt-kestrel", "ba-kestrel-bot", "bp-kestrel-wl", "bp-kestrel", "bo-kestrel"
                )
            ),
        ),
        "spawned twice",
    ),
    "runtime not owned by its agent's owner": (
        _B,
        _inserted(
            "spawn-bt-kestrel",
            "spawn-odd",
            RuntimeSpawned(
                runtime=runtime(
                    "bt-odd", "ba-dispatch", "bp-dispatch-wl", "bp-finance", "bo-borealis"
                )
            ),
        ),
        "not owned",
    ),
    "runtime for an unknown agent": (
        _B,
        _inserted(
            "spawn-bt-kestrel",
            "spawn-ghost",
            RuntimeSpawned(
                runtime=runtime(
                    "bt-ghost", "ba-ghost", "bp-dispatch-wl", "bp-ops-lead", "bo-borealis"
                )
            ),
        ),
        "unknown identity",
    ),
    "runtime principal outside its owner's subtree": (
        _B,
        _inserted(
            "spawn-bt-kestrel",
            "spawn-stray",
            RuntimeSpawned(
                runtime=runtime(
                    "bt-stray", "ba-dispatch", "bp-finance", "bp-ops-lead", "bo-borealis"
                )
            ),
        ),
        "misses its owner",
    ),
    "runtime spanning tenants": (
        _B,
        _inserted(
            "spawn-bt-kestrel",
            "spawn-mixed",
            RuntimeSpawned(
                runtime=runtime(
                    "bt-mixed", "ba-dispatch", "bp-kestrel-wl", "bp-ops-lead", "bo-borealis"
                )
            ),
        ),
        "spans organisations",
    ),
    "action with an unissued credential": (
        _B,
        lambda kit: kit.edit_attempt("b-read-north", presented_credential_id="bc-ghost"),
        "not yet issued",
    ),
    "action on an undeclared verb": (
        _B,
        lambda kit: kit.edit_attempt("b-read-north", action="delete"),
        "undeclared resource action",
    ),
    "unknown principal claim": (
        _B,
        lambda kit: kit.edit_attempt("b-read-north", attributed_actor_claim="bp-ghost"),
        "unknown principal",
    ),
    "unknown agent claim": (
        _B,
        lambda kit: kit.edit_attempt("b-read-north", logical_agent_claim="ba-ghost"),
        "unknown logical agent",
    ),
    "proposal for an unknown agent": (
        _C,
        _proposal_edit(grantee_agent_id="ca-ghost"),
        "broken references",
    ),
    "proposal under an ungranted parent": (
        _C,
        _proposal_edit(parent_delegation_id="cd-ghost"),
        "broken references",
    ),
    "citing evidence already discarded": (
        _B,
        lambda kit: kit.edit_attempt(
            "b-misattributed-invoice-read", evidence_refs=("evidence:delegation:bd-invoices",)
        ),
        "not retained",
    ),
}


@pytest.mark.parametrize(("make_kit", "mutate", "message"), CASES.values(), ids=CASES.keys())
def test_the_auditor_refuses_the_whole_stream(
    make_kit: Callable[[], WorldKit], mutate: Callable[[WorldKit], WorldKit], message: str
) -> None:
    kit = mutate(make_kit())

    with pytest.raises(AuditRejected, match=message):
        audit_public_bundle(kit.public())


@pytest.mark.parametrize(("make_kit", "mutate", "message"), CASES.values(), ids=CASES.keys())
def test_synthworld_refuses_the_same_stream(
    make_kit: Callable[[], WorldKit], mutate: Callable[[WorldKit], WorldKit], message: str
) -> None:
    """Parity check: each refusal matches a refusal by the package that derives truth."""

    kit = mutate(make_kit())

    with pytest.raises(AgenticReplayError):
        kit.build()


def test_a_timestamp_outside_utc_is_refused() -> None:
    kit = borealis_kit()
    event = kit.event("b-read-north")
    shifted = event.occurred_at.astimezone(timezone(timedelta(hours=2)))
    kit.edit(event.id, occurred_at=shifted)

    with pytest.raises(AuditRejected, match="UTC"):
        audit_public_bundle(kit.public())


def test_the_scenario_audit_event_must_be_an_audit() -> None:
    kit = borealis_kit()
    audit = kit.event("audit-borealis-quarterly")
    assert isinstance(audit.payload, AuditPerformed)
    public = kit.public()
    misdirected = public.model_copy(
        update={"scenario": public.scenario.model_copy(update={"audit_event_id": "b-read-north"})}
    )

    with pytest.raises(AuditRejected, match="audit event"):
        audit_public_bundle(misdirected)
