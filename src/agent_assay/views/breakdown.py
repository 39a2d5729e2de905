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
from agent_assay.store import Store
from agent_assay.store.encoding import ScoreColumns
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


def item_tags(store: Store, run: Run) -> dict[str, tuple[str, ...]]:
    """Each of the run's items and its tags, from the stored suite, in the run's order."""
    by_id = store.get_suite(run.suite_hash).by_id()
    return {item_id: by_id[item_id].tags for item_id in run.item_ids}


def by_tag(store: Store, run: Run, columns: ScoreColumns | None = None) -> TagBreakdown:
    """Every metric per tag, tags in name order; `columns` when the caller has read them."""
    tags = item_tags(store, run)
    members: dict[str, set[str]] = defaultdict(set)
    for item_id, item_tag_list in tags.items():
        for tag in item_tag_list:
            members[tag].add(item_id)
    scores = store.score_columns(run.run_id) if columns is None else columns
    manifest = store.manifest(run.run_id)
    return TagBreakdown(
        run=run,
        rows=tuple(
            TagRow(tag, len(members[tag]), metric_summaries(
                scores, manifest, run.repeats, items=frozenset(members[tag])))
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


def metric_meta(store: Store, run: Run, metric: str) -> tuple[ScoreKind, str]:
    """The metric's kind and definition from the run's manifest; an unknown name is refused
    with the ones that exist."""
    manifest = store.manifest(run.run_id)
    for scorer in manifest.get("scorers", []):
        if scorer.get("name") == metric:
            return scorer.get("kind", "measure"), str(scorer.get("definition", ""))
    scored = {r.scorer for r in store.current_scores(run.run_id)}
    if metric in scored:  # an imported score the manifest does not describe
        return "binary", "imported score"
    known = sorted({str(s.get("name")) for s in manifest.get("scorers", [])} | scored)
    raise AssayError(
        f"unknown metric {metric} in run {run.run_id}; its metrics: {', '.join(known) or 'none'}"
    )


def item_table(store: Store, run: Run, metric: str, *, failed_only: bool = False) -> ItemTable:
    """`metric` for every item of the run (only those that failed at some repetition with
    `failed_only`, which a measure, having no pass, refuses)."""
    kind, definition = metric_meta(store, run, metric)
    if failed_only and kind == "measure":
        raise AssayError(
            f"metric {metric} is a measure: it is reported, never passed or failed, so "
            "--failed does not apply; drop --failed to list its values"
        )
    values: dict[str, dict[int, float | None]] = defaultdict(dict)
    verdicts: dict[str, dict[int, bool]] = defaultdict(dict)
    columns = store.score_columns(run.run_id)
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
        for item_id, tags in item_tags(store, run).items()
    )
    if failed_only:
        lines = tuple(line for line in lines if line.failures)
    return ItemTable(run, metric, kind, definition, lines, failed_only)
