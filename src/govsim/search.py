"""Deterministic BM25 over rendered record prose, written from scratch.

Promise: identical queries over identical records return identical rankings (ties broken
by record id); only visible prose is indexed, never hidden rule ids.
Must not import agent_assay.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"a", "an", "and", "any", "be", "by", "for", "in", "is", "its", "may"})
_STOP |= {"no", "not", "of", "on", "or", "the", "this", "to", "with"}


def tokenize(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


@dataclass(frozen=True)
class Hit:
    doc_id: str
    score: float


class Bm25Index:
    """Okapi BM25 with the usual k1/b defaults and a non-negative idf."""

    def __init__(self, docs: Sequence[tuple[str, str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.ids = [doc_id for doc_id, _ in docs]
        self.freqs = [Counter(tokenize(text)) for _, text in docs]
        self.lengths = [sum(f.values()) for f in self.freqs]
        self.avg = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        df: Counter[str] = Counter()
        for f in self.freqs:
            df.update(f.keys())
        n = len(docs)
        self.idf = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def search(self, query: str, keep: Callable[[str], bool], limit: int) -> list[Hit]:
        """Top ``limit`` documents with a positive score among those ``keep`` accepts."""
        terms = tokenize(query)
        hits = []
        for doc_id, freq, length in zip(self.ids, self.freqs, self.lengths, strict=True):
            if not keep(doc_id):
                continue
            score = sum(self._term(freq[t], length, t) for t in terms if t in freq)
            if score > 0:
                hits.append(Hit(doc_id, round(score, 6)))
        hits.sort(key=lambda h: (-h.score, h.doc_id))
        return hits[:limit]

    def _term(self, tf: int, length: int, term: str) -> float:
        norm = self.k1 * (1 - self.b + self.b * length / (self.avg or 1.0))
        return self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
