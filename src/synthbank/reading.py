"""Pulls entity references out of a customer's free text for the rule-based mock agent.

Promise: pure string functions with no knowledge of the world beyond what the agent has
already looked up (passed in explicitly). They are heuristics, like a real agent's reading
of a message, and may miss; callers must handle None. This module must not import agent_assay.
"""

import re
from collections.abc import Sequence
from typing import Any

from synthbank.vocab import POSTCODE_PATTERN

_ENTITY_ID = re.compile(r"SYN-(?:CUST|ACCT|CARD|TXN)-\d+")
_LAST_FOUR = re.compile(r"(?<![\w-])(?<!\d[,.])\d{4}(?![\w-]|[,.]\d)")
_SMALL_NUMBER = re.compile(r"(?<![\w€-])(?<!\d[,.])\d{1,2}(?![\w-]|[,.]\d)")
_ADDRESS = re.compile(rf"(\d+ [^,]+?),\s*([^,]+?),\s*({POSTCODE_PATTERN})")
_FROM = re.compile(r"\bfrom\b(.*?)(?=\b(?:to|into)\b|[,.?!]|$)", re.IGNORECASE)
_TO = re.compile(r"\b(?:to|into)\b(.*?)(?=\bfrom\b|[,.?!]|$)", re.IGNORECASE)

ACCOUNT_TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "checking": ("checking", "current account"),
    "savings": ("savings",),
}


def has_any(text: str, cues: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(cue in lowered for cue in cues)


def entity_ids(text: str) -> list[str]:
    return _ENTITY_ID.findall(text)


def _without_ids(text: str) -> str:
    return _ENTITY_ID.sub(" ", text)


def last_fours(text: str) -> list[str]:
    """Standalone four-digit groups: how customers quote a card number."""
    return _LAST_FOUR.findall(_without_ids(text))


def small_number(text: str) -> int | None:
    """The first standalone one- or two-digit number, e.g. 'my last 5 payments'."""
    found = _SMALL_NUMBER.search(_without_ids(text))
    return int(found.group()) if found else None


def address(text: str) -> tuple[str, str, str] | None:
    """(street, city, postcode) written as 'number street, city, postcode'."""
    found = _ADDRESS.search(text)
    if found is None:
        return None
    street, city, postcode = found.groups()
    return street.strip(), city.strip(), postcode


def _names_account(phrase: str, account: dict[str, Any]) -> bool:
    words = (account["nickname"], *ACCOUNT_TYPE_WORDS.get(account["type"], ()))
    return any(
        re.search(rf"\b{re.escape(word)}\b", phrase, re.IGNORECASE) is not None
        for word in words
    )


def accounts_named(phrase: str, accounts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The caller's accounts the phrase refers to, by id, nickname or type word."""
    ids = set(entity_ids(phrase))
    return [a for a in accounts if a["account_id"] in ids or _names_account(phrase, a)]


def transfer_ends(
    text: str, accounts: Sequence[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(source, destination) from 'from my X ... to/into my Y' in either order."""
    source = _first_named(_FROM.findall(text), accounts)
    target = _first_named(_TO.findall(text), accounts)
    if source is None or target is None:
        return None
    return source, target


def _first_named(phrases: list[str], accounts: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    for phrase in phrases:
        named = accounts_named(phrase, accounts)
        if len(named) == 1:
            return named[0]
    return None
