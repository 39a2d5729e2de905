"""Hand-written SynthWorld agentic worlds for exercising the auditor.

Every world is built with synthworld's own `build_agentic_benchmark`, so its
evaluator truth comes from the package, not from the auditor. Canonical bindings
are written out by hand for each action. Identifiers deliberately share nothing
with the Asteria fixture.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Self

from synthworld.agentic.models import (
    ActionAttempt,
    ActionAttempted,
    AgenticBenchmark,
    AgenticCase,
    AgenticCaseKind,
    AgenticEvent,
    AgenticEventPayload,
    AgenticPublicBundle,
    AgenticWorldSnapshot,
    AuditPerformed,
    CanonicalBinding,
    Capability,
    Credential,
    CredentialIssued,
    Delegation,
    DelegationGranted,
    DelegationRevoked,
    EvidenceDiscarded,
    LogicalAgent,
    Organisation,
    PolicyVersion,
    Principal,
    PrincipalKind,
    PublicScenario,
    Resource,
    Runtime,
    RuntimeSpawned,
)
from synthworld.agentic.projection import build_agentic_benchmark
from synthworld.evaluation import EvaluationReport

#: The only Asteria v1 metric where 0.0, not 1.0, is the ideal.
LOWER_IS_BETTER = frozenset({"excess_authority_rate"})

Kind = AgenticCaseKind


def imperfect(report: EvaluationReport) -> dict[str, float | None]:
    """Every metric that is not at its ideal value, including undefined ones."""

    return {
        metric.name: metric.value
        for metric in report.metrics
        if metric.value != (0.0 if metric.name in LOWER_IS_BETTER else 1.0)
    }


ORG = PrincipalKind.ORGANISATION
HUMAN = PrincipalKind.HUMAN
SERVICE = PrincipalKind.SERVICE_ACCOUNT
WORKLOAD = PrincipalKind.WORKLOAD


def principal(
    principal_id: str, kind: PrincipalKind, org: str, owner: str | None = None
) -> Principal:
    return Principal(
        id=principal_id,
        kind=kind,
        display_name=principal_id,
        organisation_id=org,
        owner_principal_id=owner,
    )


def agent(agent_id: str, org: str, owner: str, parent: str | None = None) -> LogicalAgent:
    return LogicalAgent(
        id=agent_id,
        display_name=agent_id,
        organisation_id=org,
        owner_principal_id=owner,
        parent_agent_id=parent,
    )


def resource(resource_id: str, org: str, owner: str, *actions: str) -> Resource:
    return Resource(
        id=resource_id,
        display_name=resource_id,
        organisation_id=org,
        owner_principal_id=owner,
        actions=actions,
    )


def snapshot(
    world_id: str,
    orgs: tuple[str, ...],
    principals: tuple[Principal, ...],
    agents: tuple[LogicalAgent, ...],
    resources: tuple[Resource, ...],
    policies: tuple[str, ...],
) -> AgenticWorldSnapshot:
    return AgenticWorldSnapshot(
        world_id=world_id,
        world_version="0.1.0",
        seed=7,
        organisations=tuple(
            Organisation(id=org, display_name=org, tenant_id=f"tenant-{org}") for org in orgs
        ),
        departments=(),
        principals=principals,
        agents=agents,
        resources=resources,
        policies=tuple(PolicyVersion(id=f"pv-{item}", version=item) for item in policies),
        initial_evidence_refs=tuple(f"evidence:policy:{item}" for item in policies),
    )


def delegation(
    delegation_id: str,
    *,
    origin: str,
    delegator: str,
    grantee: str,
    resources: tuple[str, ...],
    actions: tuple[str, ...],
    scopes: tuple[str, ...],
    purpose: str,
    policy: str,
    valid_from: datetime,
    expires_at: datetime,
    parent: str | None = None,
    may_delegate: bool = False,
) -> Delegation:
    return Delegation(
        id=delegation_id,
        originating_principal_id=origin,
        delegator_principal_id=delegator,
        grantee_agent_id=grantee,
        parent_delegation_id=parent,
        capability=Capability(
            resource_ids=resources,
            actions=actions,
            scopes=scopes,
            purpose=purpose,
            may_delegate=may_delegate,
        ),
        policy_version=policy,
        valid_from=valid_from,
        expires_at=expires_at,
    )


def credential(
    credential_id: str, issuer: str, subject: str, start: datetime, end: datetime
) -> Credential:
    return Credential(
        id=credential_id,
        issuer_principal_id=issuer,
        subject_principal_id=subject,
        allowed_runtime_principal_ids=(subject,),
        valid_from=start,
        expires_at=end,
    )


def runtime(runtime_id: str, agent_id: str, workload: str, owner: str, org: str) -> Runtime:
    return Runtime(
        id=runtime_id,
        logical_agent_id=agent_id,
        runtime_principal_id=workload,
        owner_principal_id=owner,
        organisation_id=org,
    )


def attempt(
    *,
    resource_id: str,
    action: str,
    scope: tuple[str, ...],
    credential_id: str,
    origin: str | None,
    agent_id: str | None,
    workload: str | None,
    actor: str | None,
    purpose: str,
    policy: str,
    cited: tuple[str, ...] = (),
    proposal: Delegation | None = None,
) -> ActionAttempt:
    return ActionAttempt(
        originating_principal_claim=origin,
        logical_agent_claim=agent_id,
        runtime_principal_claim=workload,
        presented_credential_id=credential_id,
        attributed_actor_claim=actor,
        resource_id=resource_id,
        action=action,
        requested_scope=scope,
        purpose=purpose,
        policy_version=policy,
        evidence_refs=cited,
        proposed_delegation=proposal,
    )


@dataclass(frozen=True)
class Who:
    """The canonical binding an evaluator author records for one action."""

    origin: str
    agent_id: str
    runtime_id: str
    workload: str
    subject: str
    actor: str
    owners: tuple[str, ...]


@dataclass
class WorldKit:
    """Accumulates an ordered stream plus the evaluator inputs for its actions."""

    snapshot: AgenticWorldSnapshot
    start: datetime
    events: list[AgenticEvent] = field(default_factory=list)
    bindings: list[CanonicalBinding] = field(default_factory=list)
    cases: list[AgenticCase] = field(default_factory=list)

    def add(
        self,
        event_id: str,
        payload: AgenticEventPayload,
        *evidence: str,
        at: datetime | None = None,
    ) -> None:
        previous = self.events[-1].occurred_at if self.events else self.start
        self.events.append(
            AgenticEvent(
                id=event_id,
                event_index=len(self.events) + 1,
                occurred_at=at or previous + timedelta(minutes=1),
                evidence_refs=evidence,
                payload=payload,
            )
        )

    def grant(self, item: Delegation, *, at: datetime | None = None) -> None:
        self.add(
            f"grant-{item.id}",
            DelegationGranted(delegation=item),
            f"evidence:delegation:{item.id}",
            at=at,
        )

    def issue(self, item: Credential, *, at: datetime | None = None) -> None:
        self.add(
            f"issue-{item.id}",
            CredentialIssued(credential=item),
            f"evidence:credential:{item.id}",
            at=at,
        )

    def spawn(self, item: Runtime, *, at: datetime | None = None) -> None:
        self.add(
            f"spawn-{item.id}", RuntimeSpawned(runtime=item), f"evidence:runtime:{item.id}", at=at
        )

    def revoke(self, delegation_id: str, *, at: datetime | None = None) -> None:
        self.add(
            f"revoke-{delegation_id}",
            DelegationRevoked(delegation_id=delegation_id),
            f"evidence:revocation:{delegation_id}",
            at=at,
        )

    def discard(self, *refs: str, at: datetime | None = None) -> None:
        self.add(f"discard-{len(self.events) + 1}", EvidenceDiscarded(evidence_refs=refs), at=at)

    def act(
        self,
        event_id: str,
        kind: AgenticCaseKind,
        item: ActionAttempt,
        who: Who,
        *,
        at: datetime | None = None,
    ) -> None:
        self.add(event_id, ActionAttempted(attempt=item), at=at)
        self.bindings.append(
            CanonicalBinding(
                action_event_id=event_id,
                originating_principal_id=who.origin,
                logical_agent_id=who.agent_id,
                runtime_id=who.runtime_id,
                runtime_principal_id=who.workload,
                credential_subject_id=who.subject,
                attributed_actor_id=who.actor,
                accountable_owner_chain=who.owners,
            )
        )
        self.cases.append(AgenticCase(action_event_id=event_id, kind=kind))

    def audit(self, audit_id: str, *, at: datetime | None = None) -> None:
        self.add(f"audit-{audit_id}", AuditPerformed(audit_id=audit_id), at=at)

    def event(self, event_id: str) -> AgenticEvent:
        return next(event for event in self.events if event.id == event_id)

    def attempt_of(self, event_id: str) -> ActionAttempt:
        payload = self.event(event_id).payload
        assert isinstance(payload, ActionAttempted)
        return payload.attempt

    def edit(self, event_id: str, **update: object) -> Self:
        """Replace fields of one event in place, without re-validating the stream."""

        self.events = [
            event.model_copy(update=update) if event.id == event_id else event
            for event in self.events
        ]
        return self

    def edit_attempt(self, event_id: str, **update: object) -> Self:
        changed = self.attempt_of(event_id).model_copy(update=update)
        return self.edit(event_id, payload=ActionAttempted(attempt=changed))

    def move_after(self, event_id: str, after_id: str) -> Self:
        moving = self.event(event_id)
        events = [event for event in self.events if event.id != event_id]
        position = next(i for i, event in enumerate(events) if event.id == after_id) + 1
        events.insert(position, moving)
        return self.restamp(events)

    def insert_after(self, after_id: str, event: AgenticEvent) -> Self:
        events = list(self.events)
        position = next(i for i, item in enumerate(events) if item.id == after_id) + 1
        events.insert(position, event)
        return self.restamp(events)

    def restamp(self, events: list[AgenticEvent]) -> Self:
        """Renumber events one-based and space them a minute apart from the start."""

        self.events = [
            event.model_copy(
                update={"event_index": index, "occurred_at": self.start + timedelta(minutes=index)}
            )
            for index, event in enumerate(events, start=1)
        ]
        return self

    def scenario(self) -> PublicScenario:
        return PublicScenario(
            id=f"scenario-{self.snapshot.world_id}",
            title=self.snapshot.world_id,
            description="hand-written auditor test world",
            action_event_ids=tuple(
                event.id for event in self.events if isinstance(event.payload, ActionAttempted)
            ),
            audit_event_id=next(
                event.id for event in self.events if isinstance(event.payload, AuditPerformed)
            ),
            tool_schema_paths=("tool_schemas/none.json",),
        )

    def public(self) -> AgenticPublicBundle:
        """The public bundle alone, for streams the package itself would refuse."""

        return AgenticPublicBundle(
            snapshot=self.snapshot, events=tuple(self.events), scenario=self.scenario()
        )

    def build(self) -> AgenticBenchmark:
        """Let synthworld replay the stream and derive the evaluator truth."""

        return build_agentic_benchmark(
            self.snapshot,
            tuple(self.events),
            self.scenario(),
            tuple(self.bindings),
            tuple(self.cases),
        )


# --- Borealis freight: revocation then a later grant, evidence loss, cross-tenant ---

_B0 = datetime(2027, 5, 3, 6, 0, tzinfo=UTC)
_B_END = _B0 + timedelta(hours=10)
_B_PURPOSE = "route-week-12"
_B_POLICY = "bor-2024"
_B_OWNERS = ("bp-ops-lead", "bp-borealis")


def borealis_kit() -> WorldKit:
    """Freight dispatch with a foreign tenant, a revoke-and-regrant and a discard."""

    kit = WorldKit(
        snapshot(
            "borealis-freight",
            ("bo-borealis", "bo-kestrel"),
            (
                principal("bp-borealis", ORG, "bo-borealis"),
                principal("bp-ops-lead", HUMAN, "bo-borealis", "bp-borealis"),
                principal("bp-finance", HUMAN, "bo-borealis", "bp-borealis"),
                principal("bp-dispatch-svc", SERVICE, "bo-borealis", "bp-ops-lead"),
                principal("bp-dispatch-wl", WORKLOAD, "bo-borealis", "bp-dispatch-svc"),
                principal("bp-kestrel", ORG, "bo-kestrel"),
                principal("bp-kestrel-svc", SERVICE, "bo-kestrel", "bp-kestrel"),
                principal("bp-kestrel-wl", WORKLOAD, "bo-kestrel", "bp-kestrel-svc"),
            ),
            (
                agent("ba-dispatch", "bo-borealis", "bp-ops-lead"),
                agent("ba-kestrel-bot", "bo-kestrel", "bp-kestrel"),
            ),
            (
                resource("br-shipments", "bo-borealis", "bp-ops-lead", "read", "update"),
                resource("br-invoices", "bo-borealis", "bp-finance", "read", "approve"),
            ),
            (_B_POLICY,),
        ),
        _B0,
    )
    kit.spawn(runtime("bt-dispatch", "ba-dispatch", "bp-dispatch-wl", "bp-ops-lead", "bo-borealis"))
    kit.issue(credential("bc-dispatch", "bp-borealis", "bp-dispatch-wl", _B0, _B_END))
    kit.issue(credential("bc-kestrel", "bp-kestrel", "bp-kestrel-wl", _B0, _B_END))
    kit.spawn(runtime("bt-kestrel", "ba-kestrel-bot", "bp-kestrel-wl", "bp-kestrel", "bo-kestrel"))

    def shipments(delegation_id: str) -> Delegation:
        return delegation(
            delegation_id,
            origin="bp-ops-lead",
            delegator="bp-ops-lead",
            grantee="ba-dispatch",
            resources=("br-shipments",),
            actions=("read", "update"),
            scopes=("region:north", "region:south"),
            purpose=_B_PURPOSE,
            policy=_B_POLICY,
            valid_from=_B0,
            expires_at=_B_END,
        )

    def dispatch(
        resource_id: str, action: str, scope: str, actor: str = "bp-dispatch-svc"
    ) -> ActionAttempt:
        return attempt(
            resource_id=resource_id,
            action=action,
            scope=(scope,),
            credential_id="bc-dispatch",
            origin="bp-ops-lead",
            agent_id="ba-dispatch",
            workload="bp-dispatch-wl",
            actor=actor,
            purpose=_B_PURPOSE,
            policy=_B_POLICY,
            cited=("evidence:credential:bc-dispatch", "evidence:runtime:bt-dispatch"),
        )

    dispatcher = Who(
        "bp-ops-lead",
        "ba-dispatch",
        "bt-dispatch",
        "bp-dispatch-wl",
        "bp-dispatch-wl",
        "bp-dispatch-svc",
        _B_OWNERS,
    )
    kit.grant(shipments("bd-ship-1"))
    kit.act(
        "b-read-north",
        Kind.VALID_THEN_REVOKED,
        dispatch("br-shipments", "read", "region:north"),
        dispatcher,
    )
    kit.grant(
        delegation(
            "bd-invoices",
            origin="bp-ops-lead",
            delegator="bp-finance",
            grantee="ba-dispatch",
            resources=("br-invoices",),
            actions=("read",),
            scopes=("invoice:summary",),
            purpose=_B_PURPOSE,
            policy=_B_POLICY,
            valid_from=_B0 + timedelta(minutes=5),
            expires_at=_B_END,
        )
    )
    kit.act(
        "b-read-invoices",
        Kind.MISSING_RETAINED_EVIDENCE,
        dispatch("br-invoices", "read", "invoice:summary"),
        dispatcher,
    )
    kit.act(
        "b-kestrel-reads-shipments",
        Kind.CROSS_TENANT_CONFUSION,
        attempt(
            resource_id="br-shipments",
            action="read",
            scope=("region:north",),
            credential_id="bc-kestrel",
            origin="bp-kestrel",
            agent_id="ba-kestrel-bot",
            workload="bp-kestrel-wl",
            actor="bp-kestrel-svc",
            purpose=_B_PURPOSE,
            policy=_B_POLICY,
        ),
        Who(
            "bp-kestrel",
            "ba-kestrel-bot",
            "bt-kestrel",
            "bp-kestrel-wl",
            "bp-kestrel-wl",
            "bp-kestrel-svc",
            ("bp-kestrel",),
        ),
    )
    kit.revoke("bd-ship-1")
    kit.act(
        "b-update-after-revoke",
        Kind.POST_REVOCATION_ACTION,
        dispatch("br-shipments", "update", "region:south"),
        dispatcher,
    )
    kit.grant(shipments("bd-ship-2"))
    kit.act(
        "b-read-south-regranted",
        Kind.AUTHORISED_ACTION,
        dispatch("br-shipments", "read", "region:south"),
        dispatcher,
    )
    kit.discard("evidence:delegation:bd-invoices")
    kit.act(
        "b-misattributed-invoice-read",
        Kind.INCORRECT_ATTRIBUTION,
        dispatch("br-invoices", "read", "invoice:summary", actor="bp-kestrel-svc"),
        dispatcher,
    )
    kit.audit("borealis-quarterly")
    return kit


# --- Cobalt lab: runtime-ordered child authority, version-blind selection ---

_C0 = datetime(2026, 11, 20, 13, 30, tzinfo=UTC)
_C_END = _C0 + timedelta(hours=4)
_C_PURPOSE = "study-7"
_C_OWNERS = ("cp-lab-head", "cp-cobalt")


def cobalt_kit() -> WorldKit:
    """A child agent under a runtime-introduced delegator, and two policy versions."""

    kit = WorldKit(
        snapshot(
            "cobalt-lab",
            ("co-cobalt",),
            (
                principal("cp-cobalt", ORG, "co-cobalt"),
                principal("cp-lab-head", HUMAN, "co-cobalt", "cp-cobalt"),
                principal("cp-orch-svc", SERVICE, "co-cobalt", "cp-lab-head"),
                principal("cp-orch-wl-1", WORKLOAD, "co-cobalt", "cp-orch-svc"),
                principal("cp-orch-svc-2", SERVICE, "co-cobalt", "cp-lab-head"),
                principal("cp-orch-wl-2", WORKLOAD, "co-cobalt", "cp-orch-svc-2"),
                principal("cp-sum-svc", SERVICE, "co-cobalt", "cp-lab-head"),
                principal("cp-sum-wl", WORKLOAD, "co-cobalt", "cp-sum-svc"),
            ),
            (
                agent("ca-orchestrator", "co-cobalt", "cp-lab-head"),
                agent("ca-summariser", "co-cobalt", "cp-lab-head", "ca-orchestrator"),
            ),
            (
                resource("cr-datasets", "co-cobalt", "cp-lab-head", "read", "annotate"),
                resource("cr-registry", "co-cobalt", "cp-lab-head", "create_delegation"),
                resource("cr-reports", "co-cobalt", "cp-lab-head", "publish"),
            ),
            ("cob-v1", "cob-v2"),
        ),
        _C0,
    )
    org = "co-cobalt"

    def lab_delegation(
        delegation_id: str,
        *,
        delegator: str,
        grantee: str,
        resources: tuple[str, ...],
        actions: tuple[str, ...],
        scopes: tuple[str, ...],
        policy: str,
        parent: str | None = None,
        may_delegate: bool = False,
        valid_from: datetime = _C0,
    ) -> Delegation:
        return delegation(
            delegation_id,
            origin="cp-lab-head",
            delegator=delegator,
            grantee=grantee,
            resources=resources,
            actions=actions,
            scopes=scopes,
            purpose=_C_PURPOSE,
            policy=policy,
            valid_from=valid_from,
            expires_at=_C_END,
            parent=parent,
            may_delegate=may_delegate,
        )

    kit.issue(credential("cc-orch-1", "cp-cobalt", "cp-orch-wl-1", _C0, _C_END))
    kit.spawn(runtime("ct-orch-1", "ca-orchestrator", "cp-orch-wl-1", "cp-lab-head", org))
    kit.grant(
        lab_delegation(
            "cd-root",
            delegator="cp-lab-head",
            grantee="ca-orchestrator",
            resources=("cr-datasets", "cr-registry"),
            actions=("annotate", "create_delegation", "read"),
            scopes=("delegation:child", "set:alpha", "set:beta"),
            policy="cob-v1",
            may_delegate=True,
        )
    )
    # The orchestrator's service account may sub-delegate only because ct-orch-1 was
    # spawned before this grant.
    kit.grant(
        lab_delegation(
            "cd-child",
            delegator="cp-orch-svc",
            grantee="ca-summariser",
            resources=("cr-datasets",),
            actions=("read",),
            scopes=("set:alpha",),
            policy="cob-v1",
            parent="cd-root",
            valid_from=_C0 + timedelta(minutes=3),
        )
    )
    kit.issue(credential("cc-sum", "cp-cobalt", "cp-sum-wl", _C0, _C_END))
    kit.spawn(runtime("ct-sum", "ca-summariser", "cp-sum-wl", "cp-lab-head", org))

    summariser = Who(
        "cp-lab-head", "ca-summariser", "ct-sum", "cp-sum-wl", "cp-sum-wl", "cp-sum-svc", _C_OWNERS
    )
    orchestrator = Who(
        "cp-lab-head",
        "ca-orchestrator",
        "ct-orch-1",
        "cp-orch-wl-1",
        "cp-orch-wl-1",
        "cp-orch-svc",
        _C_OWNERS,
    )

    def act_as(
        credential_id: str,
        agent_id: str | None,
        workload: str | None,
        resource_id: str,
        action: str,
        scope: str,
        *,
        policy: str = "cob-v1",
        actor: str | None = None,
        proposal: Delegation | None = None,
    ) -> ActionAttempt:
        return attempt(
            resource_id=resource_id,
            action=action,
            scope=(scope,),
            credential_id=credential_id,
            origin="cp-lab-head",
            agent_id=agent_id,
            workload=workload,
            actor=actor,
            purpose=_C_PURPOSE,
            policy=policy,
            proposal=proposal,
        )

    kit.act(
        "c-summarise-alpha",
        Kind.VALID_THEN_REVOKED,
        act_as("cc-sum", "ca-summariser", "cp-sum-wl", "cr-datasets", "read", "set:alpha"),
        summariser,
    )
    # Proposed by a delegator whose runtime does not exist yet: overreach at action
    # time, acceptable by the audit once ct-orch-2 has been spawned.
    kit.act(
        "c-propose-early",
        Kind.OVERPRIVILEGED_SUBDELEGATION,
        act_as(
            "cc-orch-1",
            "ca-orchestrator",
            "cp-orch-wl-1",
            "cr-registry",
            "create_delegation",
            "delegation:child",
            proposal=lab_delegation(
                "cd-proposed-beta",
                delegator="cp-orch-svc-2",
                grantee="ca-summariser",
                resources=("cr-datasets",),
                actions=("read",),
                scopes=("set:beta",),
                policy="cob-v1",
                parent="cd-root",
                valid_from=_C0 + timedelta(minutes=30),
            ),
        ),
        orchestrator,
    )
    kit.spawn(runtime("ct-orch-2", "ca-orchestrator", "cp-orch-wl-2", "cp-lab-head", org))
    kit.issue(credential("cc-orch-2", "cp-cobalt", "cp-orch-wl-2", _C0, _C_END))
    kit.grant(
        lab_delegation(
            "cd-reports-v2",
            delegator="cp-lab-head",
            grantee="ca-orchestrator",
            resources=("cr-reports",),
            actions=("publish",),
            scopes=("report:q3",),
            policy="cob-v2",
        )
    )
    second_runtime = Who(
        "cp-lab-head",
        "ca-orchestrator",
        "ct-orch-2",
        "cp-orch-wl-2",
        "cp-orch-wl-2",
        "cp-orch-svc-2",
        _C_OWNERS,
    )
    kit.act(
        "c-publish-old-version",
        Kind.POLICY_VERSION_MISMATCH,
        act_as("cc-orch-2", None, "cp-orch-wl-2", "cr-reports", "publish", "report:q3"),
        second_runtime,
    )
    kit.act(
        "c-summariser-with-parent-credential",
        Kind.WRONG_RUNTIME,
        act_as("cc-orch-1", "ca-summariser", "cp-sum-wl", "cr-datasets", "read", "set:alpha"),
        Who(
            "cp-lab-head",
            "ca-summariser",
            "ct-sum",
            "cp-sum-wl",
            "cp-orch-wl-1",
            "cp-sum-svc",
            _C_OWNERS,
        ),
    )
    kit.act(
        "c-publish-current-version",
        Kind.AUTHORISED_ACTION,
        act_as(
            "cc-orch-2",
            "ca-orchestrator",
            None,
            "cr-reports",
            "publish",
            "report:q3",
            policy="cob-v2",
        ),
        second_runtime,
    )
    kit.revoke("cd-child")
    kit.audit("cobalt-review")
    return kit


# --- Dunmore press: exact validity boundaries, id tie-break, three-level chain ---

D0 = datetime(2027, 3, 1, 8, 0, tzinfo=UTC)
_D_END = D0 + timedelta(hours=6)
_D_PURPOSE = "fact-check"
_D_POLICY = "dun-2"
_D_OWNERS = ("dp-editor", "dp-dunmore")
NARROW_EXPIRES = D0 + timedelta(minutes=30)
COPY_CREDENTIAL_EXPIRES = D0 + timedelta(minutes=40)


def dunmore_kit() -> WorldKit:
    """Actions placed exactly on expiry instants, and a grandchild delegation."""

    org = "do-dunmore"
    kit = WorldKit(
        snapshot(
            "dunmore-press",
            (org,),
            (
                principal("dp-dunmore", ORG, org),
                principal("dp-editor", HUMAN, org, "dp-dunmore"),
                principal("dp-desk-svc", SERVICE, org, "dp-editor"),
                principal("dp-desk-wl", WORKLOAD, org, "dp-desk-svc"),
                principal("dp-fact-svc", SERVICE, org, "dp-editor"),
                principal("dp-fact-wl", WORKLOAD, org, "dp-fact-svc"),
                principal("dp-copy-svc", SERVICE, org, "dp-editor"),
                principal("dp-copy-wl", WORKLOAD, org, "dp-copy-svc"),
            ),
            (
                agent("da-desk", org, "dp-editor"),
                agent("da-fact", org, "dp-editor", "da-desk"),
                agent("da-copy", org, "dp-editor", "da-fact"),
            ),
            (resource("dr-archive", org, "dp-editor", "annotate", "read"),),
            (_D_POLICY,),
        ),
        D0,
    )

    def archive(
        delegation_id: str,
        *,
        delegator: str,
        grantee: str,
        actions: tuple[str, ...],
        scopes: tuple[str, ...],
        valid_from: datetime = D0,
        expires_at: datetime = _D_END,
        parent: str | None = None,
        may_delegate: bool = False,
    ) -> Delegation:
        return delegation(
            delegation_id,
            origin="dp-editor",
            delegator=delegator,
            grantee=grantee,
            resources=("dr-archive",),
            actions=actions,
            scopes=scopes,
            purpose=_D_PURPOSE,
            policy=_D_POLICY,
            valid_from=valid_from,
            expires_at=expires_at,
            parent=parent,
            may_delegate=may_delegate,
        )

    def by(name: str) -> Who:
        return Who(
            "dp-editor",
            f"da-{name}",
            f"dt-{name}",
            f"dp-{name}-wl",
            f"dp-{name}-wl",
            f"dp-{name}-svc",
            _D_OWNERS,
        )

    def request(name: str, action: str, scope: str) -> ActionAttempt:
        return attempt(
            resource_id="dr-archive",
            action=action,
            scope=(scope,),
            credential_id=f"dc-{name}",
            origin="dp-editor",
            agent_id=f"da-{name}",
            workload=f"dp-{name}-wl",
            actor=f"dp-{name}-svc",
            purpose=_D_PURPOSE,
            policy=_D_POLICY,
        )

    def minute(value: int) -> datetime:
        return D0 + timedelta(minutes=value)

    kit.grant(
        archive(
            "dd-z-broad",
            delegator="dp-editor",
            grantee="da-desk",
            actions=("annotate", "read"),
            scopes=("era:1900", "era:2000"),
            may_delegate=True,
        ),
        at=minute(1),
    )
    # Granted after the broad grant but with the smaller id, so it is selected first.
    kit.grant(
        archive(
            "dd-a-narrow",
            delegator="dp-editor",
            grantee="da-desk",
            actions=("read",),
            scopes=("era:2000",),
            expires_at=NARROW_EXPIRES,
        ),
        at=minute(2),
    )
    kit.issue(credential("dc-desk", "dp-dunmore", "dp-desk-wl", D0, _D_END), at=minute(3))
    kit.spawn(runtime("dt-desk", "da-desk", "dp-desk-wl", "dp-editor", org), at=minute(4))
    kit.act(
        "d-desk-read-narrow",
        Kind.VALID_THEN_REVOKED,
        request("desk", "read", "era:2000"),
        by("desk"),
        at=minute(5),
    )
    kit.act(
        "d-desk-annotate-broad",
        Kind.AUTHORISED_ACTION,
        request("desk", "annotate", "era:2000"),
        by("desk"),
        at=minute(6),
    )
    # valid_from equal to the grant instant: the window is inclusive at its start.
    kit.grant(
        archive(
            "dd-fact",
            delegator="dp-desk-svc",
            grantee="da-fact",
            actions=("annotate", "read"),
            scopes=("era:1900",),
            valid_from=minute(7),
            parent="dd-z-broad",
            may_delegate=True,
        ),
        at=minute(7),
    )
    kit.spawn(runtime("dt-fact", "da-fact", "dp-fact-wl", "dp-editor", org), at=minute(8))
    kit.issue(credential("dc-fact", "dp-dunmore", "dp-fact-wl", D0, _D_END), at=minute(9))
    kit.grant(
        archive(
            "dd-copy",
            delegator="dp-fact-svc",
            grantee="da-copy",
            actions=("read",),
            scopes=("era:1900",),
            valid_from=minute(10),
            parent="dd-fact",
        ),
        at=minute(10),
    )
    kit.spawn(runtime("dt-copy", "da-copy", "dp-copy-wl", "dp-editor", org), at=minute(11))
    kit.issue(
        credential("dc-copy", "dp-dunmore", "dp-copy-wl", D0, COPY_CREDENTIAL_EXPIRES),
        at=minute(12),
    )
    kit.act(
        "d-copy-read-grandchild",
        Kind.AUTHORISED_ACTION,
        request("copy", "read", "era:1900"),
        by("copy"),
        at=minute(13),
    )
    # Exactly at the narrow grant's expiry: it no longer counts, the broad grant covers.
    kit.act(
        "d-desk-read-at-expiry",
        Kind.AUTHORISED_ACTION,
        request("desk", "read", "era:2000"),
        by("desk"),
        at=NARROW_EXPIRES,
    )
    # Exactly at the copy credential's expiry: denied, yet the chain is still recorded.
    kit.act(
        "d-copy-read-credential-expired",
        Kind.CREDENTIAL_INVALID,
        request("copy", "read", "era:1900"),
        by("copy"),
        at=COPY_CREDENTIAL_EXPIRES,
    )
    kit.revoke("dd-fact", at=minute(45))
    kit.act(
        "d-fact-read-after-revoke",
        Kind.POST_REVOCATION_ACTION,
        request("fact", "read", "era:1900"),
        by("fact"),
        at=minute(46),
    )
    kit.act(
        "d-copy-read-after-cascade",
        Kind.POST_REVOCATION_ACTION,
        request("copy", "read", "era:1900"),
        by("copy"),
        at=minute(47),
    )
    kit.act(
        "d-desk-unaffected-by-child-revoke",
        Kind.AUTHORISED_ACTION,
        request("desk", "annotate", "era:1900"),
        by("desk"),
        at=minute(48),
    )
    kit.audit("dunmore-corrections", at=minute(50))
    return kit


WORLD_KITS = {
    "borealis": borealis_kit,
    "cobalt": cobalt_kit,
    "dunmore": dunmore_kit,
}
