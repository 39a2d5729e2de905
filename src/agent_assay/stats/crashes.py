"""Which repetitions are measurements, and what a crashed one adds to a figure.

Leaving a crashed repetition out is only unbiased when crashes strike at random. When the
crash is how the agent fails (it raised instead of answering), leaving it out drops
exactly the failures, and an agent could look better by raising on the items it cannot
do. So the cause decides (`model.CrashCause`, recorded with every crashed trajectory):

* a crash by the **harness** (the agent could not be reached, the environment failed) is
  not a measurement: it is left out of every mean, pass^k and pass@k, whatever a scorer
  made of it, and counted;
* a crash by the **agent** is a measured failure. On a metric that passes or fails
  (binary, fraction, count) it fails, even where the scorer gave n/a or a passing value
  on the empty trajectory the crash left; in the mean it is 0 for a binary or fraction
  metric (no credit), while a count keeps the scorer's value if there is one (it counts
  what the stored trajectory holds) and is otherwise left out of that mean. On a measure
  (latency, cost) it keeps the scorer's value if there is one, else it is left out.
  One exception: where the metric does not apply (the scorer is n/a on every repetition
  of the item that did not crash, such as a state check on an item that asserts
  nothing), the crash is left out of it like any n/a. An item with no such repetition
  is judged by the run's: the metric applies to it unless it is n/a on every repetition
  of the run that did not crash, and where nothing did not crash, it applies.

pass^k and pass@k keep the unbiased per-item estimators (`passrates`) over the
repetitions that are measurements; an item with fewer than k of them is left out at that
k and counted (`Repetitions.left_out`). A crashed trajectory stored before causes were
recorded is the agent's unless it was marked unreachable (`model.crash_cause_in`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from agent_assay.model import AGENT_CRASH, HARNESS_CRASH, CrashCause
from agent_assay.scoring.base import ScoreKind, passes_each

Codes = npt.NDArray[np.int32]
Values = npt.NDArray[np.float64]
NO_VERDICT = -1
"""A verdict array's mark for an entry that takes no part in pass^k and pass@k."""

FAILING_VALUE: Mapping[ScoreKind, float] = {"binary": 0.0, "fraction": 0.0}
"""What an agent's crash adds to the mean of a metric whose mean is a share of credit."""
WHAT_IT_COUNTS_AS: Mapping[CrashCause, str] = {
    AGENT_CRASH: "the agent's crash: counted as a failure",
    HARNESS_CRASH: "the harness's crash: not measured, left out of every figure",
}
"""What one crashed trajectory is, by its cause, in the words a view shows beside it."""


def crashed_entry(
    kind: ScoreKind, value: float | None, cause: CrashCause, applies: bool
) -> tuple[float | None, bool | None]:
    """What one crashed repetition adds to a metric of `kind`: (its value in the mean, its
    verdict in pass^k and pass@k), None where it takes no part. `value` is what the scorer
    gave it; `applies`, whether the metric applies to the item at all (see the module)."""
    if cause == HARNESS_CRASH:
        return None, None
    if kind == "measure":
        return value, None
    if value is None and not applies:
        return None, None
    return FAILING_VALUE.get(kind, value), False


@dataclass(frozen=True)
class Treated:
    """One metric's entries, sorted by (item, repetition), after the rule: `values` is what
    each adds to the means (NaN: nothing), `verdicts` whether it passed (1), failed (0) or
    takes no part in pass^k and pass@k (NO_VERDICT)."""

    items: Codes
    repetitions: Codes
    values: Values
    verdicts: npt.NDArray[np.int8]

    def in_means(self) -> tuple[Codes, Codes, Values]:
        """(items, repetitions, values) of the entries that count in a mean."""
        keep = ~np.isnan(self.values)
        return self.items[keep], self.repetitions[keep], self.values[keep]

    def in_pass_rates(self) -> tuple[Codes, Codes, npt.NDArray[np.bool_]]:
        """(items, repetitions, passed) of the entries that count in pass^k and pass@k."""
        keep = self.verdicts != NO_VERDICT
        return self.items[keep], self.repetitions[keep], self.verdicts[keep] == 1

    def restricted(self, keep: npt.NDArray[np.bool_]) -> Treated:
        """Only the entries whose item code is marked in `keep` (a tag's items, say): the
        rule is applied to the whole run first, so an item counts the same in every cut."""
        mask = keep[self.items]
        return Treated(self.items[mask], self.repetitions[mask], self.values[mask],
                       self.verdicts[mask])


def treat(
    kind: ScoreKind,
    items: Codes,
    repetitions: Codes,
    values: Values,
    crashed: Mapping[tuple[int, int], CrashCause],
) -> Treated:
    """A metric's stored entries (NaN: the scorer gave n/a) with the rule applied to those
    whose (item, repetition) `crashed` names."""
    values = values.astype(np.float64, copy=True)
    known = ~np.isnan(values)
    verdicts = np.full(len(values), NO_VERDICT, np.int8)
    if kind != "measure":
        verdicts[known] = passes_each(kind, values[known])
    if not crashed or not len(values):
        return Treated(items, repetitions, values, verdicts)
    width = max(int(repetitions.max()), *(rep for _, rep in crashed)) + 1
    keys = items.astype(np.int64) * width + repetitions
    names = np.fromiter((item * width + rep for item, rep in crashed), np.int64, len(crashed))
    hit = np.isin(keys, names)
    measured = set(items[~hit].tolist())
    valued = set(items[~hit & known].tolist())
    anywhere = bool(valued) or not measured  # the run's evidence, for an item without any
    for at in np.flatnonzero(hit).tolist():
        item, rep = int(items[at]), int(repetitions[at])
        value, verdict = crashed_entry(
            kind, float(values[at]) if known[at] else None, crashed[(item, rep)],
            item in valued if item in measured else anywhere,
        )
        values[at] = np.nan if value is None else value
        verdicts[at] = NO_VERDICT if verdict is None else int(verdict)
    return Treated(items, repetitions, values, verdicts)


@dataclass(frozen=True)
class Repetitions:
    """How a run's repetitions went: how many crashed by each cause, and how many items
    have fewer than k measured ones (a repetition is measured when it is stored and the
    harness did not crash it)."""

    k: int
    by_agent: int = 0
    by_harness: int = 0
    short: Mapping[int, int] = field(default_factory=dict)
    """measured repetitions -> how many items have only that many (fewer than k)."""

    @property
    def crashed(self) -> int:
        return self.by_agent + self.by_harness

    def left_out(self, k: int | None = None) -> int:
        """Items with fewer than `k` (default: the run's k) measured repetitions, which
        pass^k and pass@k leave out at that k."""
        at = self.k if k is None else k
        return sum(n for measured, n in self.short.items() if measured < at)

    def crash_line(self) -> str:
        """The crashes by cause and what each counts as; empty without a crash."""
        return f"crashed: {crash_counts(self.by_agent, self.by_harness)}" if self.crashed else ""

    def left_out_line(self, k: int | None = None) -> str:
        """The items pass^k and pass@k leave out at `k`; empty when there are none."""
        at = self.k if k is None else k
        n = self.left_out(at)
        if not n:
            return ""
        return (f"{n} item{'s' if n != 1 else ''} with fewer than {at} measured repetitions "
                f"left out of pass^{at} and pass@{at}")


def crash_counts(by_agent: int, by_harness: int) -> str:
    """How many crashes each side had and what each counts as, in the words every view
    uses."""
    return (f"{by_agent} by the agent (counted as failures), "
            f"{by_harness} by the harness (not measured)")


def repetitions(
    k: int,
    item_ids: Sequence[str],
    stored_per_item: Mapping[str, int],
    causes: Mapping[tuple[str, int], CrashCause],
) -> Repetitions:
    """The tally of a run of `item_ids` x `k` from what each item has stored and the cause
    of each crashed (item, repetition)."""
    wanted = set(item_ids)
    counted = Counter(cause for (item, _), cause in causes.items() if item in wanted)
    harness = Counter(item for (item, _), cause in causes.items() if cause == HARNESS_CRASH)
    measured = (stored_per_item.get(item, 0) - harness[item] for item in item_ids)
    return Repetitions(
        k=k,
        by_agent=counted[AGENT_CRASH],
        by_harness=counted[HARNESS_CRASH],
        short=dict(Counter(m for m in measured if m < k)),
    )
