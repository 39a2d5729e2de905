"""A trajectory made ready to append: payload encoded, path digested, scores attached.

Preparing is the part of writing a trajectory that needs no database: encoding
its final state against a base (`state_blobs`), serialising the payload and
digesting its proposal path. The writer prepares trajectories itself when it
scores them; with worker processes, the scoring workers prepare them, so the
writer only hashes and appends them, a batch per transaction (`Store.write_prepared_group`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_assay.hashing import canonical_json
from agent_assay.model import JSON, Trajectory
from agent_assay.store.encoding.score_pack import PackedScores, pack_records
from agent_assay.store.encoding.state_blobs import Encoded, StateEncoder
from agent_assay.store.records import ScoreRecord


@dataclass(frozen=True, slots=True)
class PreparedTrajectory:
    item_id: str
    repetition: int
    crashed: bool
    error: str | None
    meta: Mapping[str, JSON]
    steps: int
    path: str
    """The digest of the proposal path (`Trajectory.path_digest`), which the block records."""
    payload: str
    """The canonical JSON the trajectory row stores."""
    state: str | None
    """The base state the payload names, if any."""
    blob: tuple[str, str] | None
    """(digest, canonical JSON) of a base state first named by this payload, to be stored
    in the same transaction."""
    score_set: PackedScores | None
    """Its scores as its score set row stores them (None: no score to store)."""


def prepare(
    encoder: StateEncoder, run_id: str, trajectory: Trajectory, scores: Sequence[ScoreRecord]
) -> tuple[PreparedTrajectory, Encoded]:
    """`trajectory` ready to append, and what `encoder` must be told once it is stored."""
    encoded = encoder.encode(run_id, trajectory.to_json())
    base = encoded.used
    blob = None if encoded.blob is None else (encoded.blob.digest, encoded.blob.text)
    row = prepared_row(trajectory, canonical_json(encoded.payload),
                       None if base is None else base.digest, blob, scores)
    return row, encoded


def prepared_row(
    trajectory: Trajectory, payload: str, state: str | None, blob: tuple[str, str] | None,
    scores: Sequence[ScoreRecord],
) -> PreparedTrajectory:
    """The row of `trajectory`, whose payload was encoded as `payload` (naming base `state`,
    carried as `blob` if the writer may not have it yet), with its scores."""
    return PreparedTrajectory(
        item_id=trajectory.item_id,
        repetition=trajectory.repetition,
        crashed=bool(trajectory.crashed),
        error=trajectory.error,
        meta=trajectory.meta,
        steps=len(trajectory.steps),
        path=trajectory.path_digest(),
        payload=payload,
        state=state,
        blob=blob,
        score_set=pack_records(scores),
    )
