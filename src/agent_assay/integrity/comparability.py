"""May two runs be compared? Typed refusals first, paired statistics only after.

Reasons: SUITE_MISMATCH (different suite hash or item selection),
SCORER_MISMATCH (scorer names or versions differ), ENV_MISMATCH (an
environment field the adapter marks as affecting results differs),
RUN_INADMISSIBLE (either run fails its controls, or a certificate no longer
matches its evidence), STORE_TAMPERED (either run's stored evidence fails its
own chain). Any reason refuses the comparison; --force shows it anyway with
every line stamped unsound, except STORE_TAMPERED, where no number is read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_assay.aggregates import item_values, run_clusters, scorer_versions
from agent_assay.errors import AssayError
from agent_assay.integrity.admissibility import Admissibility, Integrity, assess
from agent_assay.model import Run
from agent_assay.stats.intervals import Interval
from agent_assay.stats.paired import ALPHA, CLUSTERS_FLOOR, Difference, paired_difference
from agent_assay.store import Store


@dataclass(frozen=True)
class Mismatch:
    code: str
    detail: str


@dataclass(frozen=True)
class PairedMetric:
    """One metric of two runs, paired by item: B - A with the interval and p-value of one
    statistic (`stats.paired.paired_difference`), so the interval leaves out 0 exactly
    when p < ALPHA."""

    metric: str
    kind: str
    n_items: int
    mean_a: float
    mean_b: float
    difference: float
    ci: Interval | None
    p_value: float | None
    """None when nothing was tested (no item differs, or too few clusters)."""
    test: str
    """What was run, in words ("paired t on item means, df 103"), or why nothing was."""
    no_ci: str | None = None
    """Why there is no interval, when there is none ("no item differs")."""
    headline: bool = False
    differing: int = 0
    """Items whose difference is not zero."""
    clusters: int | None = None
    """Clusters among the metric's items when the comparison is clustered."""
    df: float | None = None
    se: float | None = None
    """The standard error the test scaled by (0 for the sign test; None when untested)."""

    @property
    def differs(self) -> bool:
        """p below ALPHA (which is the interval leaving out 0)."""
        return self.p_value is not None and self.p_value < ALPHA


@dataclass(frozen=True)
class Comparison:
    run_a: Run
    run_b: Run
    mismatches: tuple[Mismatch, ...]
    metrics: tuple[PairedMetric, ...]
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]
    integrity_a: Integrity
    integrity_b: Integrity
    verdict_a: Admissibility | None = None
    verdict_b: Admissibility | None = None
    """Each run's verdict, so a comparison names what either run's verdict waived."""
    cluster: str | None = None
    """How items were clustered ('tag' or 'tag:PREFIX'); None: every item on its own."""
    clusters: int = 0
    """Clusters among the compared items, when clustered."""
    cluster_warning: str | None = None
    """Set when there are fewer clusters than the clustered test was measured to hold at."""

    def headline_differences(self) -> tuple[PairedMetric, ...]:
        """The headline metrics whose difference is below ALPHA."""
        return tuple(m for m in self.metrics if m.headline and m.differs)

    @property
    def sound(self) -> bool:
        return not self.mismatches

    @property
    def tampered(self) -> bool:
        return self.integrity_a.tampered or self.integrity_b.tampered

    def verdict(self, *, forced: bool) -> str:
        """TAMPERED when either run is, COMPARED when sound, else UNSOUND when forced and
        REFUSED when not: what the text, JSON and HTML forms of a comparison lead with."""
        if self.tampered:
            return "TAMPERED"
        if self.sound:
            return "COMPARED"
        return "UNSOUND" if forced else "REFUSED"


def mismatches(
    store: Store, a: Run, b: Run, verdicts: Sequence[Admissibility] | None = None
) -> list[Mismatch]:
    found: list[Mismatch] = []
    if a.suite_hash != b.suite_hash:
        found.append(Mismatch("SUITE_MISMATCH", f"suite_hash {a.suite_hash} != {b.suite_hash}"))
    elif a.item_ids != b.item_ids:
        found.append(
            Mismatch(
                "SUITE_MISMATCH",
                f"item selections differ: {len(a.item_ids)} items vs {len(b.item_ids)} items",
            )
        )
    va, vb = scorer_versions(store, a), scorer_versions(store, b)
    if va != vb:
        diff = sorted(
            f"{name}: {va.get(name, 'absent')} vs {vb.get(name, 'absent')}"
            for name in va.keys() | vb.keys()
            if va.get(name) != vb.get(name)
        )
        found.append(Mismatch("SCORER_MISMATCH", "; ".join(diff)))
    keys = sorted(a.affects_results | b.affects_results)
    env_diff = {k: (a.env.get(k), b.env.get(k)) for k in keys if a.env.get(k) != b.env.get(k)}
    if env_diff:
        found.append(
            Mismatch(
                "ENV_MISMATCH",
                "; ".join(f"{k}: {va_!r} vs {vb_!r}" for k, (va_, vb_) in env_diff.items()),
            )
        )
    for run, verdict in zip((a, b), verdicts or [assess(store, a), assess(store, b)], strict=True):
        if verdict.tampered:
            first = verdict.integrity.findings[0].line()
            found.append(
                Mismatch(
                    "STORE_TAMPERED",
                    f"{run.run_id}: {len(verdict.integrity.findings)} finding(s), first: {first}",
                )
            )
        elif not verdict.admissible:
            found.append(
                Mismatch("RUN_INADMISSIBLE", f"{run.run_id}: {'; '.join(verdict.reasons)}")
            )
    return found


def _item_means(store: Store, run: Run) -> dict[str, dict[str, list[float]]]:
    """metric -> item -> values, under the crash rule the run report applies."""
    return item_values(store, run)


def paired(
    metric: str,
    kind: str,
    a: Mapping[str, list[float]],
    b: Mapping[str, list[float]],
    clusters: Mapping[str, str] | None = None,
    *,
    headline: bool = False,
) -> PairedMetric | None:
    """B - A over the items both runs have a value for, each item's repetitions averaged
    first; with `clusters` (item -> cluster) the test and interval are cluster-robust."""
    common = sorted(a.keys() & b.keys())
    if not common:
        return None
    xa = [sum(a[i]) / len(a[i]) for i in common]
    xb = [sum(b[i]) / len(b[i]) for i in common]
    labels = None if clusters is None else [clusters.get(i, "(none)") for i in common]
    found = paired_difference([y - x for x, y in zip(xa, xb, strict=True)], labels)
    few = labels is not None and found.differing > 0 and found.clusters < CLUSTERS_FLOOR
    return PairedMetric(
        metric=metric,
        kind=kind,
        n_items=len(common),
        mean_a=sum(xa) / len(xa),
        mean_b=sum(xb) / len(xb),
        difference=found.mean,
        ci=None if few else found.ci,
        p_value=None if few or found.method == "none" else found.p_value,
        test=_too_few(found.clusters) if few else method_words(found),
        no_ci=_too_few(found.clusters) if few else found.no_ci,
        headline=headline,
        differing=found.differing,
        clusters=found.clusters if labels is not None else None,
        df=found.df,
        se=None if few else found.se,
    )


def _too_few(clusters: int) -> str:
    return (f"its items fall in {clusters} cluster(s), fewer than the {CLUSTERS_FLOOR} "
            "the clustered test needs")


def method_words(found: Difference) -> str:
    """What `found` rests on, in the words every form of a comparison prints."""
    if found.method == "t" and found.df is not None:
        if found.clustered:
            return f"cluster-robust paired t, {found.clusters} clusters, df {found.df:.1f}"
        return f"paired t on item means, df {found.df:g}"
    if found.method == "sign":
        unit = "clusters" if found.clustered else "items"
        return f"sign test over {found.clusters} {unit}, every difference equal"
    return found.no_ci or "not tested"


def compare_runs(
    store: Store, run_a: str, run_b: str, cluster: str | None = None
) -> Comparison:
    """The paired comparison of two runs; `cluster` ('tag' or 'tag:PREFIX', by run A's
    suite) makes every test and interval cluster-robust, and is refused with fewer
    clusters than the test holds at."""
    if run_a == run_b:
        raise AssayError(f"cannot compare run {run_a} with itself")
    a, b = store.get_run(run_a), store.get_run(run_b)
    va, vb = assess(store, a), assess(store, b)
    found = mismatches(store, a, b, (va, vb))
    if va.tampered or vb.tampered:
        return Comparison(a, b, tuple(found), (), (), (), va.integrity, vb.integrity, va, vb)
    clustering = None if cluster is None else run_clusters(store, a, cluster)
    ta, tb = _item_means(store, a), _item_means(store, b)
    manifests = [store.manifest(run.run_id) for run in (a, b)]
    kinds = {s["name"]: s["kind"] for m in manifests for s in m.get("scorers", [])}
    headline = {name for m in manifests for name in m.get("headline", [])}
    metrics: list[PairedMetric] = []
    for name in sorted(ta.keys() & tb.keys()):
        result = paired(name, kinds.get(name, "measure"), ta[name], tb[name],
                        clustering.labels if clustering else None, headline=name in headline)
        if result is not None:
            metrics.append(result)
    return Comparison(
        a,
        b,
        tuple(found),
        tuple(metrics),
        tuple(sorted(ta.keys() - tb.keys())),
        tuple(sorted(tb.keys() - ta.keys())),
        va.integrity,
        vb.integrity,
        va,
        vb,
        cluster,
        clustering.count if clustering else 0,
        clustering.warning if clustering else None,
    )


def tested_count(metrics: Sequence[PairedMetric]) -> int:
    """Metrics that were tested (some item differs, enough clusters)."""
    return sum(m.p_value is not None for m in metrics)
