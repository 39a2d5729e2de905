"""Typed defect codes that the validator and preflight report.

Promise: a closed vocabulary of why an action is not validly authorised, with one subject id
per defect so reports can be aggregated. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Code(StrEnum):
    EXECUTION_MISSING = "execution_missing"
    EXECUTION_UNVERIFIED = "execution_unverified"
    ACTION_MISSING = "action_missing"
    ACTION_MISMATCH = "action_mismatch"
    MALFORMED_STATE = "malformed_state"
    MISSING_AUTHORIZATION = "missing_authorization"
    MISSING_CONSENT = "missing_consent"
    MISSING_SPECIAL_APPROVAL = "missing_special_approval"
    MISSING_DISCLOSURE = "missing_disclosure"
    MISSING_RECUSAL = "missing_recusal"
    CONFLICTED_VOTE_COUNTED = "conflicted_vote_counted"
    NO_QUORUM = "no_quorum"
    INSUFFICIENT_VOTES = "insufficient_votes"
    INELIGIBLE_PARTICIPANT = "ineligible_participant"
    WRONG_AUTHORIZER = "wrong_authorizer"
    WRONG_METHOD = "wrong_method"
    STALE_AUTHORITY = "stale_authority"
    INVALID_SIGNATORY = "invalid_signatory"
    WRONG_ENTITY_SIGNATORY = "wrong_entity_signatory"
    CAPACITY_EXCEEDED = "capacity_exceeded"
    TERMS_MISMATCH = "terms_mismatch"
    SEQUENCE_VIOLATED = "sequence_violated"
    PROHIBITED_ACTION = "prohibited_action"


@dataclass(frozen=True)
class Defect:
    """One reason for invalidity; ``subject`` is always a public id, never a rule id."""

    code: Code
    subject: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code.value, "subject": self.subject, "detail": self.detail}


def merge(*groups: Iterable[Defect]) -> tuple[Defect, ...]:
    """Concatenate defect groups, keeping the first defect per (code, subject)."""
    seen: set[tuple[Code, str]] = set()
    out: list[Defect] = []
    for group in groups:
        for defect in group:
            key = (defect.code, defect.subject)
            if key not in seen:
                seen.add(key)
                out.append(defect)
    return tuple(out)
