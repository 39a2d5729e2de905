"""Content identity: canonical JSON and versioned SHA-256 hashes.

Items, suites, configs and scorers are identified by what they contain, never
by their names. The kind prefix (``aa.item.1`` ...) is hashed in, so an item and
a config with identical JSON still get different identities, and a change to
the canonical form can be made by bumping the prefix instead of silently
changing every stored hash.
"""

import hashlib
import json
from typing import Any, Final

ITEM: Final = "aa.item.1"
SUITE: Final = "aa.suite.1"
CONFIG: Final = "aa.config.1"
SCORER: Final = "aa.scorer.1"
TRAJECTORY: Final = "aa.trajectory.1"
PATH: Final = "aa.path.1"
STATE: Final = "aa.state.1"


_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
    check_circular=False,
).encode
"""`json.dumps` with these arguments, the encoder made once: `dumps` builds a new one on
every call, a fifth of serialising a trajectory's payload. An encoder keeps no state
between calls. No circular-reference check (a marker per object written, a sixth of the
rest): the text of every value that has one is the same, and a value that refers to
itself still has none, refused as too deep (RecursionError) instead of as circular."""


def canonical_json(value: Any) -> str:
    """Serialise with sorted keys, no whitespace and no NaN, so equal values hash equal."""
    return _CANONICAL(value)


def content_hash(kind: str, value: Any) -> str:
    """SHA-256 over the kind prefix and the canonical JSON of `value`."""
    return canonical_hash(kind, canonical_json(value))


def canonical_hash(kind: str, canonical: str) -> str:
    """`content_hash` of a value whose canonical JSON is already at hand."""
    digest = hashlib.sha256()
    digest.update(kind.encode("utf-8"))
    digest.update(b"\n")
    digest.update(canonical.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def stable_seed(*parts: object) -> int:
    """A 63-bit seed derived from `parts` that survives a new interpreter (unlike hash())."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1
