"""Row encodings, pure (no database): how a row and a block are digested (`chain`), how a
trajectory's scores are packed (`score_pack`) and read as columns (`score_columns`), how
final states are stored once and as edits (`state_blobs`, `state_delta`), a trajectory
prepared for the writer (`prepared`), and the timestamp and JSON of stored text (`text`)."""

from agent_assay.store.encoding import chain
from agent_assay.store.encoding.prepared import PreparedTrajectory, prepare, prepared_row
from agent_assay.store.encoding.score_columns import MetricColumns, ScoreColumns
from agent_assay.store.encoding.score_pack import ScoreSet, score_value
from agent_assay.store.encoding.state_blobs import (
    DELTA_KEY,
    INLINE_BYTES,
    StateEncoder,
    base_digests,
    expanded,
)
from agent_assay.store.encoding.text import decode_json, now

__all__ = [
    "DELTA_KEY",
    "INLINE_BYTES",
    "MetricColumns",
    "PreparedTrajectory",
    "ScoreColumns",
    "ScoreSet",
    "StateEncoder",
    "base_digests",
    "chain",
    "decode_json",
    "expanded",
    "now",
    "prepare",
    "prepared_row",
    "score_value",
]
