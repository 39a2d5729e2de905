"""tau-bench's airline domain as far as the published results file shows it.

Which tools change the database, how the gold a reward was judged against is
identified, and tau-bench's reward rule where stored data decides it. The
parser, the adapter and the importer all read these; none of them is needed
to state them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from agent_assay.hashing import canonical_json, content_hash
from agent_assay.model import Gold, ToolCall, Trajectory

ADAPTER: Final = "tau-bench"
DOMAIN: Final = "airline"
GOLD_HASH: Final = "aa.tau-bench.gold.1"
PUBLISHED: Final = "published by tau-bench; imported, not computed by agent-assay"

WRITE_TOOLS: Final = frozenset(
    {
        "book_reservation",
        "cancel_reservation",
        "update_reservation_flights",
        "update_reservation_baggages",
        "update_reservation_passengers",
        "send_certificate",
    }
)
"""The airline tools that change the database; every other airline tool only reads."""

READ_TOOLS: Final = frozenset(
    {
        "calculate",
        "get_reservation_details",
        "get_user_details",
        "list_all_airports",
        "search_direct_flight",
        "search_onestop_flight",
        "think",
        "transfer_to_human_agents",
    }
)
AIRLINE_TOOLS: Final = WRITE_TOOLS | READ_TOOLS

CANNOT_EXECUTE = (
    "the tau-bench adapter cannot {what}: its trajectories are imported from a published "
    "results file (agent-assay import tau-bench FILE) and tau-bench's airline environment "
    "is not part of agent-assay"
)


def gold_digest(gold: Gold) -> str:
    """Identity of the gold a published reward was judged against."""
    return content_hash(GOLD_HASH, gold.to_json())


def agent_replies(trajectory: Trajectory) -> list[str]:
    """The agent's text messages, in order, as the importer stored them in meta."""
    messages = trajectory.meta.get("messages") or []
    return [
        str(m.get("content"))
        for m in messages
        if isinstance(m, Mapping) and m.get("role") == "assistant" and m.get("content")
    ]


def outputs_said(outputs: Sequence[str], replies: Sequence[str]) -> bool:
    """Every required output appears in one reply (case-blind, commas ignored, as tau-bench)."""
    said = [r.lower().replace(",", "") for r in replies]
    return all(any(str(o).lower() in r for r in said) for o in outputs)


def reward_rule(gold: Gold, trajectory: Trajectory) -> tuple[float | None, str]:
    """tau-bench's reward where stored data decides it, with the reason; None where it does not."""
    outputs = [str(o) for o in gold.truth.get("outputs") or []]
    said = outputs_said(outputs, agent_replies(trajectory))
    gold_writes = [c for c in gold.path if c.tool in WRITE_TOOLS]
    done = [s.call for s in trajectory.steps if s.ok and s.call.tool in WRITE_TOOLS]
    missing = "" if said else "; a required output is missing from the replies"
    if not done:
        if gold_writes:
            return 0.0, "no state-changing call succeeded but gold changes the database"
        reason = "no state-changing call succeeded; gold changes nothing" + missing
        return (1.0 if said else 0.0), reason
    if not gold_writes:
        return 0.0, "a state-changing call succeeded but gold changes nothing"
    if [_key(c) for c in done] == [_key(c) for c in gold_writes]:
        return (1.0 if said else 0.0), "the succeeded state-changing calls are gold's" + missing
    return None, "deciding needs tau-bench's database: state-changing calls differ from gold's"


def _key(call: ToolCall) -> str:
    return canonical_json(call.to_json())
