"""Turn a run's snapshot (`RunData`) into the numbers a report shows; reads no store.

Per metric: the mean over items of each item's mean across repetitions, pass^k
and pass@k at k = the run's repetitions, their intervals over items (n stated),
and the per-repetition means, every one of them over the values `stats.crashes`
lets in (an agent's crash fails, a harness's crash measures nothing). Across
metrics: consistency, the share of items whose k proposal paths are
byte-identical.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from agent_assay.aggregates import RunStatus, metric_kinds, treated_metrics
from agent_assay.model import HARNESS_CRASH, Run
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.crashes import Treated
from agent_assay.stats.intervals import Interval, exact_interval, interval_on_mean, mean_interval
from agent_assay.stats.paired import clustered_interval
from agent_assay.stats.passrates import pass_at_k, pass_hat_k
from agent_assay.views.run_data import RunData

if TYPE_CHECKING:
    from agent_assay.store.encoding import MetricColumns, ScoreColumns


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
    mean_refused: str | None = None
    """Why the mean has no interval though it has values (a measure too skewed for its n,
    a constant measure); None when it has one."""
    n_pass_k: int = 0
    """Items with k values: what pass^k and pass@k average over (the rest are left out)."""
    n_left_out: int = 0
    """Items with a value but fewer than k: left out of pass^k and pass@k, and counted."""
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
    cluster_warning: str | None = None
    """Set when there are fewer clusters than the clustered interval was measured to hold at."""

    def metric(self, name: str) -> MetricSummary:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)


def _metric(
    name: str,
    meta: Mapping[str, Any],
    column: MetricColumns,
    treated: Treated,
    k: int,
    headline: bool,
    item_ids: Sequence[str],
    clusters: Mapping[str, str] | None = None,
) -> MetricSummary:
    """One metric's figures from its stored column (versions, whether imported) and its
    values under the crash rule. Each mean adds its values with Python's own `sum`, in
    (item, repetition) order, exactly as a loop over the stored rows would, so every figure
    is the same to the last bit however the values were read."""
    kind: ScoreKind = meta.get("kind", "measure")
    items, reps, values = treated.in_means()
    exact = _exact_sums(values)
    present, item_means = _group_means(items, values, exact)
    if exact:  # any order will do
        rep_of, rep_means = _group_means(reps, values, exact)
    else:
        by_rep = np.argsort(reps, kind="stable")  # items stay in order within a repetition
        rep_of, rep_means = _group_means(reps[by_rep], values[by_rep], exact)
    by_rep_means = dict(zip(rep_of, rep_means, strict=True))
    per_rep = tuple(by_rep_means.get(r) for r in range(1, k + 1))
    interval = interval_on_mean(item_means, kind)
    summary = MetricSummary(
        name=name,
        version=",".join(sorted(column.versions)) or str(meta.get("version")),
        kind=kind,
        definition=str(meta.get("definition", "imported score")),
        headline=headline,
        n_items=len(item_means),
        mean_of_k=_mean(item_means),
        mean_ci=interval.ci,
        mean_method=interval.method,
        mean_refused=interval.refused,
        clustered_ci=None if clusters is None
        else clustered_interval(item_means, [clusters[item_ids[i]] for i in present]),
        per_repetition=per_rep,
        imported=column.imported,
    )
    if kind == "measure":
        return summary
    judged, _, verdicts = treated.in_pass_rates()
    _, judged_starts, judged_ends = _groups(judged)
    passed = np.cumsum(verdicts)
    hat: list[float] = []
    at: list[float] = []
    for a, b in zip(judged_starts, judged_ends, strict=True):
        n = b - a
        if n < k:
            continue
        c = int(passed[b - 1] - (passed[a - 1] if a else 0))
        hat.append(pass_hat_k(n, c, k))
        at.append(pass_at_k(n, c, k))
    return replace(
        summary,
        n_pass_k=len(hat),
        n_left_out=len(judged_starts) - len(hat),
        pass_hat_k=_mean(hat),
        pass_hat_k_ci=mean_interval(hat, "fraction"),
        pass_at_k=_mean(at),
        pass_at_k_ci=mean_interval(at, "fraction"),
    )


def _group_means(codes: npt.NDArray[np.int32], values: npt.NDArray[np.float64], exact: bool
                 ) -> tuple[list[int], list[float]]:
    """Each code of `codes` and the mean of its values: Python's `sum` over each run of
    equal codes (`codes` sorted), in order. When every sum is `exact` (`_exact_sums`) no
    order changes a bit, and NumPy adds them in one pass over the codes, sorted or not."""
    if exact:
        counts = np.bincount(codes)
        sums = np.bincount(codes, weights=values)
        found = np.flatnonzero(counts)
        # a float over an int is the float over the int as a float, as Python divides
        return found.tolist(), (sums[found] / counts[found]).tolist()
    present, starts, ends = _groups(codes)
    listed = values.tolist()
    return present, [sum(listed[a:b]) / (b - a) for a, b in zip(starts, ends, strict=True)]


def _exact_sums(values: npt.NDArray[np.float64]) -> bool:
    """Whether every sum of some of `values` is exact in a float: whole numbers (0/1
    verdicts, counts) whose largest magnitude times their number is below 2**53 (in Python
    integers, so the bound is not rounded), so each partial sum is a whole number a float
    holds exactly, whatever the order."""
    if not len(values):
        return True
    top = float(np.abs(values).max())
    return (top < 2.0**53 and bool(np.all(values == np.floor(values)))
            and int(top) * len(values) < 2**53)


def _groups(codes: npt.NDArray[np.int32]) -> tuple[list[int], list[int], list[int]]:
    """The runs of equal codes in a sorted array: each code, where it starts and ends."""
    if not len(codes):
        return [], [], []
    starts = [0, *(np.flatnonzero(np.diff(codes)) + 1).tolist()]
    ends = [*starts[1:], len(codes)]
    return codes[starts].tolist(), starts, ends


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def consistency(paths: Mapping[tuple[str, int], str], k: int) -> Consistency:
    """The share of items whose k proposal paths are identical, from each slot's path key
    (or its digest: equal either way exactly when the paths are byte-identical)."""
    if k == 1:
        return Consistency(
            None,
            None,
            0,
            "k=1: one pass per item, so there is no spread across repetitions and no "
            "consistency figure",
        )
    by_item: dict[str, list[str]] = defaultdict(list)
    for (item_id, _), path in paths.items():
        by_item[item_id].append(path)
    complete = [p for p in by_item.values() if len(p) == k]
    same = sum(len(set(p)) == 1 for p in complete)
    return Consistency(
        same / len(complete) if complete else None,
        exact_interval(same, len(complete)),
        len(complete),
        f"share of items whose {k} proposal paths are byte-identical",
    )


def metric_summaries(
    columns: ScoreColumns,
    manifest: Mapping[str, Any],
    k: int,
    clusters: Mapping[str, str] | None = None,
    items: frozenset[str] | None = None,
) -> tuple[MetricSummary, ...]:
    """One summary per metric, in the manifest's scorer order (unlisted, imported ones
    last); `items` restricts every figure to those items (a tag's, say)."""
    scorer_meta: dict[str, Any] = {s["name"]: s for s in manifest.get("scorers", [])}
    headline = set(manifest.get("headline", []))
    order = [n for n in scorer_meta if n in columns.metrics] + sorted(
        n for n in columns.metrics if n not in scorer_meta
    )
    treated = treated_metrics(columns, metric_kinds(manifest))
    if items is not None:
        keep = np.array([i in items for i in columns.item_ids], dtype=np.bool_)
        treated = {name: t.restricted(keep) for name, t in treated.items()}
    return tuple(
        _metric(
            name,
            scorer_meta.get(name, {}),
            columns.metrics[name],
            treated[name],
            k,
            name in headline,
            columns.item_ids,
            clusters,
        )
        for name in order
    )


def summary_of(data: RunData) -> RunSummary:
    """The run's figures from its snapshot (its clustering when it was loaded with one)."""
    run, status, columns, clustering = data.run, data.status, data.columns, data.clustering
    metrics = metric_summaries(columns, data.manifest, run.repeats,
                               clustering.labels if clustering else None)
    unmeasured = {(columns.item_ids[item], rep) for (item, rep), cause in columns.crashed.items()
                  if cause == HARNESS_CRASH}
    return RunSummary(
        run=run,
        status=status,
        metrics=metrics,
        consistency=consistency(
            {slot: path for slot, path in data.paths.items() if slot not in unmeasured}
            if unmeasured else data.paths, run.repeats),
        manifest=data.manifest,
        cluster=data.cluster,
        clusters=clustering.count if clustering else 0,
        cluster_warning=clustering.warning if clustering else None,
    )
