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
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from agent_assay.aggregates import metric_kinds, treated_metrics
from agent_assay.model import Run, Trajectory
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.crashes import Repetitions, Treated
from agent_assay.stats.intervals import EXACT, Interval, exact_interval, mean_interval
from agent_assay.stats.passrates import pass_at_exact, pass_at_k, pass_hat_exact, pass_hat_k
from agent_assay.views.render import console_text, fmt, fmt_ci, fmt_signed, interval_json
from agent_assay.views.run_data import RunData

if TYPE_CHECKING:
    from agent_assay.importers import TrajectoryFault


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
    """Each declared fault's key -> the trajectories with it (`fault_kinds` declares them)."""
    fault_kinds: tuple[TrajectoryFault, ...] = ()
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
    data: RunData, curves: Mapping[str, Curve], notes: list[str]
) -> list[NullTwin]:
    """Each null agent's passes beside the curve, as the null_agent control stored them."""
    stored = data.outcomes.get("null_agent")
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


def _faults(
    trajectories: Sequence[Trajectory], declared: Sequence[TrajectoryFault]
) -> dict[str, Any]:
    """Each declared fault's trajectories (`importers.TrajectoryFault`), by its key."""
    return {
        fault.key: [
            {"item_id": t.item_id, "repetition": t.repetition}
            | ({"faults": list(t.meta[fault.meta_key])} if fault.detailed else {})
            for t in trajectories
            if fault.found(t.meta)
        ]
        for fault in declared
    }


def passk_of(data: RunData) -> PassKReport:
    """Curves for the headline metrics that pass or fail, and everything beside them, all
    under the crash rule (`stats.crashes`), as the run report has them."""
    run, manifest, columns = data.run, data.manifest, data.columns
    kinds = metric_kinds(manifest)
    headline = [h for h in manifest.get("headline", []) if h in kinds]
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
    twins = _null_twins(data, curves, notes) if curves else []
    beside = _beside(treated, kinds, imported, reference) if reference else []
    return PassKReport(
        run=run,
        trials=run.repeats,
        curves=tuple(curves.values()),
        reference=reference,
        twins=tuple(twins),
        beside=tuple(beside),
        notes=tuple(notes),
        faults=_faults(data.trajectories, data.faults),
        fault_kinds=tuple(data.faults),
        repetitions=data.status.repetitions,
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
    """The curve, then what stands beside it: passes per repetition and consistency, each
    null agent's twin margin, the other metrics split by the reference metric, the
    declared faults, and the notes."""
    k = report.trials
    parts: list[Any] = [
        "",
        f"pass^k and pass@k, k = 1..{k} (exact estimators, mean over items; "
        f"95% intervals over items: the {EXACT})",
        _curve_table(report.curves),
        *unmeasured_lines(report),
    ]
    if report.curves:
        parts += _repetition_parts(report.curves, k)
    for twin in report.twins:
        parts += _twin_parts(twin)
    parts += _beside_parts(report)
    parts += _fault_lines(report)
    parts += [f"note: {n}" for n in report.notes]
    return console_text(*parts)


def _curve_table(curves: Sequence[Curve]) -> Table:
    table = _table("metric", "k", "n", "pass^k", "95% CI", "pass@k", "95% CI")
    for c in curves:
        label = c.metric + (" (imported)" if c.imported else "")
        for p in c.points:
            table.add_row(label if p.k == 1 else "", str(p.k), str(p.n_items), fmt(p.pass_hat),
                          fmt_ci(p.pass_hat_ci), fmt(p.pass_at), fmt_ci(p.pass_at_ci))
    return table


def _passes(passed: int, n: int) -> str:
    return f"{passed}/{n} {fmt(passed / n)}" if n else "n/a"


def _repetition_parts(curves: Sequence[Curve], k: int) -> list[Any]:
    """Passes per repetition (trial), then each curve's consistency across repetitions."""
    reps = _table("rep", *(c.metric for c in curves))
    for r in range(k):
        reps.add_row(str(r + 1), *(_passes(*c.per_repetition[r]) for c in curves))
    return [
        "", "passes per repetition (trial):", reps, "",
        *(f"consistency across repetitions, {c.metric}: {fmt(c.consistency)} "
          f"{fmt_ci(c.consistency_ci)}, n={c.n_items} (all {k} pass: {c.all_pass}, all fail: "
          f"{c.all_fail}, mixed: {c.n_items - c.all_pass - c.all_fail})"
          for c in curves),
    ]


def _overlap(overlap: bool | None) -> str:
    return "n/a" if overlap is None else ("yes" if overlap else "no")


def _twin_parts(twin: NullTwin) -> list[Any]:
    """One null agent's passes beside the run's pass^k at every k."""
    table = _table("k", "run pass^k", "95% CI", f"{twin.agent}", "95% CI", "twin margin",
                   "intervals overlap")
    for t in twin.points:
        table.add_row(str(t.k), fmt(t.run), fmt_ci(t.run_ci), fmt(twin.value), fmt_ci(twin.ci),
                      fmt_signed(t.margin), _overlap(t.overlap))
    return [
        "",
        f"null agent {twin.agent} on {twin.metric}: {twin.passes} of {twin.n_items} = "
        f"{fmt(twin.value)} {fmt_ci(twin.ci)} ({twin.tool_calls} tool calls); it is run "
        "once per item, so this is its pass^k at every k",
        table,
    ]


def _beside_parts(report: PassKReport) -> list[Any]:
    """The other metrics per trajectory, overall and split by the reference metric."""
    scored = [b for b in report.beside if b.n]
    ref = report.reference
    if not ref or not scored:
        return []
    table = _table("metric", "kind", "n", "mean", f"mean where {ref} = 1", "n",
                   f"mean where {ref} = 0", "n")
    for b in scored:
        table.add_row(b.metric + (" (imported)" if b.imported else ""), b.kind, str(b.n),
                      fmt(b.mean), fmt(b.mean_pass), str(b.n_pass), fmt(b.mean_fail),
                      str(b.n_fail))
    parts: list[Any] = [
        "",
        f"the other metrics beside {ref}, per trajectory (overall, and split by whether "
        f"{ref} passed):",
        table,
    ]
    idle = [b.metric for b in report.beside if not b.n]
    if idle:
        parts.append(f"no value on any trajectory (n/a here): {', '.join(idle)}")
    return parts


FAULTS_SHOWN = 10
"""Trajectories named per fault in the text (`--json` lists all)."""


def _fault_lines(report: PassKReport) -> list[str]:
    """Each declared fault the run's trajectories carry: a line, then the first few
    trajectories with it (one per line with what the fault was, else on the line)."""
    lines: list[str] = []
    for fault in report.fault_kinds:
        found = report.faults.get(fault.key, [])
        if not found:
            continue
        heading = fault.heading.format(n=len(found))
        shown = found[:FAULTS_SHOWN]
        if fault.detailed:
            lines.append(heading)
            lines += [f"  {f['item_id']}/{f['repetition']}: {'; '.join(f['faults'])}"
                      for f in shown]
        else:
            lines.append(heading + ": " + ", ".join(f"{f['item_id']}/{f['repetition']}"
                                                    for f in shown))
    return ["", *lines] if lines else []


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

