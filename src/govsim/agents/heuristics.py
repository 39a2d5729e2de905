"""Public-view heuristic baselines: blanket board approval and keyword matching.

Promise: both agents see only the public task and tool envelopes; they model common agent
shortcuts (approve everything at the top, approve whatever the records mention) and are
expected to fail whenever a matter needs recusal, consent, order or a specific signer.
Must not import agent_assay.
"""

from __future__ import annotations

from typing import Any

from govsim.agents.driver import CallsTools, Driver, Rows
from govsim.families import FAMILIES
from govsim.task import PublicTask

RESERVE = 2  # turns kept back for reading the officers register and executing


def naive_max_approval(public: PublicTask, env: CallsTools, *, seed: int, repetition: int) -> None:
    """The board, at a full meeting, approves everything; the first listed officer signs."""
    d = Driver(env, public)
    action = d.create()
    if action is None:
        return
    board = next((b for b in d.rows("bodies") if b["kind"] == "board"), None)
    if board is not None:
        directors = [r["person_id"] for r in d.rows("directors")]
        d.call(
            "record_authorization",
            action_id=action,
            authorizer_id=board["body_id"],
            method="meeting",
            participant_ids=directors,
        )
    _sign(d, action)


def keyword_heuristic(public: PublicTask, env: CallsTools, *, seed: int, repetition: int) -> None:
    """Approve every body or party the top-ranked records name; cite found disclosures."""
    d = Driver(env, public)
    action = d.create()
    if action is None:
        return
    found = d.call("search_records", query=" ".join(FAMILIES[public.family].keywords))
    hits: Rows = [] if found is None else found["results"]
    disclosures = [h["record_id"] for h in hits if h["record_type"] == "conflict_disclosure"]
    text = ""
    for hit in hits[:3]:
        record = d.call("read_record", record_id=hit["record_id"])
        if record is not None:
            text += " ".join(s["text"] for s in record["sections"]).lower()
    named = [b for b in d.rows("bodies") if b["name"].lower() in text]
    named.sort(key=lambda b: {"holders": 0, "committee": 1, "board": 2}[b["kind"]])
    members = _members(d, named)
    for body in named:
        if d.remaining <= RESERVE:
            break
        seated = body["kind"] != "holders"
        d.call(
            "record_authorization",
            action_id=action,
            authorizer_id=body["body_id"],
            method="meeting" if seated else "holder_consent",
            participant_ids=members.get(body["body_id"], []),
            disclosure_record_ids=disclosures if seated else [],
        )
    _sign(d, action)


def _members(d: Driver, bodies: Rows) -> dict[str, list[str]]:
    """Participant lists for the named bodies, reading each register at most once."""
    kinds = {b["kind"] for b in bodies}
    out: dict[str, list[str]] = {}
    if "board" in kinds and d.remaining > RESERVE + 1:
        board_ids = [b["body_id"] for b in bodies if b["kind"] == "board"]
        directors = [r["person_id"] for r in d.rows("directors")]
        out.update({bid: directors for bid in board_ids})
    if "committee" in kinds and d.remaining > RESERVE + 1:
        for c in d.rows("committees"):
            out[c["body_id"]] = [m["person_id"] for m in c["members"]]
    if "holders" in kinds and d.remaining > RESERVE + 1:
        by_class: dict[str, list[str]] = {}
        for row in d.rows("cap_table"):
            by_class.setdefault(row["class_id"], []).append(row["holder_id"])
        for b in bodies:
            if b["kind"] == "holders":
                out[b["body_id"]] = by_class.get(b["class_id"], [])
    return out


def _sign(d: Driver, action: str) -> None:
    officers: list[dict[str, Any]] = d.rows("officers")
    if officers:
        d.execute(action, officers[0]["person_id"])
