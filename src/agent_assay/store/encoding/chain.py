"""The evidence chain: how one stored row, and one block of rows, are digested.

Every run has its own chain. Each append to a run (its creation, an event, a
trajectory with its scores, a re-scoring, a control outcome, a mutation pass)
is one *block*: a ledger entry whose digest covers the block's kind, its
detail, the digest of every row it added, and the digest of the block before
it. Every row carries the block it belongs to and the digest of its own
content. Editing a row breaks its digest; adding, removing or moving a row
breaks its block; removing or reordering blocks breaks the links.

Why per run and not per table or per database: a run is what a certificate
speaks for and what an evidence bundle carries, so its chain must verify
without any other run's rows; and separate runs written by separate processes
never contend for one head. Content-addressed rows (suites, items, configs)
need no chain: their identity is the hash of their content.

This module is pure: no database, only the encoding and the digests, so the
writer and every checker share one definition.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Protocol

GENESIS: Final = "0" * 64
ROW: Final = "aa.row.1"
BLOCK: Final = "aa.block.1"
EVIDENCE: Final = "aa.evidence.1"

# The columns whose values a row's digest covers, in order. Surrogate ids and
# the chain columns themselves are left out, so a row digests the same in any
# store it is copied into; a score row's (or score set's) trajectory_id is checked
# separately against the trajectory slot its content names.
CONTENT_COLUMNS: Final[Mapping[str, tuple[str, ...]]] = {
    "runs": (
        "run_id",
        "adapter",
        "suite_hash",
        "config_hash",
        "config_name",
        "repeats",
        "seed",
        "item_ids",
        "created_at",
    ),
    "run_env": ("run_id", "key", "value", "affects_results"),
    "run_events": ("run_id", "event", "detail", "at"),
    "trajectories": ("run_id", "item_id", "repetition", "crashed", "payload", "created_at"),
    "scores": (
        "run_id",
        "item_id",
        "repetition",
        "scorer",
        "scorer_version",
        "value",
        "detail",
        "imported",
        "generation",
    ),
    "score_sets": (
        "run_id",
        "item_id",
        "repetition",
        "generation",
        "scorers",
        "packed_values",
        "details",
    ),
    "score_generations": ("run_id", "generation", "reason", "scorers", "at"),
    "control_outcomes": (
        "run_id",
        "kind",
        "version",
        "status",
        "suite_hash",
        "config_hash",
        "payload",
        "created_at",
    ),
    "mutation_results": ("run_id", "operator", "payload", "created_at"),
}

CHAINED_TABLES: Final = tuple(CONTENT_COLUMNS)

# The tables that hold scores: rows per score (runs written before schema 4) and sets.
SCORE_TABLES: Final = ("scores", "score_sets")


class Columns(Protocol):
    """Anything whose values can be read by column name (a dict, a database row mapping)."""

    def __getitem__(self, key: str, /) -> Any: ...


class UnencodableValue(ValueError):
    """A stored value of a type no writer produces (the row was not written by the harness)."""


def _field(value: Any) -> str:
    """One typed, self-delimiting token: a string cannot be mistaken for a number.

    Exact types are tested first, most common first: this runs for every stored row.
    """
    kind = type(value)
    if kind is str:
        return f"s{len(value)}:{value}"
    if kind is int:
        return f"i{value}"
    if value is None:
        return "n"
    if kind is float:
        if not math.isfinite(value):
            raise UnencodableValue(f"non-finite number {value!r}")
        return f"f{value!r}"
    if kind is bool:
        return "i1" if value else "i0"
    for base in (bool, int, float, str):  # subclasses encode as their base type
        if isinstance(value, base):
            return _field(base(value))
    raise UnencodableValue(f"value of type {kind.__name__}")


def _encode(parts: Sequence[str]) -> bytes:
    return "\x1f".join(parts).encode("utf-8", "surrogatepass")


def encode_row(table: str, values: Sequence[Any]) -> bytes:
    """The canonical bytes of one row: its table and each content value, typed (the common
    types inline, as `_field` writes them: this runs for every stored row)."""
    parts = [ROW, table]
    for value in values:
        kind = type(value)
        if kind is str:
            parts.append(f"s{len(value)}:{value}")
        elif kind is int:
            parts.append(f"i{value}")
        else:
            parts.append(_field(value))
    return _encode(parts)


def row_digest(table: str, values: Sequence[Any]) -> str:
    return hashlib.sha256(encode_row(table, values)).hexdigest()


def content_of(table: str, row: Columns) -> tuple[Any, ...]:
    """The content values of a row given as a column mapping (a dict or a SQLAlchemy row)."""
    return tuple(row[column] for column in CONTENT_COLUMNS[table])


DIGEST = re.compile(r"[0-9a-f]{64}")


def is_digest(value: object) -> bool:
    """A SHA-256 digest as this module writes it: 64 lowercase hex characters (checked for
    every stored row by the integrity check, so a compiled pattern, not a loop)."""
    return isinstance(value, str) and DIGEST.fullmatch(value) is not None


def block_digest(
    run_id: str, seq: int, kind: str, prev: str, detail: str, row_digests: Iterable[str]
) -> str:
    """The digest of one ledger block. Row digests are sorted, so row order inside a block
    (and surrogate ids) never matter; duplicates still count."""
    header = "\x1f".join([BLOCK, run_id, str(seq), kind, prev, detail])
    return _sorted_digest(header, row_digests)


def set_digest(row_digests: Iterable[str]) -> str:
    """The digest of a set of rows (as a multiset of their digests), for certificates."""
    return _sorted_digest(EVIDENCE, row_digests)


def _sorted_digest(head: str, row_digests: Iterable[str]) -> str:
    """SHA-256 of `head`, then a separator and each digest in sorted order, hashed in one
    call (the bytes are those of updating once per digest)."""
    text = head + "".join(f"\x1f{row}" for row in sorted(row_digests))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
