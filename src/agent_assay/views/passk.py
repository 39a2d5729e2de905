"""pass^k and pass@k for every k from 1 to a run's repetitions, for any stored run.

Estimators (per item with n repetitions and c passes, then the mean over items):
pass^k = C(c, k)/C(n, k), the chance that k repetitions drawn without replacement
all pass (tau-bench's pass^k); pass@k = 1 - C(n-c, k)/C(n, k). Both are computed
in exact rational arithmetic and rounded once, so pass^k of a published file is
the fraction itself, not a float sum that depends on the order of the items.

Intervals come from agent_assay.stats.intervals over the items' own values (the exact
binomial interval on their sum), the same function the run report uses, so one
metric of one run has one interval in every view: items are the independent
unit (repetitions of one item are not).

Every value goes through the crash rule first (`stats.crashes`): a repetition the
agent crashed fails, one the harness crashed is not measured. Beside the curve: the
crashes by cause and, at each k, the items left out for having fewer than k
measured repetitions (when there are any), passes per repetition, consistency
across repetitions (the share of items whose repetitions all pass or all fail),
each null agent's twin margin at every k with whether the intervals overlap, the
other metrics split by whether the reference metric passed, and faults recorded
on imported trajectories.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich import box
from rich.table import Table

from agent_assay.aggregates import metric_kinds, run_repetitions, treated_metrics
from agent_assay.model import Run, Trajectory
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.crashes import Repetitions, Treated
from agent_assay.stats.intervals import EXACT, Interval, exact_interval, mean_interval
from agent_assay.stats.passrates import pass_at_exact, pass_at_k, pass_hat_exact, pass_hat_k
from agent_assay.store import Store
from agent_assay.views.render import console_text, fmt, fmt_ci, fmt_signed, interval_json


@dataclass(frozen=True)
class KPoint:
    k: int
    n_items: int
    pass_hat: float
    pass_hat_ci: Interval | None
    pass_at: float
    pass_at_ci: Interval | None
    n_left_out: int = 0
    """Items with a verdict but fewer than k: left out at this k, and counted."""


@dataclass(frozen=True)
class Curve:
    metric: str
    kind: ScoreKind
    headline: bool
    imported: bool
    points: tuple[KPoint, ...]
    per_repetition: tuple[tuple[int, int], ...]
    """(passes, items with a value) for repetition 1..k."""
    all_pass: int
    all_fail: int
    n_items: int

    def point(self, k: int) -> KPoint:
        return next(p for p in self.points if p.k == k)

    @property
    def consistency(self) -> float | None:
        return (self.all_pass + self.all_fail) / self.n_items if self.n_items else None

    @property
    def consistency_ci(self) -> Interval | None:
        return exact_interval(self.all_pass + self.all_fail, self.n_items)


@dataclass(frozen=True)
class TwinPoint:
    k: int
    run: float
    run_ci: Interval | None
    margin: float
    overlap: bool | None


@dataclass(frozen=True)
class NullTwin:
    agent: str
    metric: str
    passes: int
    n_items: int
    tool_calls: int
    points: tuple[TwinPoint, ...]

    @property
    def value(self) -> float:
        return self.passes / self.n_items if self.n_items else 0.0

    @property
    def ci(self) -> Interval | None:
        return exact_interval(self.passes, self.n_items)


@dataclass(frozen=True)
class Beside:
    metric: str
    kind: ScoreKind
    imported: bool
    n: int
    mean: float | None
    n_pass: int
    mean_pass: float | None
    n_fail: int
    mean_fail: float | None


@dataclass(frozen=True)
class PassKReport:
    run: Run
    trials: int
    curves: tuple[Curve, ...]
    reference: str | None
    twins: tuple[NullTwin, ...] = ()
    beside: tuple[Beside, ...] = ()
    notes: tuple[str, ...] = ()
    faults: Mapping[str, Any] = field(default_factory=dict)
    repetitions: Repetitions | None = None
    """The run's crashes by cause and its items short of measured repetitions."""


Verdicts = Mapping[str, Mapping[int, bool]]
"""item -> repetition -> passed, for the repetitions that take part in pass rates."""


def verdicts_of(treated: Treated, item_ids: Sequence[str]) -> dict[str, dict[int, bool]]:
    """A metric's verdicts by item and repetition, after the crash rule."""
    table: dict[str, dict[int, bool]] = defaultdict(dict)
    items, reps, passed = treated.in_pass_rates()
    for item, rep, verdict in zip(items.tolist(), reps.tolist(), passed.tolist(), strict=True):
        table[item_ids[item]][rep] = verdict
    return table


def curve(
    name: str,
    kind: ScoreKind,
    table: Verdicts,
    trials: int,
    *,
    headline: bool = False,
    imported: bool = False,
) -> Curve:
    """pass^k and pass@k for k = 1..trials over the items with at least k verdicts; the
    items with fewer are counted at each k."""
    points = []
    for k in range(1, trials + 1):
        counts = [(len(v), sum(v.values())) for v in table.values() if len(v) >= k]
        if not counts:
            continue
        hat, at = float(pass_hat_exact(counts, k)), float(pass_at_exact(counts, k))
        hat_ci = mean_interval([pass_hat_k(n, c, k) for n, c in counts], "fraction")
        at_ci = mean_interval([pass_at_k(n, c, k) for n, c in counts], "fraction")
        points.append(KPoint(k, len(counts), hat, hat_ci, at, at_ci,
                             sum(0 < len(v) < k for v in table.values())))
    per_rep = tuple(
        (
            sum(v[r] for v in table.values() if r in v),
            sum(r in v for v in table.values()),
        )
        for r in range(1, trials + 1)
    )
    complete = [v for v in table.values() if len(v) == trials]
    return Curve(
        metric=name,
        kind=kind,
        headline=headline,
        imported=imported,
        points=tuple(points),
        per_repetition=per_rep,
        all_pass=sum(all(v.values()) for v in complete),
        all_fail=sum(not any(v.values()) for v in complete),
        n_items=len(complete),
    )


def _null_twins(
    store: Store, run: Run, curves: Mapping[str, Curve], notes: list[str]
) -> list[NullTwin]:
    """Each null agent's passes beside the curve, as the null_agent control stored them."""
    stored = store.control_outcomes(run.run_id).get("null_agent")
    agents = (stored.payload.get("measured", {}).get("agents", {}) if stored else {}) or {}
    if stored is None or stored.status == "NOT_RUN":
        notes.append(
            "null agents: not measured for this run yet (`agent-assay controls run` stores "
            "what they score)"
        )
        return []
    twins = []
    for name, measured in sorted(agents.items()):
        for metric, c in curves.items():
            counted = measured.get("passes", {}).get(metric)
            if not counted or not counted[1]:
                continue
            passed, n = int(counted[0]), int(counted[1])
            null = passed / n
            null_ci = exact_interval(passed, n)
            points = tuple(
                TwinPoint(
                    p.k,
                    p.pass_hat,
                    p.pass_hat_ci,
                    p.pass_hat - null,
                    None
                    if p.pass_hat_ci is None or null_ci is None
                    else max(p.pass_hat_ci[0], null_ci[0]) <= min(p.pass_hat_ci[1], null_ci[1]),
                )
                for p in c.points
            )
            twins.append(NullTwin(name, metric, passed, n, int(measured["tool_calls"]), points))
    return twins


def _beside(
    treated: Mapping[str, Treated],
    kinds: Mapping[str, ScoreKind],
    imported: Mapping[str, bool],
    reference: str,
) -> list[Beside]:
    items, reps, passed = treated[reference].in_pass_rates()
    ref = dict(zip(zip(items.tolist(), reps.tolist(), strict=True), passed.tolist(),
                   strict=True))
    out = []
    for metric in sorted(treated):  # by name, as the stored rows come
        if metric == reference:
            continue
        items, reps, kept = treated[metric].in_means()
        values = [(v, ref.get((i, r)))
                  for i, r, v in zip(items.tolist(), reps.tolist(), kept.tolist(), strict=True)]
        on_pass = [v for v, p in values if p is True]
        on_fail = [v for v, p in values if p is False]
        out.append(
            Beside(
                metric=metric,
                kind=kinds.get(metric, "measure"),
                imported=imported[metric],
                n=len(values),
                mean=_mean([v for v, _ in values]),
                n_pass=len(on_pass),
                mean_pass=_mean(on_pass),
                n_fail=len(on_fail),
                mean_fail=_mean(on_fail),
            )
        )
    return out


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _faults(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    malformed = [
        {
            "item_id": t.item_id,
            "repetition": t.repetition,
            "faults": list(t.meta["malformed"]),
        }
        for t in trajectories
        if t.meta.get("malformed")
    ]
    no_reward = [
        {"item_id": t.item_id, "repetition": t.repetition}
        for t in trajectories
        if t.meta.get("reward_computed") is False
    ]
    return {"malformed": malformed, "no_reward_info": no_reward}


def passk_report(store: Store, run: Run) -> PassKReport:
    """Curves for the headline metrics that pass or fail, and everything beside them, all
    under the crash rule (`stats.crashes`), as the run report has them."""
    manifest = store.manifest(run.run_id)
    kinds = metric_kinds(manifest)
    headline = [h for h in manifest.get("headline", []) if h in kinds]
    columns = store.score_columns(run.run_id)
    treated = treated_metrics(columns, kinds)
    imported = {name: column.imported for name, column in columns.metrics.items()}
    verdicts = {name: verdicts_of(treated[name], columns.item_ids)
                for name in headline if kinds[name] != "measure" and name in treated}
    shown = [name for name in headline if verdicts.get(name)]
    curves = {
        name: curve(name, kinds[name], verdicts[name], run.repeats, headline=True,
                    imported=imported[name])
        for name in shown
    }
    notes: list[str] = []
    if not curves:
        notes.append("no headline metric that passes or fails has stored values")
    binary = [n for n in shown if kinds[n] == "binary"]
    reference = binary[0] if binary else (shown[0] if shown else None)
    twins = _null_twins(store, run, curves, notes) if curves else []
    beside = _beside(treated, kinds, imported, reference) if reference else []
    return PassKReport(
        run=run,
        trials=run.repeats,
        curves=tuple(curves.values()),
        reference=reference,
        twins=tuple(twins),
        beside=tuple(beside),
        notes=tuple(notes),
        faults=_faults(store.trajectories(run.run_id)),
        repetitions=run_repetitions(store, run),
    )


# ---- rendering ------------------------------------------------------------------
def _table(*columns: str) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in columns:
        table.add_column(column, no_wrap=True)
    return table


def unmeasured_lines(report: PassKReport) -> list[str]:
    """Beside the curve, when there is anything to say: the crashes by cause, and at each k
    the items left out for having fewer than k repetitions with a verdict."""
    lines = [report.repetitions.crash_line()] if report.repetitions else []
    short = [
        f"{c.metric} " + ", ".join(f"k={p.k}: {p.n_left_out}" for p in c.points if p.n_left_out)
        for c in report.curves if any(p.n_left_out for p in c.points)
    ]
    if short:
        lines.append("left out at k (fewer than k measured repetitions with a verdict; n counts "
                     "the rest): " + "; ".join(short))
    return [line for line in lines if line]


def render_passk(report: PassKReport) -> str:
    k = report.trials
    parts: list[Any] = [
        "",
        f"pass^k and pass@k, k = 1..{k} (exact estimators, mean over items; "
        f"95% intervals over items: the {EXACT})",
    ]
    curves = _table("metric", "k", "n", "pass^k", "95% CI", "pass@k", "95% CI")
    for c in report.curves:
        label = c.metric + (" (imported)" if c.imported else "")
        for p in c.points:
            curves.add_row(
                label if p.k == 1 else "",
                str(p.k),
                str(p.n_items),
                fmt(p.pass_hat),
                fmt_ci(p.pass_hat_ci),
                fmt(p.pass_at),
                fmt_ci(p.pass_at_ci),
            )
    parts.append(curves)
    parts += unmeasured_lines(report)
    if report.curves:
        reps = _table("rep", *(c.metric for c in report.curves))
        for r in range(k):
            reps.add_row(
                str(r + 1),
                *(
                    f"{c.per_repetition[r][0]}/{c.per_repetition[r][1]} "
                    f"{fmt(c.per_repetition[r][0] / c.per_repetition[r][1])}"
                    if c.per_repetition[r][1]
                    else "n/a"
                    for c in report.curves
                ),
            )
        parts += ["", "passes per repetition (trial):", reps, ""]
        parts += [
            f"consistency across repetitions, {c.metric}: {fmt(c.consistency)} "
            f"{fmt_ci(c.consistency_ci)}, n={c.n_items} (all {k} pass: {c.all_pass}, all fail: "
            f"{c.all_fail}, mixed: {c.n_items - c.all_pass - c.all_fail})"
            for c in report.curves
        ]
    for twin in report.twins:
        parts += [
            "",
            f"null agent {twin.agent} on {twin.metric}: {twin.passes} of {twin.n_items} = "
            f"{fmt(twin.value)} {fmt_ci(twin.ci)} ({twin.tool_calls} tool calls); it is run "
            "once per item, so this is its pass^k at every k",
        ]
        table = _table(
            "k",
            "run pass^k",
            "95% CI",
            f"{twin.agent}",
            "95% CI",
            "twin margin",
            "intervals overlap",
        )
        for t in twin.points:
            table.add_row(
                str(t.k),
                fmt(t.run),
                fmt_ci(t.run_ci),
                fmt(twin.value),
                fmt_ci(twin.ci),
                fmt_signed(t.margin),
                "n/a" if t.overlap is None else ("yes" if t.overlap else "no"),
            )
        parts.append(table)
    scored = [b for b in report.beside if b.n]
    if report.reference and scored:
        ref = report.reference
        table = _table(
            "metric",
            "kind",
            "n",
            "mean",
            f"mean where {ref} = 1",
            "n",
            f"mean where {ref} = 0",
            "n",
        )
        for b in scored:
            table.add_row(
                b.metric + (" (imported)" if b.imported else ""),
                b.kind,
                str(b.n),
                fmt(b.mean),
                fmt(b.mean_pass),
                str(b.n_pass),
                fmt(b.mean_fail),
                str(b.n_fail),
            )
        parts += [
            "",
            f"the other metrics beside {ref}, per trajectory (overall, and split by whether "
            f"{ref} passed):",
            table,
        ]
        idle = [b.metric for b in report.beside if not b.n]
        if idle:
            parts.append(f"no value on any trajectory (n/a here): {', '.join(idle)}")
    malformed, no_reward = report.faults["malformed"], report.faults["no_reward_info"]
    if malformed or no_reward:
        parts.append("")
    if malformed:
        parts.append(
            f"malformed trajectories: {len(malformed)} (stored with their faults in "
            "meta.malformed; scored as recorded)"
        )
        parts += [
            f"  {m['item_id']}/{m['repetition']}: {'; '.join(m['faults'])}" for m in malformed[:10]
        ]
    if no_reward:
        parts.append(
            f"results without reward_info: {len(no_reward)} (the source computed no reward for "
            "them and published 0; kept as published): "
            + ", ".join(f"{m['item_id']}/{m['repetition']}" for m in no_reward[:10])
        )
    parts += [f"note: {n}" for n in report.notes]
    return console_text(*parts)


def passk_json(report: PassKReport) -> dict[str, Any]:
    return {
        "trials": report.trials,
        "reference": report.reference,
        "curves": {
            c.metric: {
                "kind": c.kind,
                "imported": c.imported,
                "points": [
                    {
                        "k": p.k,
                        "n_items": p.n_items,
                        "pass_hat_k": p.pass_hat,
                        "pass_hat_k_ci": interval_json(p.pass_hat_ci),
                        "pass_at_k": p.pass_at,
                        "pass_at_k_ci": interval_json(p.pass_at_ci),
                        "n_left_out": p.n_left_out,
                    }
                    for p in c.points
                ],
                "per_repetition": [list(x) for x in c.per_repetition],
                "consistency": c.consistency,
                "consistency_ci": interval_json(c.consistency_ci),
                "all_pass": c.all_pass,
                "all_fail": c.all_fail,
                "n_items": c.n_items,
            }
            for c in report.curves
        },
        "null_agents": [
            {
                "agent": t.agent,
                "metric": t.metric,
                "passes": t.passes,
                "n_items": t.n_items,
                "value": t.value,
                "ci": interval_json(t.ci),
                "tool_calls": t.tool_calls,
                "per_k": [
                    {
                        "k": p.k,
                        "run": p.run,
                        "run_ci": interval_json(p.run_ci),
                        "margin": p.margin,
                        "overlap": p.overlap,
                    }
                    for p in t.points
                ],
            }
            for t in report.twins
        ],
        "beside": {
            b.metric: {
                "kind": b.kind,
                "imported": b.imported,
                "n": b.n,
                "mean": b.mean,
                "mean_when_reference_passed": b.mean_pass,
                "n_reference_passed": b.n_pass,
                "mean_when_reference_failed": b.mean_fail,
                "n_reference_failed": b.n_fail,
            }
            for b in report.beside
        },
        "faults": dict(report.faults),
        "crashed": None if report.repetitions is None else {
            "by_agent": report.repetitions.by_agent,
            "by_harness": report.repetitions.by_harness,
        },
        "notes": list(report.notes),
    }


def passk_text(store: Store, run: Run) -> str:
    return render_passk(passk_report(store, run))
