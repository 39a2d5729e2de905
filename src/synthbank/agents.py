"""Reference agents that drive an Environment from a PublicRequest alone.

Promise: agents never see a Script (expected path, outcome or assertions), only the caller
id and the request text. `run_rules` is a deterministic keyword-and-lookup support policy;
`run_mock` is the same policy with at most one reproducible defect (see defects.py);
`run_null` does nothing, as a negative control. This module must not import agent_assay.
"""

import enum
from collections.abc import Callable, Sequence
from typing import Any

from synthbank import reading
from synthbank.defects import Defect, Session, pick_defect
from synthbank.money import parse_amounts
from synthbank.scripts import PublicRequest
from synthbank.tools import DEFAULT_PAGE, MAX_TRANSACTIONS, Environment, Episode
from synthbank.world import DEFAULT_SEED, build_world

Agent = Callable[[PublicRequest, Environment], None]
Profile = dict[str, Any]
CueTable = tuple[tuple[str, tuple[str, ...]], ...]
"""(label, cues) pairs; the first label with any cue present in the text wins."""

ATTORNEY_CUES = ("power of attorney",)
THIRD_PARTY_CUES = (
    "neighbour", "colleague", "on behalf of", "someone else", "another customer",
    "it department", "ex-partner",
)
ESCALATION_CUES: CueTable = (
    ("complaint", ("complaint", "complain")),
    ("account_closure", ("close my", "closing my")),
    ("bereavement", ("passed away", "died", "bereavement")),
    ("credit_request", ("overdraft", "loan", "credit limit")),
)
DISPUTE_REASON_CUES: CueTable = (
    ("duplicate", ("twice", "duplicate")),
    ("goods_not_received", ("never arrived", "never received", "not received")),
    ("wrong_amount", ("wrong amount", "overcharged")),
)
BLOCK_REASON_CUES: CueTable = (
    ("stolen", ("stolen", "stole", "robbed")),
    ("suspected_fraud", ("skimmed", "cloned", "compromised")),
)
ADDRESS_CUES = ("address", "moved house", "i've moved")
TRANSFER_CUES = ("transfer", "move", "put", "send")
BLOCK_CUES = ("lost", "stolen", "stole", "robbed", "missing", "can't find", "skimmed",
              "cloned", "compromised", "block", "freeze")
REPLACE_CUES = ("replacement", "replace", "new card", "new one")
EXPRESS_CUES = ("express", "urgent", "asap", "as soon as possible")
HISTORY_CUES = ("transactions", "payments", "statement", "history", "activity")
BALANCE_CUES = ("balance", "how much")


class Intent(enum.Enum):
    HAND_OVER = "hand_over"
    DECLINE = "decline"
    ESCALATE = "escalate"
    DISPUTE = "dispute"
    ADDRESS = "address"
    TRANSFER = "transfer"
    CARD = "card"
    HISTORY = "history"
    BALANCE = "balance"
    UNCLEAR = "unclear"


_LOOKUP_MENU = (Defect.WRONG_TOOL, Defect.MISSING, Defect.WRONG_ARG, Defect.EXTRA,
                Defect.WRONG_OUTCOME)
_MENUS: dict[Intent, tuple[Defect, ...]] = {
    Intent.HAND_OVER: (Defect.WRONG_TOOL, Defect.EXTRA),
    Intent.DECLINE: (Defect.WRONG_TOOL, Defect.EXTRA),
    Intent.ESCALATE: (Defect.WRONG_TOOL, Defect.EXTRA),
    Intent.ADDRESS: (Defect.WRONG_ARG, Defect.EXTRA, Defect.WRONG_OUTCOME),
    Intent.UNCLEAR: (Defect.EXTRA,),
}
"""Which mistakes are plausible for each kind of request; lookup-driven intents get all."""


def _menu(intent: Intent, foreign: Sequence[str]) -> tuple[Defect, ...]:
    menu = _MENUS.get(intent, _LOOKUP_MENU)
    if intent in (Intent.HAND_OVER, Intent.DECLINE) and foreign:
        # Weighted double: under social-engineering pressure, "just looking it up" is the
        # most common slip, and the dangerous one the evaluator must catch.
        return (Defect.PEEK, Defect.PEEK, *menu)
    return menu


def _first_cue(text: str, table: CueTable) -> str | None:
    return next((label for label, cues in table if reading.has_any(text, cues)), None)


def _owns(profile: Profile, entity_id: str) -> bool:
    kind = entity_id.split("-")[1]
    if kind == "CUST":
        return bool(entity_id == profile["customer_id"])
    if kind == "ACCT":
        return any(a["account_id"] == entity_id for a in profile["accounts"])
    if kind == "CARD":
        return any(c["card_id"] == entity_id for c in profile["cards"])
    return True  # transaction ownership is only knowable after listing; the tools enforce it


def _classify(text: str, foreign: Sequence[str]) -> Intent:
    """Order matters: safety first, then requests only a human can handle, then the rest."""
    if reading.has_any(text, ATTORNEY_CUES):
        return Intent.HAND_OVER
    if foreign or reading.has_any(text, THIRD_PARTY_CUES):
        return Intent.DECLINE
    if _first_cue(text, ESCALATION_CUES):
        return Intent.ESCALATE
    ordered = (
        (Intent.DISPUTE, ("dispute",)),
        (Intent.ADDRESS, ADDRESS_CUES),
        (Intent.TRANSFER, TRANSFER_CUES if parse_amounts(text) else ()),
        (Intent.CARD, BLOCK_CUES + REPLACE_CUES if "card" in text.lower() else ()),
        (Intent.HISTORY, HISTORY_CUES),
        (Intent.BALANCE, BALANCE_CUES),
    )
    return next((intent for intent, cues in ordered if reading.has_any(text, cues)),
                Intent.UNCLEAR)


def _checking(profile: Profile) -> dict[str, Any] | None:
    return next((a for a in profile["accounts"] if a["type"] == "checking"), None)


def _named_or_checking(profile: Profile, text: str) -> dict[str, Any] | None:
    named = reading.accounts_named(text, profile["accounts"])
    return named[0] if len(named) == 1 else _checking(profile)


def _hand_over(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    for entity_id in foreign[:1]:
        session.peek(entity_id)
    session.act("escalate_to_human", {"reason": "third_party_authority"})


def _decline(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    for entity_id in foreign[:1]:
        session.peek(entity_id)
    about_account = bool(foreign) and "-CUST-" not in foreign[0]
    reason = "not_account_holder" if about_account else "third_party_data"
    session.act("refuse_request", {"reason": reason})


def _escalate(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    reason = _first_cue(text, ESCALATION_CUES)
    if reason == "account_closure":
        named = reading.accounts_named(text, profile["accounts"])
        if len(named) == 1:
            session.lookup("get_account", {"account_id": named[0]["account_id"]})
    session.act("escalate_to_human", {"reason": reason})


def _dispute(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    account = _named_or_checking(profile, text)
    if account is None:
        return
    listing = session.lookup(
        "list_transactions", {"account_id": account["account_id"], "limit": MAX_TRANSACTIONS}
    )
    rows: list[dict[str, Any]] = (listing or {}).get("transactions", [])
    quoted_ids = set(reading.entity_ids(text))
    amounts = set(parse_amounts(text))
    lowered = text.lower()
    match = next(
        (
            row for row in rows
            if row["kind"] == "card_payment"
            and (row["transaction_id"] in quoted_ids
                 or (row["counterparty"].lower() in lowered and row["amount_cents"] in amounts))
        ),
        None,
    )
    if match is not None and match["status"] == "posted":
        reason = _first_cue(text, DISPUTE_REASON_CUES) or "not_recognised"
        session.act("dispute_transaction",
                    {"transaction_id": match["transaction_id"], "reason": reason})


def _address(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    parsed = reading.address(text)
    if parsed is None:
        return
    street, city, postcode = parsed
    if {"street": street, "city": city, "postcode": postcode} == profile["address"]:
        return
    session.act("update_address", {"customer_id": profile["customer_id"], "street": street,
                                   "city": city, "postcode": postcode})


def _transfer(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    ends = reading.transfer_ends(text, profile["accounts"])
    amounts = parse_amounts(text)
    if ends is None or ends[0] is ends[1] or not amounts:
        return
    source, target = ends
    details = session.lookup("get_account", {"account_id": source["account_id"]})
    if details is not None and amounts[0] > details["balance_cents"]:
        return
    session.act("transfer_between_own_accounts", {
        "from_account_id": source["account_id"],
        "to_account_id": target["account_id"],
        "amount_cents": amounts[0],
    })


def _find_card(profile: Profile, text: str) -> tuple[dict[str, Any] | None, bool]:
    """(the caller's card, whether the text pointed at a specific card at all)."""
    cards: list[dict[str, Any]] = profile["cards"]
    quoted = set(reading.entity_ids(text))
    digits = set(reading.last_fours(text))
    if quoted or digits:
        hits = [c for c in cards if c["card_id"] in quoted or c["last_four"] in digits]
        return (hits[0] if len(hits) == 1 else None), True
    in_use = [c for c in cards if c["status"] != "replaced"]
    return (in_use[0] if len(in_use) == 1 else None), False


def _card(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    card, pointed = _find_card(profile, text)
    if card is None:
        if pointed:
            session.act("refuse_request", {"reason": "not_account_holder"})
        return
    session.lookup("get_card", {"card_id": card["card_id"]})
    status = card["status"]
    if reading.has_any(text, BLOCK_CUES) and status == "active":
        reason = _first_cue(text, BLOCK_REASON_CUES) or "lost"
        session.act("block_card", {"card_id": card["card_id"], "reason": reason})
        status = "blocked"
    if reading.has_any(text, REPLACE_CUES) and status != "replaced":
        delivery = "express" if reading.has_any(text, EXPRESS_CUES) else "standard"
        session.act("replace_card", {"card_id": card["card_id"], "delivery": delivery})


def _history(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    account = _named_or_checking(profile, text)
    if account is None:
        return
    limit = reading.small_number(text) or DEFAULT_PAGE
    session.lookup("list_transactions", {"account_id": account["account_id"],
                                         "limit": min(limit, MAX_TRANSACTIONS)})


def _balance(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    named = reading.accounts_named(text, profile["accounts"])
    for account in named or profile["accounts"]:
        session.lookup("get_account", {"account_id": account["account_id"]})


def _unclear(session: Session, profile: Profile, text: str, foreign: Sequence[str]) -> None:
    """Nothing safe to do without asking the customer a follow-up question."""


_HANDLERS: dict[Intent, Callable[[Session, Profile, str, Sequence[str]], None]] = {
    Intent.HAND_OVER: _hand_over,
    Intent.DECLINE: _decline,
    Intent.ESCALATE: _escalate,
    Intent.DISPUTE: _dispute,
    Intent.ADDRESS: _address,
    Intent.TRANSFER: _transfer,
    Intent.CARD: _card,
    Intent.HISTORY: _history,
    Intent.BALANCE: _balance,
    Intent.UNCLEAR: _unclear,
}

DefectPicker = Callable[[Sequence[Defect]], Defect | None]


def _drive(request: PublicRequest, env: Environment, pick: DefectPicker) -> None:
    session = Session(env, request.caller)
    profile = session.verify()
    if profile is None:
        return
    text = request.request
    foreign = [i for i in reading.entity_ids(text) if not _owns(profile, i)]
    intent = _classify(text, foreign)
    session.defect = pick(_menu(intent, foreign))
    _HANDLERS[intent](session, profile, text, foreign)
    session.finish()


def run_rules(request: PublicRequest, env: Environment) -> None:
    """The mock's policy with no defects: verify, classify, resolve entities, act."""
    _drive(request, env, lambda menu: None)


def run_mock(
    request: PublicRequest, env: Environment, *, seed: int, repetition: int, noisy: bool
) -> None:
    """The rule policy plus at most one defect; identical across repetitions unless noisy."""
    _drive(request, env,
           lambda menu: pick_defect(menu, request.id, seed, repetition, noisy))


def run_null(request: PublicRequest, env: Environment) -> None:
    """Proposes nothing: a negative control whose outcome is always no_action."""


def run_episode(
    agent: Agent, request: PublicRequest, world_seed: int = DEFAULT_SEED
) -> Episode:
    """Run one agent on one request against a fresh world."""
    env = Environment(build_world(world_seed), request.caller)
    agent(request, env)
    return env.episode()
