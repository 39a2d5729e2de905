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

from agent_assay.aggregates import clusters_of, item_values, scorer_versions
from agent_assay.errors import AssayError
from agent_assay.integrity.admissibility import Admissibility, Integrity, assess
from agent_assay.model import Run
from agent_assay.stats.intervals import Interval
from agent_assay.stats.paired import (
    clustered_interval,
    difference_interval,
    mcnemar_p,
    signed_rank_p,
)
from agent_assay.store.store import Store


@dataclass(frozen=True)
class Mismatch:
    code: str
    detail: str


@dataclass(frozen=True)
class PairedMetric:
    metric: str
    kind: str
    n_items: int
    mean_a: float
    mean_b: float
    difference: float
    ci: Interval | None
    p_value: float
    test: str
    clustered_ci: Interval | None = None
    """The cluster-robust interval of the difference, when asked to cluster."""


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
) -> PairedMetric | None:
    common = sorted(a.keys() & b.keys())
    if not common:
        return None
    xa = [sum(a[i]) / len(a[i]) for i in common]
    xb = [sum(b[i]) / len(b[i]) for i in common]
    diffs = [y - x for x, y in zip(xa, xb, strict=True)]
    binary = kind == "binary" and all(v in (0.0, 1.0) for v in xa + xb)
    if binary:
        gained = sum(x == 0.0 and y == 1.0 for x, y in zip(xa, xb, strict=True))
        lost = sum(x == 1.0 and y == 0.0 for x, y in zip(xa, xb, strict=True))
        p = mcnemar_p(gained, lost)
        test = f"exact McNemar ({gained} gained, {lost} lost)"
    elif any(d != 0 for d in diffs):
        p = signed_rank_p(diffs)
        test = "Wilcoxon signed-rank"
    else:
        p, test = 1.0, "no item differs"
    return PairedMetric(
        metric=metric,
        kind=kind,
        n_items=len(common),
        mean_a=sum(xa) / len(xa),
        mean_b=sum(xb) / len(xb),
        difference=sum(diffs) / len(diffs),
        ci=difference_interval(diffs),
        p_value=p,
        test=test,
        clustered_ci=None if clusters is None
        else clustered_interval(diffs, [clusters.get(i, "(none)") for i in common]),
    )


def compare_runs(
    store: Store, run_a: str, run_b: str, cluster: str | None = None
) -> Comparison:
    """The paired comparison of two runs; `cluster` ('tag' or 'tag:PREFIX', by run A's
    suite) adds a cluster-robust interval to each difference."""
    if run_a == run_b:
        raise AssayError(f"cannot compare run {run_a} with itself")
    a, b = store.get_run(run_a), store.get_run(run_b)
    va, vb = assess(store, a), assess(store, b)
    found = mismatches(store, a, b, (va, vb))
    if va.tampered or vb.tampered:
        return Comparison(a, b, tuple(found), (), (), (), va.integrity, vb.integrity, va, vb)
    ta, tb = _item_means(store, a), _item_means(store, b)
    clusters = None if cluster is None else clusters_of(store, a, cluster)
    kinds = {
        s["name"]: s["kind"]
        for run in (a, b)
        for s in store.manifest(run.run_id).get("scorers", [])
    }
    metrics: list[PairedMetric] = []
    for name in sorted(ta.keys() & tb.keys()):
        result = paired(
            name,
            kinds.get(name, "measure"),
            ta[name],
            tb[name],
            clusters,
        )
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
    )


def tested_count(metrics: Sequence[PairedMetric]) -> int:
    return sum(m.test != "no item differs" for m in metrics)
