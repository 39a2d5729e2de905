"""What an Inspect log's values mean here, stated once for the reader, the scorers and
the exporter: the adapter's name, how a score value becomes a number, which scorers
agent-assay can re-run, and how a sample's target is identified.

Score values follow Inspect's own ``value_to_float``: C (correct) 1, I (incorrect) 0,
P (partial) 0.5, N (no answer) 0; a boolean is 1 or 0; a finite number is itself. Any
other value (another string, an object, a list, NaN) is refused on import, naming the
file, the sample and the scorer: a number this harness reports must mean one thing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Final

from agent_assay.hashing import content_hash
from agent_assay.model import Gold
from agent_assay.scoring.base import ScoreKind

ADAPTER: Final = "inspect-log"
PREFIX: Final = "inspect."
"""A log scorer ``includes`` is the metric ``inspect.includes`` (no generic name is taken)."""
TARGET_HASH: Final = "aa.inspect-log.target.1"
PUBLISHED: Final = "published in the Inspect log; imported, not computed by agent-assay"
LETTERS: Final = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
RERUNNABLE: Final = frozenset({"match", "includes", "exact", "pattern", "f1"})
"""Inspect's built-in string scorers: pure functions of the answer and the target, built
from the options the log records, so agent-assay re-runs them without importing the
task's own code. Any other scorer (a model grader, a task's custom scorer) is not re-run:
that would mean executing code the log names, and its controls are NOT_RUN instead."""
CANNOT_EXECUTE: Final = (
    "the inspect-log adapter cannot {what}: its trajectories are imported from an Inspect "
    "eval log (agent-assay import inspect LOG) and the task's solver, tools and model are "
    "not part of agent-assay"
)


def mapped_value(value: Any) -> float | None:
    """The number a score value stands for (see the module doc); None for a shape that
    has no agreed number."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        return LETTERS.get(value)
    return None


def shape_of(value: Any) -> str:
    """A value's shape as a refusal names it."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value[:20]!r}"
    return repr(value)[:20]


def kind_of(values: Iterable[float]) -> ScoreKind:
    """binary when every value is 0 or 1, fraction when every one is in [0, 1] (a P
    among C and I), else measure (a number with no pass mark)."""
    seen = set(values)
    if seen <= {0.0, 1.0}:
        return "binary"
    if all(0.0 <= v <= 1.0 for v in seen):
        return "fraction"
    return "measure"


def scorer_version(spec: Mapping[str, Any]) -> str:
    """Which scorer, with which options, on which scale: two logs whose scorer differs in
    any of these are refused as SCORER_MISMATCH by `compare`."""
    digest = content_hash("aa.inspect-log.scorer.1", dict(spec))
    return f"1:{spec.get('kind')}:{digest[:12]}"


def target_digest(gold: Gold) -> str:
    """Identity of the target a published score was judged against."""
    return content_hash(TARGET_HASH, gold.to_json())


def rerunnable(spec: Mapping[str, Any]) -> bool:
    """Whether agent-assay can re-run this scorer (see RERUNNABLE)."""
    return str(spec.get("scorer")) in RERUNNABLE
