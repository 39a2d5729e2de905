"""Base states as a reader fetches them from `state_blobs` (see `encoding.state_blobs`)."""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Engine, select

from agent_assay.hashing import STATE, canonical_hash
from agent_assay.store.database import schema


class BaseStates:
    """The reader's side: base states by digest, each checked against its digest once.

    With `keep`, at most that many are held (beyond those one `load` asks for), the least
    recently used let go first: a reader streaming a large run holds the bases of what it
    reads now, not of everything it has read. A base let go is fetched and checked again
    if it is needed again."""

    def __init__(self, engine: Engine, keep: int | None = None) -> None:
        self._engine = engine
        self._keep = keep
        self._texts: dict[str, str | None] = {}
        self._checked: set[str] = set()
        self._pickled: dict[str, bytes] = {}

    def load(self, digests: Iterable[str]) -> None:
        asked = set(digests)
        for digest in asked & self._texts.keys():  # most recently used last
            self._texts[digest] = self._texts.pop(digest)
        wanted = sorted(asked - self._texts.keys())
        self._let_go(spare=asked)
        if not wanted:
            return
        blobs = schema.state_blobs
        with self._engine.connect() as conn:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                rows = conn.execute(
                    select(blobs.c.digest, blobs.c.payload).where(blobs.c.digest.in_(chunk))
                )
                self._texts.update({r.digest: r.payload for r in rows})
        for digest in wanted:
            self._texts.setdefault(digest, None)

    def _let_go(self, spare: set[str]) -> None:
        excess = 0 if self._keep is None else len(self._texts) - self._keep
        if excess <= 0:
            return
        oldest_first = [d for d in self._texts if d not in spare]
        for digest in oldest_first[:excess]:
            del self._texts[digest]
            self._pickled.pop(digest, None)
            self._checked.discard(digest)

    def text(self, digest: str) -> str:
        """The canonical JSON of base state `digest`; ValueError when it is missing or its
        content no longer hashes to its name."""
        if digest not in self._texts:
            self.load([digest])
        text = self._texts[digest]
        if text is None:
            raise ValueError(f"its base state {digest[:16]} is not in state_blobs")
        if digest not in self._checked:
            if canonical_hash(STATE, text) != digest:
                raise ValueError(
                    f"its base state {digest[:16]} does not match its digest (altered)"
                )
            self._checked.add(digest)
        return text

    def fresh(self, digest: str) -> Any:
        """Base state `digest` decoded anew: what a reader hands out may be changed by its
        caller without touching any other trajectory's state. (Decoded from JSON once, then
        unpickled for each caller, which takes about half as long.)"""
        if digest not in self._pickled:
            self._pickled[digest] = pickle.dumps(json.loads(self.text(digest)),
                                                 pickle.HIGHEST_PROTOCOL)
        return pickle.loads(self._pickled[digest])
