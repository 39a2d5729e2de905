"""Structural checks on the public event stream before anything is replayed.

Promise: a stream that passes has contiguous one-based indices in file order,
unique event ids, and UTC timestamps that strictly increase, so "the state
immediately before event i" is well defined. Must not import agent_assay, nor
synthworld's replay, relationship-derivation or evaluator helpers.
"""

from collections.abc import Sequence
from itertools import pairwise

from synthworld.agentic.models import AgenticEvent

from authority_auditor.errors import AuditRejected


def require_replayable_order(events: Sequence[AgenticEvent]) -> None:
    """Reject the whole stream if any event breaks ordering.

    The check runs over the complete stream up front so that an invalid suffix
    cannot hide behind rows already emitted for an earlier prefix.
    """

    indices = [event.event_index for event in events]
    if indices != list(range(1, len(events) + 1)):
        raise AuditRejected("event indices must be contiguous, one-based and in order")
    ids = [event.id for event in events]
    if len(ids) != len(set(ids)):
        raise AuditRejected("event ids must be unique")
    for event in events:
        offset = event.occurred_at.utcoffset()
        if offset is None or offset.total_seconds() != 0:
            raise AuditRejected(f"event {event.id} is not timestamped in UTC")
    for earlier, later in pairwise(events):
        if later.occurred_at <= earlier.occurred_at:
            raise AuditRejected(f"event {later.id} does not strictly follow {earlier.id} in time")
