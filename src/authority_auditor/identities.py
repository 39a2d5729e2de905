"""Read-only view of the snapshot's identity graph.

Promise: owner chains, runtime principal paths and the first accountable
(non-workload) principal on a path are computed from the public snapshot alone,
and any path that leaves its organisation is refused rather than silently
truncated. Must not import agent_assay, nor synthworld's replay,
relationship-derivation or evaluator helpers.
"""

from collections.abc import Sequence
from itertools import takewhile

from synthworld.agentic.models import (
    AgenticWorldSnapshot,
    LogicalAgent,
    Principal,
    PrincipalKind,
    Resource,
    Runtime,
)

from authority_auditor.errors import AuditRejected


class IdentityGraph:
    """Lookups over one snapshot, built once so each audit step is a dict hit."""

    def __init__(self, snapshot: AgenticWorldSnapshot) -> None:
        self._principals = {item.id: item for item in snapshot.principals}
        self._agents = {item.id: item for item in snapshot.agents}
        self._resources = {item.id: item for item in snapshot.resources}
        self._organisation_ids = frozenset(item.id for item in snapshot.organisations)
        self.policy_versions = frozenset(item.version for item in snapshot.policies)

    def principal(self, principal_id: str | None) -> Principal | None:
        """Return the principal, or None for an absent or unknown id."""

        return None if principal_id is None else self._principals.get(principal_id)

    def agent(self, agent_id: str | None) -> LogicalAgent | None:
        """Return the logical agent, or None for an absent or unknown id."""

        return None if agent_id is None else self._agents.get(agent_id)

    def resource(self, resource_id: str) -> Resource | None:
        """Return the resource, or None for an unknown id."""

        return self._resources.get(resource_id)

    def owner_chain(self, principal_id: str) -> tuple[str, ...]:
        """Return a known principal followed by each owner up to the top, inclusive.

        The snapshot model already refuses unknown owners and ownership cycles, and
        every caller passes an id the replay has checked, so the walk cannot fail.
        """

        principal = self._principals[principal_id]
        chain = [principal.id]
        while principal.owner_principal_id is not None:
            principal = self._principals[principal.owner_principal_id]
            chain.append(principal.id)
        return tuple(chain)

    def agent_owner_chain(self, agent_id: str) -> tuple[str, ...]:
        """Return who is accountable for a known agent, nearest owner first."""

        agent = self._agents[agent_id]
        chain = self.owner_chain(agent.owner_principal_id)
        self._require_within(chain, agent.organisation_id, f"agent {agent_id}")
        return chain

    def resource_owner_chain(self, resource_id: str) -> tuple[str, ...]:
        """Return a known resource's owner and everyone above it, inclusive."""

        resource = self._resources[resource_id]
        chain = self.owner_chain(resource.owner_principal_id)
        self._require_within(chain, resource.organisation_id, f"resource {resource_id}")
        return chain

    def runtime_path(self, runtime: Runtime) -> tuple[str, ...]:
        """Return the runtime principal's path up to the runtime's declared owner.

        A runtime is only meaningful if its agent, workload principal and owner sit
        in one organisation and the owner is the agent's own owner; anything else is
        a false join that the auditor refuses to reason about.
        """

        agent = self._agents.get(runtime.logical_agent_id)
        workload = self._principals.get(runtime.runtime_principal_id)
        owner = self._principals.get(runtime.owner_principal_id)
        if agent is None or workload is None or owner is None:
            raise AuditRejected(f"runtime {runtime.id} names an unknown identity")
        organisation_ids = {
            runtime.organisation_id,
            agent.organisation_id,
            workload.organisation_id,
            owner.organisation_id,
        }
        if runtime.organisation_id not in self._organisation_ids or len(organisation_ids) != 1:
            raise AuditRejected(f"runtime {runtime.id} spans organisations")
        if runtime.owner_principal_id != agent.owner_principal_id:
            raise AuditRejected(f"runtime {runtime.id} is not owned by its agent's owner")
        inside = list(
            takewhile(
                lambda item: self._principals[item].organisation_id == runtime.organisation_id,
                self.owner_chain(runtime.runtime_principal_id),
            )
        )
        if runtime.owner_principal_id not in inside:
            raise AuditRejected(f"runtime {runtime.id} principal path misses its owner")
        return tuple(inside[: inside.index(runtime.owner_principal_id) + 1])

    def first_accountable(self, chain: Sequence[str]) -> str | None:
        """Return the first principal on a path that is not a bare workload.

        Workloads execute; they are not who an action is attributed to.
        """

        return next(
            (
                principal_id
                for principal_id in chain
                if self._principals[principal_id].kind is not PrincipalKind.WORKLOAD
            ),
            None,
        )

    def shares_organisation(self, principal_id: str, organisation_id: str) -> bool:
        """Return whether a known principal belongs to the given organisation."""

        principal = self._principals.get(principal_id)
        return principal is not None and principal.organisation_id == organisation_id

    def _require_within(self, chain: Sequence[str], organisation_id: str, label: str) -> None:
        if any(self._principals[item].organisation_id != organisation_id for item in chain):
            raise AuditRejected(f"owner chain of {label} crosses organisations")
