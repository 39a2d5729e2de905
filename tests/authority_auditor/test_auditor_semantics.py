"""Unit tests for the replay rules that are easiest to get subtly wrong."""

from datetime import timedelta

import pytest
from auditor_worlds import (
    COPY_CREDENTIAL_EXPIRES,
    NARROW_EXPIRES,
    borealis_kit,
    cobalt_kit,
    dunmore_kit,
)
from synthworld.agentic import AgenticReplayError
from synthworld.agentic.models import (
    ActionAttempted,
    AgenticEvent,
    AgenticPublicBundle,
    AuthorityFailureReason,
    Decision,
    DelegationGranted,
)

from authority_auditor import audit_public_bundle
from authority_auditor.authority import Verdict, judge
from authority_auditor.binding import ActingIdentity, resolve_identity
from authority_auditor.coverage import find_cover
from authority_auditor.errors import AuditRejected
from authority_auditor.identities import IdentityGraph
from authority_auditor.timeline import Timeline, replay
from authority_auditor.windows import is_in_force

Reason = AuthorityFailureReason


class Replayed:
    """One public bundle replayed, with helpers to judge any of its actions."""

    def __init__(self, public: AgenticPublicBundle) -> None:
        self.public = public
        self.graph = IdentityGraph(public.snapshot)
        self.timeline: Timeline = replay(public, self.graph)

    def event(self, event_id: str) -> AgenticEvent:
        return next(event for event in self.public.events if event.id == event_id)

    def identity(self, event_id: str) -> ActingIdentity:
        event = self.event(event_id)
        assert isinstance(event.payload, ActionAttempted)
        return resolve_identity(self.graph, self.timeline.before(event), event.payload.attempt)

    def verdict(self, event_id: str, *, shift: timedelta = timedelta(0)) -> Verdict:
        event = self.event(event_id)
        assert isinstance(event.payload, ActionAttempted)
        ledger = self.timeline.before(event)
        return judge(
            self.graph,
            ledger,
            self.identity(event_id),
            event.payload.attempt,
            event.occurred_at + shift,
        )


# --- time validity ---------------------------------------------------------------


def test_validity_window_is_inclusive_at_start_and_exclusive_at_expiry() -> None:
    start = NARROW_EXPIRES - timedelta(minutes=30)
    tick = timedelta(microseconds=1)

    assert not is_in_force(start, NARROW_EXPIRES, start - tick)
    assert is_in_force(start, NARROW_EXPIRES, start)
    assert is_in_force(start, NARROW_EXPIRES, NARROW_EXPIRES - tick)
    assert not is_in_force(start, NARROW_EXPIRES, NARROW_EXPIRES)


def test_a_delegation_stops_covering_at_its_expiry_instant() -> None:
    world = Replayed(dunmore_kit().public())
    tick = timedelta(microseconds=1)

    assert world.verdict("d-desk-read-at-expiry", shift=-tick).chain == ("dd-a-narrow",)
    assert world.verdict("d-desk-read-at-expiry").chain == ("dd-z-broad",)


def test_a_credential_is_invalid_at_its_expiry_instant_but_the_chain_is_kept() -> None:
    world = Replayed(dunmore_kit().public())
    event = world.event("d-copy-read-credential-expired")
    assert event.occurred_at == COPY_CREDENTIAL_EXPIRES

    at_expiry = world.verdict(event.id)
    just_before = world.verdict(event.id, shift=-timedelta(microseconds=1))

    assert at_expiry.decision is Decision.DENY
    assert at_expiry.reasons == {Reason.CREDENTIAL_INVALID}
    assert at_expiry.chain == ("dd-z-broad", "dd-fact", "dd-copy")
    assert just_before.decision is Decision.ALLOW


def test_a_grant_whose_window_opens_at_the_grant_instant_is_accepted() -> None:
    kit = dunmore_kit()
    grant = next(event for event in kit.events if event.id == "grant-dd-fact")
    assert isinstance(grant.payload, DelegationGranted)
    assert grant.payload.delegation.valid_from == grant.occurred_at

    world = Replayed(kit.public())

    assert world.verdict("d-copy-read-grandchild").decision is Decision.ALLOW


# --- effective at own index --------------------------------------------------------


def test_revocation_takes_effect_at_its_own_index() -> None:
    world = Replayed(borealis_kit().public())
    revoke = world.event("revoke-bd-ship-1")

    assert "bd-ship-1" not in world.timeline.ledgers[revoke.event_index - 1].revoked
    assert "bd-ship-1" in world.timeline.ledgers[revoke.event_index].revoked
    assert world.verdict("b-read-north").decision is Decision.ALLOW
    after = world.verdict("b-update-after-revoke")
    assert after.reasons == {Reason.DELEGATION_REVOKED}
    assert after.chain == ()


def test_a_later_grant_does_not_reach_back_to_an_earlier_action() -> None:
    world = Replayed(borealis_kit().public())
    regrant = world.event("grant-bd-ship-2")
    update = world.event("b-update-after-revoke")
    assert update.event_index < regrant.event_index

    assert world.verdict(update.id).decision is Decision.DENY
    assert world.verdict("b-read-south-regranted").chain == ("bd-ship-2",)


def test_revoking_a_delegation_withdraws_its_whole_subtree_only() -> None:
    world = Replayed(dunmore_kit().public())
    revoke = world.event("revoke-dd-fact")

    assert world.timeline.ledgers[revoke.event_index].revoked == {"dd-fact", "dd-copy"}
    assert world.verdict("d-copy-read-after-cascade").chain == ()
    assert world.verdict("d-desk-unaffected-by-child-revoke").decision is Decision.ALLOW


def test_evidence_discard_makes_a_still_authorised_action_unreconstructable() -> None:
    rows = {row.event_id: row for row in audit_public_bundle(borealis_kit().public()).rows}

    assert rows["b-read-invoices"].decision is Decision.ALLOW
    assert rows["b-read-invoices"].reconstructable_from_retained_evidence is False
    assert rows["b-read-north"].reconstructable_from_retained_evidence is True


# --- child-delegation runtime ordering --------------------------------------------


def test_child_grant_through_a_runtime_path_needs_the_runtime_spawned_first() -> None:
    reordered = cobalt_kit().move_after("spawn-ct-orch-1", after_id="grant-cd-child")

    with pytest.raises(AuditRejected, match="delegator"):
        replay(reordered.public(), IdentityGraph(reordered.snapshot))
    with pytest.raises(AgenticReplayError):
        reordered.build()


def test_a_proposal_gains_standing_once_the_delegator_runtime_exists() -> None:
    world = Replayed(cobalt_kit().public())
    event = world.event("c-propose-early")
    assert isinstance(event.payload, ActionAttempted)
    audit = world.event("audit-cobalt-review")

    at_action = world.verdict(event.id)
    at_audit = judge(
        world.graph,
        world.timeline.before(audit),
        world.identity(event.id),
        event.payload.attempt,
        audit.occurred_at,
    )

    assert at_action.reasons == {Reason.OVERPRIVILEGED_SUBDELEGATION}
    assert at_action.chain == ("cd-root",)
    assert at_audit.decision is Decision.ALLOW


# --- covering-chain selection ------------------------------------------------------


def test_selection_takes_the_smallest_id_not_the_first_granted() -> None:
    world = Replayed(dunmore_kit().public())

    assert world.verdict("d-desk-read-narrow").chain == ("dd-a-narrow",)
    assert world.verdict("d-desk-annotate-broad").chain == ("dd-z-broad",)


def test_chain_is_expanded_root_first() -> None:
    world = Replayed(dunmore_kit().public())

    assert world.verdict("d-copy-read-grandchild").chain == ("dd-z-broad", "dd-fact", "dd-copy")


def test_selection_is_version_blind_and_the_version_is_compared_afterwards() -> None:
    world = Replayed(cobalt_kit().public())
    event = world.event("c-publish-old-version")
    assert isinstance(event.payload, ActionAttempted)
    assert event.payload.attempt.policy_version == "cob-v1"

    verdict = world.verdict(event.id)

    assert verdict.chain == ("cd-reports-v2",)
    assert verdict.policy_version == "cob-v2"
    assert verdict.reasons == {Reason.POLICY_VERSION_MISMATCH}


def test_covering_delegations_that_disagree_on_version_make_the_world_ambiguous() -> None:
    kit = cobalt_kit()
    twin = kit.event("grant-cd-reports-v2")
    assert isinstance(twin.payload, DelegationGranted)
    kit.insert_after(
        twin.id,
        twin.model_copy(
            update={
                "id": "grant-cd-reports-v1",
                "payload": DelegationGranted(
                    delegation=twin.payload.delegation.model_copy(
                        update={"id": "cd-reports-v1", "policy_version": "cob-v1"}
                    )
                ),
            }
        ),
    )

    with pytest.raises(AuditRejected, match="disagree on policy version"):
        audit_public_bundle(kit.public())
    with pytest.raises(AgenticReplayError):
        kit.build()


def test_nothing_covering_reports_why() -> None:
    world = Replayed(borealis_kit().public())
    ledger = world.timeline.ledgers[-1]
    event = world.event("b-read-north")
    assert isinstance(event.payload, ActionAttempted)
    attempt = event.payload.attempt

    other_purpose = attempt.model_copy(update={"purpose": "unrelated"})
    cover = find_cover(ledger, "ba-dispatch", "bp-ops-lead", other_purpose, event.occurred_at)
    nobody = find_cover(ledger, "ba-dispatch", None, attempt, event.occurred_at)

    assert cover.gap is Reason.CAPABILITY_EXCEEDED
    assert nobody.gap is Reason.NO_ACTIVE_DELEGATION
