"""Final states stored once: base states content-addressed, trajectories holding edits.

A trajectory's payload holds its final state inline when the state is small.
A larger state is written as ``final_state_delta: {"base": D, "edits": [...]}``:
D names a row of ``state_blobs`` (the canonical JSON of a state and its digest),
and the edits (see `state_delta`) turn that state into this trajectory's. The
payload, with D inside it, is what the trajectory's chained digest covers; a
base state needs no chain, because its key is the digest of its content, and
every reader checks the two agree.

Which base: the writer keeps, per run, the first large state it stored and
the most recent one of each item (a bounded number of items), and uses the
first whose edits are at most half the size of the whole state (each
section's edits checked to rebuild it byte for byte, see `state_delta`).
Otherwise the state itself becomes a base, so identical states (every
null-agent trajectory, say) are stored once.
"""

from __future__ import annotations

import io
import json
import pickle
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from agent_assay.hashing import STATE, canonical_hash, canonical_json
from agent_assay.store.encoding.state_delta import joined, rebuilt, section_edits

DELTA_KEY: Final = "final_state_delta"
INLINE_BYTES: Final = 4096
"""States whose canonical JSON is shorter stay in the payload: a base would cost more."""
ITEM_BASES: Final = 16
"""Item bases remembered per writer, least recently used dropped: memory stays bounded."""


@dataclass(frozen=True, slots=True)
class Base:
    digest: str
    text: str
    value: dict[str, Any]
    pieces: dict[str, str]
    """The canonical JSON of each section of `value` (see `state_delta.sections`)."""
    pickles: dict[str, bytes | None]
    """Each section of the state that became this base, pickled (None if it would not)."""


@dataclass(frozen=True, slots=True)
class Encoded:
    """A trajectory payload ready to store, and the base state to store with it, if new."""

    payload: dict[str, Any]
    blob: Base | None
    used: Base | None


class StateEncoder:
    """The writer's side: chooses a base for each large final state."""

    def __init__(self) -> None:
        self._run_bases: dict[str, Base] = {}
        self._item_bases: OrderedDict[tuple[str, str], Base] = OrderedDict()

    def encode(self, run_id: str, payload: dict[str, Any]) -> Encoded:
        state = payload.get("final_state")
        if not isinstance(state, dict) or not all(type(key) is str for key in state):
            return Encoded(payload, None, None)  # none, or keys only canonical_json orders
        item = (run_id, str(payload["item_id"]))
        candidates = [b for b in (self._item_bases.get(item), self._run_bases.get(run_id)) if b]
        if len(candidates) == 2 and candidates[0] is candidates[1]:
            candidates.pop()  # the item's last base is the run's first: try it once
        if not candidates and _clearly_small(state):
            return Encoded(payload, None, None)
        pieces = _Pieces(state)
        for base in candidates:
            against = pieces.against(base)
            full = joined(against)
            if len(full) < INLINE_BYTES:
                return Encoded(payload, None, None)
            edits = section_edits(base.value, base.pieces, state, against)
            if len(canonical_json(edits)) * 2 <= len(full):
                return Encoded(_with_delta(payload, base.digest, edits), None, base)
        whole = pieces.all()
        full = joined(whole)
        if len(full) < INLINE_BYTES:
            return Encoded(payload, None, None)
        fresh = Base(canonical_hash(STATE, full), full, json.loads(full), whole, pieces.pickles())
        return Encoded(_with_delta(payload, fresh.digest, []), fresh, fresh)

    def stored(self, run_id: str, encoded: Encoded) -> None:
        """Remember `encoded`'s base once its transaction committed (never before: a rolled
        back blob must not be named by a later trajectory)."""
        if encoded.used is None:
            return
        self._run_bases.setdefault(run_id, encoded.used)
        item = (run_id, str(encoded.payload["item_id"]))
        self._item_bases[item] = encoded.used
        self._item_bases.move_to_end(item)
        while len(self._item_bases) > ITEM_BASES:
            self._item_bases.popitem(last=False)


def _clearly_small(state: dict[str, Any]) -> bool:
    """Whether `state` is far below INLINE_BYTES, judged by its pickle (a few microseconds
    for a small state, where serialising it twice would cost the writer more). The pickle
    is taken without its memo, so an object referred to many times counts every time, as
    it does in JSON. A wrong guess only stores inline a state that could have had a base."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo: repeated references are written out in full
    try:
        pickler.dump(state)
    except Exception:  # an object pickle refuses: the canonical form decides
        return False
    return out.tell() * 2 < INLINE_BYTES


class _Pieces:
    """A state's sections in canonical JSON, each computed at most once. A section that
    pickles to the same bytes as the base's took its canonical JSON from the base: equal
    pickles mean the same structure, the same types and the same float bits, so the same
    canonical JSON, and pickling is several times cheaper than canonical serialisation.
    (Unequal pickles prove nothing, e.g. keys in another order; the section is then
    serialised.)"""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state
        self.texts: dict[str, str] = {}
        self._pickled: dict[str, bytes | None] = {}

    def _pickle(self, key: str) -> bytes | None:
        if key not in self._pickled:
            try:
                self._pickled[key] = pickle.dumps(self.state[key], pickle.HIGHEST_PROTOCOL)
            except Exception:  # an object pickle refuses: the section is serialised instead
                self._pickled[key] = None
        return self._pickled[key]

    def against(self, base: Base) -> dict[str, str]:
        for key, value in self.state.items():
            if key in self.texts:
                continue
            known = base.pickles.get(key)
            if known is not None and key in base.pieces and self._pickle(key) == known:
                self.texts[key] = base.pieces[key]
            else:
                self.texts[key] = canonical_json(value)
        return self.texts

    def all(self) -> dict[str, str]:
        for key, value in self.state.items():
            if key not in self.texts:
                self.texts[key] = canonical_json(value)
        return dict(self.texts)

    def pickles(self) -> dict[str, bytes | None]:
        return {key: self._pickle(key) for key in self.state}


def _with_delta(payload: dict[str, Any], digest: str, edits: list[Any]) -> dict[str, Any]:
    out = {k: v for k, v in payload.items() if k != "final_state"}
    out[DELTA_KEY] = {"base": digest, "edits": edits}
    return out


def base_digests(payloads: Iterable[Mapping[str, Any]]) -> set[str]:
    """The base states a set of decoded payloads name."""
    found: set[str] = set()
    for data in payloads:
        delta = data.get(DELTA_KEY) if isinstance(data, Mapping) else None
        if isinstance(delta, Mapping) and isinstance(delta.get("base"), str):
            found.add(delta["base"])
    return found


def expanded(data: Any, base_of: Callable[[str], Any]) -> Any:
    """A decoded payload with its final state rebuilt from the base `base_of` returns for
    its digest (`rebuilt` leaves that base as it is); ValueError when the delta is
    malformed or its base is missing or altered. Payloads without one pass as they are."""
    if not isinstance(data, dict) or DELTA_KEY not in data:
        return data
    delta = data[DELTA_KEY]
    if "final_state" in data:
        raise ValueError("it holds both a final state and a delta")
    if not isinstance(delta, dict) or set(delta) != {"base", "edits"} or not isinstance(
        delta["base"], str
    ) or not isinstance(delta["edits"], list):
        raise ValueError("its final-state delta is malformed")
    out = {k: v for k, v in data.items() if k != DELTA_KEY}
    state = rebuilt(base_of(delta["base"]), delta["edits"])
    if not isinstance(state, dict):
        raise ValueError("its rebuilt final state is not an object")
    out["final_state"] = state
    return out
