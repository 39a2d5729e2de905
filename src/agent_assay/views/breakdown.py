"""A run's numbers cut two ways a reader needs once a headline looks wrong: by tag, and by item.

Per tag, every metric is summarised exactly as the headline is (same estimator, same
interval), restricted to the items carrying that tag; n is the number of the run's items
with the tag. An item may carry several tags, so the rows' n can add up to more than the
run's items, and the breakdown says so rather than let a reader assume a partition.

Per item, a metric's value at each repetition, the item's mean, and whether it failed,
all as the run's figures count them (a crash by the agent fails, one by the harness is
not measured); the failed items are the ids to hand to `trajectories show`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from agent_assay.aggregates import treated_metrics
from agent_assay.errors import AssayError
from agent_assay.model import Run
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.crashes import NO_VERDICT
from agent_assay.views.run_data import RunData
from agent_assay.views.summary import MetricSummary, metric_summaries


@dataclass(frozen=True)
class TagRow:
    tag: str
    n_items: int
    metrics: tuple[MetricSummary, ...]


@dataclass(frozen=True)
class TagBreakdown:
    run: Run
    rows: tuple[TagRow, ...]
    items: int
    """The run's items."""
    untagged: int
    """Items carrying no tag: in no row."""

    @property
    def tagged_total(self) -> int:
        """The rows' n added up: more than the tagged items when tags overlap."""
        return sum(row.n_items for row in self.rows)

    @property
    def overlapping(self) -> int:
        """How many more (item, tag) pairs there are than tagged items."""
        return self.tagged_total - (self.items - self.untagged)


def tags_of(data: RunData) -> TagBreakdown:
    """Every metric per tag, tags in name order (the snapshot loaded with its suite)."""
    run, tags = data.run, data.item_tags()
    members: dict[str, set[str]] = defaultdict(set)
    for item_id, item_tag_list in tags.items():
        for tag in item_tag_list:
            members[tag].add(item_id)
    return TagBreakdown(
        run=run,
        rows=tuple(
            TagRow(tag, len(members[tag]), metric_summaries(
                data.columns, data.manifest, run.repeats, items=frozenset(members[tag])))
            for tag in sorted(members)
        ),
        items=len(tags),
        untagged=sum(not t for t in tags.values()),
    )


@dataclass(frozen=True)
class ItemLine:
    """One item's values of one metric, a slot per repetition, as the run's figures count
    them (`stats.crashes`; None: not stored, not measured, or the metric does not apply
    there), and whether each repetition failed."""

    item_id: str
    tags: tuple[str, ...]
    values: tuple[float | None, ...]
    verdicts: tuple[bool | None, ...] = ()

    @property
    def mean(self) -> float | None:
        known = [v for v in self.values if v is not None]
        return sum(known) / len(known) if known else None

    @property
    def failures(self) -> int:
        """Repetitions that failed (a crash by the agent among them)."""
        return sum(v is False for v in self.verdicts)


@dataclass(frozen=True)
class ItemTable:
    run: Run
    metric: str
    kind: ScoreKind
    definition: str
    lines: tuple[ItemLine, ...]
    failed_only: bool = False


def items_of(
    data: RunData, metric: str, kind: ScoreKind, definition: str, *, failed_only: bool = False
) -> ItemTable:
    """`metric` (of `kind`, meaning `definition`: `views.load.metric_meta` finds them) for
    every item of the run (only those that failed at some repetition with `failed_only`,
    which a measure, having no pass, refuses)."""
    run = data.run
    if failed_only and kind == "measure":
        raise AssayError(
            f"metric {metric} is a measure: it is reported, never passed or failed, so "
            "--failed does not apply; drop --failed to list its values"
        )
    values: dict[str, dict[int, float | None]] = defaultdict(dict)
    verdicts: dict[str, dict[int, bool]] = defaultdict(dict)
    columns = data.columns
    if metric in columns.metrics:
        treated = treated_metrics(columns, {metric: kind})[metric]
        for item, rep, value, verdict in zip(
            treated.items.tolist(), treated.repetitions.tolist(), treated.values.tolist(),
            treated.verdicts.tolist(), strict=True,
        ):
            item_id = columns.item_ids[item]
            values[item_id][rep] = None if math.isnan(value) else value
            if verdict != NO_VERDICT:
                verdicts[item_id][rep] = bool(verdict)
    reps = range(1, run.repeats + 1)
    lines = tuple(
        ItemLine(item_id, tags, tuple(values[item_id].get(r) for r in reps),
                 tuple(verdicts[item_id].get(r) for r in reps))
        for item_id, tags in data.item_tags().items()
    )
    if failed_only:
        lines = tuple(line for line in lines if line.failures)
    return ItemTable(run, metric, kind, definition, lines, failed_only)
