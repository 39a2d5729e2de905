"""The store's plain records: what a read hands back and a write is given.

Frozen dataclasses and the run-event names, nothing else: every part of the store (and
everything outside it) can use them without importing the `Store` facade.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agent_assay.model import CrashCause

__all__ = [
    "OPENING_EVENTS",
    "SESSION_EVENTS",
    "TERMINAL_EVENTS",
    "Attempt",
    "Head",
    "LedgerEntry",
    "RetriedSlot",
    "RunEvent",
    "ScoreRecord",
    "StoredOutcome",
    "StoredRows",
]

TERMINAL_EVENTS = frozenset({"complete", "interrupted"})
OPENING_EVENTS = frozenset({"started", "resumed"})
SESSION_EVENTS = TERMINAL_EVENTS | OPENING_EVENTS
"""A writing session opens with `started` or `resumed` and closes with a terminal event."""
"""Events that record the chain head they close on."""


@dataclass(frozen=True, slots=True)
class Head:
    """The newest block of a run's chain."""

    seq: int
    digest: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "digest": self.digest}


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One block of a run's chain, as stored (detail is the canonical JSON that was hashed)."""

    seq: int
    kind: str
    detail: str
    prev_digest: str
    digest: str
    at: str


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """One stored score: which trajectory slot, which scorer at which version, what value."""

    item_id: str
    repetition: int
    scorer: str
    scorer_version: str
    value: float | None
    detail: Mapping[str, Any] | None = None
    imported: bool = False

    def slot_key(self) -> tuple[str, int, str]:
        return (self.item_id, self.repetition, self.scorer)

    def same_result(self, other: ScoreRecord) -> bool:
        return (
            self.scorer_version == other.scorer_version
            and self.value == other.value
            and (self.detail or None) == (other.detail or None)
            and self.imported == other.imported
        )


@dataclass(frozen=True, slots=True)
class Attempt:
    """A trajectory that runs a crashed slot again: its number at the slot (2 or more),
    and the attempt it runs again, as its block records them: that row's digest and whose
    crash it was (`model.CrashCause`)."""

    number: int
    retries: str
    cause: CrashCause


@dataclass(frozen=True, slots=True)
class RetriedSlot:
    """A slot with more than one attempt: the newest attempt's number, and whose crash each
    earlier attempt was, oldest first (an earlier attempt is always a crash)."""

    newest: int
    earlier: tuple[CrashCause, ...]


@dataclass(frozen=True, slots=True)
class StoredOutcome:
    """A control outcome as stored: which run, suite and config it speaks for."""

    run_id: str
    suite_hash: str
    config_hash: str
    payload: Mapping[str, Any]
    created_at: str
    row_id: int = 0

    @property
    def kind(self) -> str:
        return str(self.payload["kind"])

    @property
    def status(self) -> str:
        return str(self.payload["status"])


@dataclass(frozen=True, slots=True)
class RunEvent:
    event: str
    detail: Mapping[str, Any]
    at: str


@dataclass(frozen=True)
class StoredRows:
    """A table's rows of one run as plain tuples: the content columns in chain order, then
    block and digest, then the rest; an iterator, read once."""

    columns: tuple[str, ...]
    rows: Iterator[tuple[Any, ...]]
