"""The text every stored row's columns share: the timestamp written, JSON read back."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from agent_assay.errors import TamperedEvidence


def now() -> str:
    return datetime.now(UTC).isoformat()


def decode_json(table: str, row_id: object, text: str | None) -> Any:
    """Decode a stored JSON column; a row that does not decode is named, not a traceback."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise TamperedEvidence(
            f"{table} row {row_id}: stored JSON does not decode ({exc})"
        ) from exc
