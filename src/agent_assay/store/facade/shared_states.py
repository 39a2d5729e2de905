"""Stored trajectories read for comparing: final states rebuilt on shared bases.

A store reader hands every trajectory a fresh copy of its base state (its caller may
change it), and two final states read so are equal only after a walk of both whole
worlds. identical_config changes nothing it reads and compares every stored value of
three runs, so it reads them here: the same rows as `Store.trajectories_by_item` (the
newest attempt of each slot, items in id order, each item's in repetition order), each
final state rebuilt copy-on-write on one decoded object per base. A base that another
run stored for the same item is first rebuilt on the base read first for that item, from
the edits between the two, and used only if it reproduces the stored base's canonical
JSON byte for byte (else it is decoded on its own). So two runs' equal final states
share every container no edit touched, `==` meets them by identity instead of walking a
whole world, and leaf counts of a shared container are counted once.

Bases are checked against their digests as a store reader checks them, a row that does
not decode is tampered evidence as there, and at most `keep` bases are held.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterator
from functools import partial
from typing import Any

from agent_assay.hashing import canonical_json
from agent_assay.model import Trajectory
from agent_assay.store.database.base_states import BaseStates
from agent_assay.store.encoding.state_blobs import expanded
from agent_assay.store.encoding.state_delta import rebuilt, section_edits
from agent_assay.store.facade import reads
from agent_assay.store.facade.store import Store

ANCHORED_ITEMS = 16
"""Items whose first base is remembered (walks of several runs move in step, item by item)."""


class SharedStates:
    """A reader of stored trajectories whose final states share their bases' containers.
    Nothing it returns may be changed: what reads through it (identical_config, and the
    controls' walks of the certified run, which score it with pure scorers) changes
    nothing, and what mutates a trajectory copies it first."""

    def __init__(self, store: Store, keep: int = reads.BASES_HELD) -> None:
        self.store, self.keep = store, keep
        self.texts = BaseStates(store.engine, keep=keep)
        self.objects: OrderedDict[tuple[str, str], Any] = OrderedDict()
        """(anchor digest, digest) -> the base `digest`, built on the anchor when it could be."""
        self.anchors: OrderedDict[str, str] = OrderedDict()
        """item -> the digest of the first base read for it."""

    def by_item(self, run_id: str) -> Iterator[tuple[str, list[Trajectory]]]:
        """`run_id`'s trajectories an item at a time, as `Store.trajectories_by_item` gives
        them (no connection stays open while the caller works on an item)."""
        where = reads.trajectory_filter(run_id, None, None)
        with self.store.reading() as conn:
            items = reads.items_with_trajectories(conn, where)
        for item in items:
            with self.store.reading() as conn:
                decoded = reads.item_payloads(conn, where, item)
            if decoded:
                build = partial(self._trajectory, item)
                yield item, [reads.built(build, "trajectories", row_id, data)
                             for row_id, data in decoded]

    def _trajectory(self, item: str, data: Any) -> Trajectory:
        return Trajectory.from_json(expanded(data, partial(self.base, item)))

    def base(self, item: str, digest: str) -> Any:
        """Base `digest` as trajectories of `item` are rebuilt on it: one object, shared."""
        anchor = self.anchors.pop(item, digest)
        self.anchors[item] = anchor  # most recently used last
        while len(self.anchors) > ANCHORED_ITEMS:
            self.anchors.popitem(last=False)
        key = (anchor, digest)
        if key not in self.objects:
            self.objects[key] = self._built(anchor, digest)
            while len(self.objects) > self.keep:
                self.objects.popitem(last=False)
        self.objects.move_to_end(key)
        return self.objects[key]

    def _built(self, anchor: str, digest: str) -> Any:
        text = self.texts.text(digest)  # ValueError when missing or altered
        own = json.loads(text)
        if anchor == digest:
            return own
        first = self._anchor(anchor)
        if not (_sections(first) and _sections(own)):
            return own
        pieces = {key: canonical_json(value) for key, value in own.items()}
        first_pieces = {key: canonical_json(value) for key, value in first.items()}
        candidate = rebuilt(first, section_edits(first, first_pieces, own, pieces))
        return candidate if canonical_json(candidate) == text else own


    def _anchor(self, anchor: str) -> Any:
        """The anchor's own object (decoded again if it was let go)."""
        key = (anchor, anchor)
        if key not in self.objects:
            self.objects[key] = json.loads(self.texts.text(anchor))
        return self.objects[key]


def _sections(value: Any) -> bool:
    """Whether `value` is a state the edits work on section by section."""
    return isinstance(value, dict) and all(type(key) is str for key in value)
