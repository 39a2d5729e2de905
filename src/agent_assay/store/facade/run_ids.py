"""What a run id typed by a person may be, and how a prefix of one names a run.

A run id is 32 hexadecimal characters; nobody types that. Any command taking a run
accepts a unique prefix of at least `MIN_PREFIX` characters. What can never be a run id
(too long, not UTF-8, a control character) is refused before it reaches the database,
which would otherwise fail on it with a driver's traceback.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_assay.errors import AssayError, quoted

MIN_PREFIX = 4
MAX_RUN_ID = 255
"""No run id is longer (they are 32 characters): a longer argument is not one."""
SHOWN_CANDIDATES = 5


def check_run_id(text: str) -> None:
    """Refuse, in one line, an argument that cannot be a run id or a prefix of one."""
    if not text:
        raise AssayError("empty run id: give a run id or a prefix of one "
                         "(`agent-assay runs list` lists them)")
    if len(text) > MAX_RUN_ID:
        raise AssayError(f"not a run id: {quoted(text)} is too long (run ids are 32 "
                         "characters, and a prefix of one does)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise AssayError(f"not a run id: {quoted(text)} is not valid UTF-8") from None
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise AssayError(f"not a run id: {quoted(text)} holds a control character")


def chosen_run_id(text: str, candidates: Sequence[str]) -> str:
    """The one run `text` names among `candidates` (the stored ids starting with it, the
    exact one included when it exists): exact beats prefix; a prefix must be long enough
    and name exactly one run."""
    if text in candidates:
        return text
    if not candidates:
        raise AssayError(f"unknown run id: {quoted(text)}")
    if len(text) < MIN_PREFIX:
        raise AssayError(f"run id prefix {quoted(text)} is too short: give at least "
                         f"{MIN_PREFIX} characters")
    if len(candidates) > 1:
        listed = ", ".join(sorted(candidates)[:SHOWN_CANDIDATES])
        more = len(candidates) - SHOWN_CANDIDATES
        raise AssayError(
            f"run id prefix {quoted(text)} is ambiguous: it starts {len(candidates)} runs "
            f"({listed}{f', and {more} more' if more > 0 else ''}); give more characters"
        )
    return candidates[0]
