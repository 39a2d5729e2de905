"""The immutable authority state in force after a prefix of the stream.

Promise: a `Ledger` records exactly what earlier events made effective - spawned
runtimes, issued credentials, granted delegations, revoked delegation ids and the
evidence still retained - and nothing is ever mutated in place, so the state
"immediately before event i" stays available while later events are replayed.
Must not import agent_assay, nor synthworld's replay, relationship-derivation or
evaluator helpers.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Self

from synthworld.agentic.models import Credential, Delegation, Runtime


@dataclass(frozen=True)
class Ledger:
    """Authority records in force after some prefix of the stream.

    Which prefix is the `Timeline`'s business: it keeps one ledger per index.
    """

    runtimes: tuple[Runtime, ...]
    credentials: tuple[Credential, ...]
    delegations: tuple[Delegation, ...]
    revoked: frozenset[str]
    retained: frozenset[str]

    @classmethod
    def initial(cls, evidence_refs: Iterable[str]) -> Self:
        """Return the state at index 0: only the snapshot's initial evidence."""

        return cls(
            runtimes=(),
            credentials=(),
            delegations=(),
            revoked=frozenset(),
            retained=frozenset(evidence_refs),
        )

    def runtime(self, runtime_id: str) -> Runtime | None:
        """Return a spawned runtime by id."""

        return next((item for item in self.runtimes if item.id == runtime_id), None)

    def credential(self, credential_id: str) -> Credential | None:
        """Return an issued credential by id."""

        return next((item for item in self.credentials if item.id == credential_id), None)

    def delegation(self, delegation_id: str) -> Delegation | None:
        """Return a granted delegation by id, revoked or not."""

        return next((item for item in self.delegations if item.id == delegation_id), None)

    def descendants(self, delegation_id: str) -> frozenset[str]:
        """Return every granted delegation whose parent chain reaches the given id.

        Revoking a delegation withdraws everything sub-delegated from it, so the
        revocation step needs the whole subtree, not only direct children.
        """

        found: set[str] = set()
        frontier = {delegation_id}
        while frontier:
            children = {
                item.id
                for item in self.delegations
                if item.parent_delegation_id in frontier and item.id not in found
            }
            found |= children
            frontier = children
        return frozenset(found)
