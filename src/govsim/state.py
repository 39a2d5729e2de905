"""Episode state, its JSON snapshot and the execution receipt.

Promise: the snapshot is JSON-safe and round-trips through ``parse_snapshot``; receipts are
keyed by the task's hidden secret so a receipt cannot be fabricated from the public view.
Must not import agent_assay.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from govsim.attempts import Attempt
from govsim.ids import digest
from govsim.quantities import Scalar


@dataclass(frozen=True)
class CreatedAction:
    action_id: str
    family: str
    payload: dict[str, Scalar]

    def as_dict(self) -> dict[str, Any]:
        return {"action_id": self.action_id, "family": self.family, "payload": dict(self.payload)}


@dataclass(frozen=True)
class Execution:
    action_id: str
    signatory_id: str
    receipt: str

    def as_dict(self) -> dict[str, str]:
        return {
            "action_id": self.action_id,
            "signatory_person_id": self.signatory_id,
            "receipt": self.receipt,
        }


@dataclass
class EpisodeState:
    action: CreatedAction | None = None
    attempts: list[Attempt] = field(default_factory=list)
    execution: Execution | None = None
    turns_used: int = 0
    preflight_used: int = 0
    tool_errors: int = 0

    @property
    def status(self) -> str:
        if self.execution is not None:
            return "executed"
        return "none" if self.action is None else "created"

    def snapshot(self, task_id: str) -> dict[str, Any]:
        return {
            "task_id": task_id,
            "action_status": self.status,
            "action": None if self.action is None else self.action.as_dict(),
            "authorizations": [a.as_dict() for a in self.attempts],
            "execution": None if self.execution is None else self.execution.as_dict(),
            "turns_used": self.turns_used,
            "preflight_used": self.preflight_used,
            "tool_errors": self.tool_errors,
        }


def receipt(secret: str, action: CreatedAction, attempts: list[Attempt], signatory: str) -> str:
    """Binds the execution to the exact action, approvals and signatory it was made with."""
    body = json.dumps(
        [action.as_dict(), [a.as_dict() for a in attempts], signatory], sort_keys=True
    )
    return f"rcpt_{digest(secret, body)[:20]}"


class MalformedSnapshot(ValueError):
    """The snapshot is not in the shape ``EpisodeState.snapshot`` produces."""


def parse_snapshot(data: object) -> EpisodeState:
    """Rebuild state from a snapshot, rejecting anything not produced by this package."""
    try:
        return _parse(data)
    except (KeyError, TypeError, AttributeError) as exc:
        raise MalformedSnapshot(str(exc)) from exc


def _parse(data: Any) -> EpisodeState:
    action_raw = data["action"]
    action = None
    if action_raw is not None:
        payload = {str(k): _scalar(v) for k, v in dict(action_raw["payload"]).items()}
        action = CreatedAction(_text(action_raw["action_id"]), _text(action_raw["family"]), payload)
    attempts = [
        Attempt(
            _text(a["authorizer_id"]),
            _text(a["method"]),
            _texts(a["participant_ids"]),
            _texts(a.get("recused_ids", [])),
            _texts(a.get("disclosure_record_ids", [])),
        )
        for a in data["authorizations"]
    ]
    ex = data["execution"]
    execution = None
    if ex is not None:
        execution = Execution(
            _text(ex["action_id"]), _text(ex["signatory_person_id"]), _text(ex["receipt"])
        )
    return EpisodeState(action, attempts, execution)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _texts(values: object) -> tuple[str, ...]:
    if not isinstance(values, list | tuple):
        raise TypeError("expected a list of strings")
    return tuple(_text(v) for v in values)


def _scalar(value: object) -> Scalar:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError("payload values must be strings or integers")
    return value
