"""Who may grant a delegation, under the fixture's bounded v1 rules.

Promise: decides whether a delegation is a faithful attenuation of its parent and
whether its delegator is related to the authority being delegated - the origin or
a common resource owner for a root grant; the parent's origin or delegator, an
accountable owner of the parent agent, or a principal on an already-spawned
parent-agent runtime path for a child grant - with every involved record in one
organisation. Must not import agent_assay, nor synthworld's replay,
relationship-derivation or evaluator helpers.
"""

from collections.abc import Iterable

from synthworld.agentic.models import Delegation, Runtime

from authority_auditor.identities import IdentityGraph


def is_attenuated(child: Delegation, parent: Delegation) -> bool:
    """Return whether `child` narrows `parent` without widening anything.

    Same origin, purpose and policy; a subset of resources, actions and scopes; a
    validity window inside the parent's; and a parent that allows delegating.
    """

    child_capability = child.capability
    parent_capability = parent.capability
    return (
        parent_capability.may_delegate
        and child.parent_delegation_id == parent.id
        and child.originating_principal_id == parent.originating_principal_id
        and child.policy_version == parent.policy_version
        and child_capability.purpose == parent_capability.purpose
        and set(child_capability.resource_ids) <= set(parent_capability.resource_ids)
        and set(child_capability.actions) <= set(parent_capability.actions)
        and set(child_capability.scopes) <= set(parent_capability.scopes)
        and parent.valid_from <= child.valid_from
        and child.expires_at <= parent.expires_at
    )


def delegator_is_permitted(
    graph: IdentityGraph,
    runtimes: Iterable[Runtime],
    delegation: Delegation,
    parent: Delegation | None,
) -> bool:
    """Return whether the declared delegator may grant `delegation`.

    `runtimes` must be only those spawned before the grant is judged: a principal
    that reaches the parent agent through a runtime gains standing only once that
    runtime exists, which is what makes child authority order-sensitive.
    """

    return delegation.delegator_principal_id in _permitted_delegators(
        graph, runtimes, delegation, parent
    )


def _permitted_delegators(
    graph: IdentityGraph,
    runtimes: Iterable[Runtime],
    delegation: Delegation,
    parent: Delegation | None,
) -> frozenset[str]:
    grantee = graph.agent(delegation.grantee_agent_id)
    if grantee is None or not _single_organisation(graph, delegation, grantee.organisation_id):
        return frozenset()
    if parent is None:
        owner_chains = [
            set(graph.resource_owner_chain(resource_id))
            for resource_id in delegation.capability.resource_ids
        ]
        common_owners = set.intersection(*owner_chains)
        return frozenset({delegation.originating_principal_id, *common_owners})

    parent_agent = graph.agent(parent.grantee_agent_id)
    if (
        parent_agent is None
        or parent_agent.organisation_id != grantee.organisation_id
        or grantee.parent_agent_id != parent_agent.id
    ):
        return frozenset()
    candidates = {
        parent.originating_principal_id,
        parent.delegator_principal_id,
        *graph.agent_owner_chain(parent_agent.id),
    }
    for runtime in runtimes:
        if runtime.logical_agent_id == parent_agent.id:
            candidates.update(graph.runtime_path(runtime))
    return frozenset(
        principal_id
        for principal_id in candidates
        if graph.shares_organisation(principal_id, grantee.organisation_id)
    )


def _single_organisation(
    graph: IdentityGraph, delegation: Delegation, organisation_id: str
) -> bool:
    """Origin, delegator and every delegated resource must share the grantee's tenant."""

    resources = [graph.resource(item) for item in delegation.capability.resource_ids]
    return (
        graph.shares_organisation(delegation.originating_principal_id, organisation_id)
        and graph.shares_organisation(delegation.delegator_principal_id, organisation_id)
        and all(
            resource is not None and resource.organisation_id == organisation_id
            for resource in resources
        )
    )
