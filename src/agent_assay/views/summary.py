"""Turn a stored run into the numbers a report shows. Reads the store only; runs nothing.

Per metric: the mean over items of each item's mean across repetitions, pass^k
and pass@k at k = the run's repetitions, their intervals over items (n stated),
and the per-repetition means. Across metrics: consistency, the share of items
whose k proposal paths are byte-identical.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_assay.aggregates import RunStatus, clusters_of, run_status
from agent_assay.model import Run, Trajectory
from agent_assay.scoring.base import ScoreKind, passes
from agent_assay.stats import (
    Interval,
    clustered_interval,
    exact_interval,
    interval_method,
    mean_interval,
    pass_at_k,
    pass_hat_k,
)
from agent_assay.store.store import ScoreRecord, Store


@dataclass(frozen=True)
class MetricSummary:
    name: str
    version: str
    kind: ScoreKind
    definition: str
    headline: bool
    n_items: int
    mean_of_k: float | None
    mean_ci: Interval | None
    mean_method: str = ""
    n_pass_k: int = 0
    """Items with k values: what pass^k and pass@k average over (the rest are left out)."""
    clustered_ci: Interval | None = None
    """The cluster-robust interval for the mean, when the report is asked to cluster."""
    pass_hat_k: float | None = None
    pass_hat_k_ci: Interval | None = None
    pass_at_k: float | None = None
    pass_at_k_ci: Interval | None = None
    per_repetition: tuple[float | None, ...] = ()
    imported: bool = False


@dataclass(frozen=True)
class Consistency:
    value: float | None
    ci: Interval | None
    n: int
    note: str


@dataclass(frozen=True)
class RunSummary:
    run: Run
    status: RunStatus
    metrics: tuple[MetricSummary, ...]
    consistency: Consistency
    manifest: Mapping[str, Any] = field(default_factory=dict)
    cluster: str | None = None
    """How items were clustered for `clustered_ci` (None: not asked)."""
    clusters: int = 0

    def metric(self, name: str) -> MetricSummary:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)


def _metric(
    name: str,
    meta: Mapping[str, Any],
    rows: Sequence[ScoreRecord],
    k: int,
    headline: bool,
    clusters: Mapping[str, str] | None = None,
) -> MetricSummary:
    kind: ScoreKind = meta.get("kind", "measure")
    by_item: dict[str, dict[int, float]] = defaultdict(dict)
    for row in rows:
        if row.value is not None:
            by_item[row.item_id][row.repetition] = row.value
    item_ids = [i for i, v in by_item.items() if v]
    item_means = [sum(by_item[i].values()) / len(by_item[i]) for i in item_ids]
    per_rep = tuple(_mean([v[r] for v in by_item.values() if r in v]) for r in range(1, k + 1))
    summary = MetricSummary(
        name=name,
        version=",".join(sorted({r.scorer_version for r in rows})) or str(meta.get("version")),
        kind=kind,
        definition=str(meta.get("definition", "imported score")),
        headline=headline,
        n_items=len(item_means),
        mean_of_k=_mean(item_means),
        mean_ci=mean_interval(item_means),
        mean_method=interval_method(item_means),
        clustered_ci=None if clusters is None
        else clustered_interval(item_means, [clusters[i] for i in item_ids]),
        per_repetition=per_rep,
        imported=any(r.imported for r in rows),
    )
    if kind == "measure":
        return summary
    hat: list[float] = []
    at: list[float] = []
    for values in by_item.values():
        n = len(values)
        if n < k:
            continue
        c = sum(bool(passes(kind, v)) for v in values.values())
        hat.append(pass_hat_k(n, c, k))
        at.append(pass_at_k(n, c, k))
    return replace(
        summary,
        n_pass_k=len(hat),
        pass_hat_k=_mean(hat),
        pass_hat_k_ci=mean_interval(hat),
        pass_at_k=_mean(at),
        pass_at_k_ci=mean_interval(at),
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def consistency(trajectories: Sequence[Trajectory], k: int) -> Consistency:
    if k == 1:
        return Consistency(
            None,
            None,
            0,
            "k=1: one pass per item, so there is no spread across repetitions and no "
            "consistency figure",
        )
    paths: dict[str, list[str]] = defaultdict(list)
    for t in trajectories:
        paths[t.item_id].append(t.path_key())
    complete = [p for p in paths.values() if len(p) == k]
    same = sum(len(set(p)) == 1 for p in complete)
    return Consistency(
        same / len(complete) if complete else None,
        exact_interval(same, len(complete)),
        len(complete),
        f"share of items whose {k} proposal paths are byte-identical",
    )


def scores_by_metric(store: Store, run: Run) -> dict[str, list[ScoreRecord]]:
    """The run's current scores, grouped by scorer: read once, summarised many ways."""
    rows: dict[str, list[ScoreRecord]] = defaultdict(list)
    for row in store.current_scores(run.run_id):
        rows[row.scorer].append(row)
    return rows


def metric_summaries(
    rows_by_metric: Mapping[str, Sequence[ScoreRecord]],
    manifest: Mapping[str, Any],
    k: int,
    clusters: Mapping[str, str] | None = None,
    items: frozenset[str] | None = None,
) -> tuple[MetricSummary, ...]:
    """One summary per metric, in the manifest's scorer order (unlisted, imported ones
    last); `items` restricts every figure to those items (a tag's, say)."""
    scorer_meta: dict[str, Any] = {s["name"]: s for s in manifest.get("scorers", [])}
    headline = set(manifest.get("headline", []))
    order = [n for n in scorer_meta if n in rows_by_metric] + sorted(
        n for n in rows_by_metric if n not in scorer_meta
    )
    return tuple(
        _metric(
            name,
            scorer_meta.get(name, {}),
            rows_by_metric[name] if items is None
            else [r for r in rows_by_metric[name] if r.item_id in items],
            k,
            name in headline,
            clusters,
        )
        for name in order
    )


def summarise(store: Store, run: Run, cluster: str | None = None) -> RunSummary:
    clusters = None if cluster is None else clusters_of(store, run, cluster)
    trajectories = store.trajectories(run.run_id)
    manifest = store.manifest(run.run_id)
    metrics = metric_summaries(scores_by_metric(store, run), manifest, run.repeats, clusters)
    return RunSummary(
        run=run,
        status=run_status(store, run),
        metrics=metrics,
        consistency=consistency(trajectories, run.repeats),
        manifest=manifest,
        cluster=cluster,
        clusters=len(set(clusters.values())) if clusters else 0,
    )
