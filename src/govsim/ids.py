"""Salted-hash identifiers and stable pseudo-random draws.

Promise: every identifier and every seeded choice is a pure function of its inputs via
SHA-256, so train and eval instances never share ids and reruns are byte-identical.
Must not import agent_assay.
"""

from __future__ import annotations

import hashlib
import random


def digest(*parts: object) -> str:
    """Hex SHA-256 over the parts, separated so ("ab", "c") differs from ("a", "bc")."""
    joined = "\x1f".join(str(part) for part in parts)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


def unit_interval(*parts: object) -> float:
    """A stable float in [0, 1) derived from the parts (used for seeded lapses)."""
    return int(digest(*parts)[:13], 16) / float(16**13)


def seeded_rng(*parts: object) -> random.Random:
    """A private RNG so that no global random state leaks between worlds."""
    return random.Random(int(digest(*parts)[:16], 16))


class IdMint:
    """Turns local template keys into salted ids unique to one generated instance."""

    def __init__(self, salt: str) -> None:
        self._salt = salt

    def __call__(self, prefix: str, key: str) -> str:
        return f"{prefix}_{digest(self._salt, prefix, key)[:12]}"
