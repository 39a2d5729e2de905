"""Resolve who acted from an action's public claims and the action-time ledger.

Promise: the acting runtime is the one the claimed runtime principal maps to among
runtimes already spawned (narrowed by the claimed logical agent, then by the
credential's permitted runtimes, only when more than one remains); the logical
agent and runtime principal are that runtime's; the credential subject is the
presented credential's; the accountable owner chain is the agent's; the origin is
the claim when it belongs to the agent's tenant; the attributed actor is the claim
when it lies on the runtime or credential identity path, else the runtime's
accountable principal. Anything the public data cannot pin down is left None, so it
is scored as missing rather than guessed. Must not import agent_assay, nor
synthworld's replay, relationship-derivation or evaluator helpers.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from synthworld.agentic.models import ActionAttempt, Credential, Runtime

from authority_auditor.errors import AuditRejected
from authority_auditor.identities import IdentityGraph
from authority_auditor.ledger import Ledger


@dataclass(frozen=True)
class ActingIdentity:
    """The binding the auditor believes an action was performed under."""

    originating_principal_id: str | None
    logical_agent_id: str | None
    runtime_id: str | None
    runtime_principal_id: str | None
    credential_id: str
    credential_subject_id: str
    attributed_actor_id: str | None
    accountable_owner_chain: tuple[str, ...] | None


def resolve_identity(
    graph: IdentityGraph, ledger: Ledger, attempt: ActionAttempt
) -> ActingIdentity:
    """Bind an attempt to concrete identities using only what it could see then."""

    credential = ledger.credential(attempt.presented_credential_id)
    if credential is None:
        raise AuditRejected("an action cannot present a credential not yet issued")
    runtime = _acting_runtime(ledger.runtimes, attempt, credential)
    agent_id = runtime.logical_agent_id if runtime else attempt.logical_agent_claim
    agent = graph.agent(agent_id)
    origin = attempt.originating_principal_claim
    if (
        agent is None
        or origin is None
        or not graph.shares_organisation(origin, agent.organisation_id)
    ):
        origin = _sole_origin(ledger, agent_id)
    return ActingIdentity(
        originating_principal_id=origin,
        logical_agent_id=agent_id,
        runtime_id=runtime.id if runtime else None,
        runtime_principal_id=(
            runtime.runtime_principal_id if runtime else attempt.runtime_principal_claim
        ),
        credential_id=credential.id,
        credential_subject_id=credential.subject_principal_id,
        attributed_actor_id=_attributed_actor(graph, runtime, credential, attempt),
        accountable_owner_chain=graph.agent_owner_chain(agent.id) if agent else None,
    )


def _acting_runtime(
    runtimes: Sequence[Runtime], attempt: ActionAttempt, credential: Credential
) -> Runtime | None:
    claimed_principal = attempt.runtime_principal_claim
    claimed_agent = attempt.logical_agent_claim
    if claimed_principal is not None:
        pool = [item for item in runtimes if item.runtime_principal_id == claimed_principal]
    elif claimed_agent is not None:
        pool = [item for item in runtimes if item.logical_agent_id == claimed_agent]
    else:
        allowed = set(credential.allowed_runtime_principal_ids)
        pool = [item for item in runtimes if item.runtime_principal_id in allowed]
    narrowings: tuple[Callable[[Runtime], bool], ...] = (
        lambda item: item.logical_agent_id == claimed_agent,
        lambda item: item.runtime_principal_id in credential.allowed_runtime_principal_ids,
    )
    for keep in narrowings:
        if len(pool) > 1:
            pool = [item for item in pool if keep(item)] or pool
    return pool[0] if len(pool) == 1 else None


def _sole_origin(ledger: Ledger, agent_id: str | None) -> str | None:
    """Fall back to the one principal that ever originated authority for the agent."""

    origins = {
        item.originating_principal_id
        for item in ledger.delegations
        if item.grantee_agent_id == agent_id
    }
    return origins.pop() if len(origins) == 1 else None


def _attributed_actor(
    graph: IdentityGraph,
    runtime: Runtime | None,
    credential: Credential,
    attempt: ActionAttempt,
) -> str | None:
    candidates = []
    if runtime is not None:
        candidates.append(graph.first_accountable(graph.runtime_path(runtime)))
    candidates.append(graph.first_accountable(graph.owner_chain(credential.subject_principal_id)))
    admissible = [item for item in candidates if item is not None]
    if attempt.attributed_actor_claim in admissible:
        return attempt.attributed_actor_claim
    return admissible[0] if admissible else None
