"""Render a RunSummary as plain text (rich tables, fixed width) or as stable JSON.

The text form is what the README quotes, so it is deterministic: fixed width,
no colour, numbers at four decimals with intervals beside them.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any, get_args

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agent_assay.aggregates import RunStatus
from agent_assay.model import Run
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.intervals import METHODS, Interval, exact_interval
from agent_assay.stats.paired import CLUSTERS_FLOOR
from agent_assay.views.summary import MetricSummary, RunSummary

WIDTH = 150
SMALL_N = 30


def _shown(value: float) -> float:
    """`value` as four decimals show it, a negative that rounds to nought made plain nought
    (a difference of -0.0000 reads as a direction that is not there)."""
    return round(value, 4) + 0.0


def fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{_shown(value):.4f}"


def fmt_signed(value: float) -> str:
    return f"{_shown(value):+.4f}"


def fmt_ci(ci: Interval | None) -> str:
    return "" if ci is None else f"[{_shown(ci[0]):.4f}, {_shown(ci[1]):.4f}]"


NO_INTERVAL = "[no interval]"
"""What a mean's interval cell shows when its interval was refused; the reason follows
the table (`refusal_notes`)."""


def fmt_mean_ci(m: MetricSummary) -> str:
    return NO_INTERVAL if m.mean_refused else fmt_ci(m.mean_ci)


def method_note(metrics: Sequence[MetricSummary]) -> list[str]:
    """The method behind each kind's intervals in a table of these metrics (one line)."""
    kinds: dict[str, list[str]] = {}
    for kind in get_args(ScoreKind):
        if any(m.kind == kind for m in metrics):
            kinds.setdefault(METHODS[kind], []).append(kind)
    if not kinds:
        return []
    methods = "; ".join(f"{' and '.join(names)}: {method}" for method, names in kinds.items())
    passing = any(m.kind != "measure" for m in metrics)
    return [f"Intervals are over items, by the metric's kind: {methods}"
            + (f"; pass^k and pass@k, a fraction per item: {METHODS['fraction']}."
               if passing else ".")]


def refusal_notes(metrics: Sequence[MetricSummary], where: str = "") -> list[str]:
    """Why each mean without an interval has none (`where` names the cut, a tag say)."""
    return [f"no interval on {m.name}{where}: {m.mean_refused}."
            for m in metrics if m.mean_refused]


def console_text(*renderables: Any) -> str:
    """`renderables` as plain text; emoji codes stay text (an item id or a message holding
    `:smile:` is shown as written, not as a picture of it)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=WIDTH, color_system=None, force_terminal=False,
                      emoji=False)
    for item in renderables:
        console.print(item)
    return buffer.getvalue()


def header_lines(summary: RunSummary) -> list[str]:
    run, status = summary.run, summary.status
    lines = [
        f"run {run.run_id}  adapter={run.adapter}  config={run.config_name}  status={status.state}",
        f"suite_hash:  {run.suite_hash}",
        f"config_hash: {run.config_hash}",
        *settings_lines(run),
        f"items: {len(run.item_ids)}  repetitions (k): {run.repeats}  seed: {run.seed}  "
        f"trajectories: {status.stored} of {status.expected} ({status.crashed} crashed)",
    ]
    lines += [f"!!! {reason}" for reason in status.reasons]
    return lines


def settings_lines(run: Run) -> list[str]:
    """The settings a run was made with (`-M key=value`), under its config's hash: the
    config name alone does not say what ran."""
    settings = run.env.get("settings")
    if not isinstance(settings, dict) or not settings:
        return []
    shown = "  ".join(f"{key}={json.dumps(value)}" for key, value in sorted(settings.items()))
    return [f"settings (-M): {shown}"]


def metric_table(
    metrics: Sequence[MetricSummary], k: int, cluster: str | None = None
) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    clustered = (f"CI by {cluster}",) if cluster else ()
    for column in (
        "metric",
        "kind",
        "n",
        "mean of k",
        "95% CI",
        *clustered,
        f"n (k={k})",
        f"pass^{k}",
        "95% CI",
        f"pass@{k}",
        "95% CI",
    ):
        table.add_column(column, no_wrap=True)
    for m in metrics:
        table.add_row(
            m.name + (" *" if m.headline else "") + (" (imported)" if m.imported else ""),
            m.kind,
            str(m.n_items),
            fmt(m.mean_of_k),
            escape(fmt_mean_ci(m)),
            *((fmt_ci(m.clustered_ci),) if cluster else ()),
            str(m.n_pass_k) if m.kind != "measure" else "",
            fmt(m.pass_hat_k) if m.kind != "measure" else "",
            fmt_ci(m.pass_hat_k_ci),
            fmt(m.pass_at_k) if m.kind != "measure" else "",
            fmt_ci(m.pass_at_k_ci),
        )
    return table


REPETITION_ROWS = 20
"""Up to this many repetitions the table has a row for each; beyond, the first and last
few, then each metric's lowest and highest (a drift shows in those; `--json` has all)."""
_ENDS = 5


def repetition_table(metrics: Sequence[MetricSummary], k: int) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("rep", no_wrap=True)
    for m in metrics:
        table.add_column(m.name, no_wrap=True)
    shown = range(k) if k <= REPETITION_ROWS else [*range(_ENDS), *range(k - _ENDS, k)]
    for rep in shown:
        if k > REPETITION_ROWS and rep == k - _ENDS:
            table.add_row("...", *("" for _ in metrics))
        table.add_row(str(rep + 1), *(fmt(m.per_repetition[rep]) for m in metrics))
    if k > REPETITION_ROWS:
        for label, highest in (("lowest", False), ("highest", True)):
            table.add_row(label, *(_extreme(m.per_repetition, highest) for m in metrics))
    return table


def _extreme(values: Sequence[float | None], highest: bool) -> str:
    """The lowest or highest value across repetitions, with the first repetition it was in."""
    present = [(v, rep) for rep, v in enumerate(values, start=1) if v is not None]
    if not present:
        return fmt(None)
    target = (max if highest else min)(v for v, _ in present)
    return f"{fmt(target)} (rep {next(rep for v, rep in present if v == target)})"


def render_text(
    summary: RunSummary, *, headline_only: bool = False, banner: Sequence[str] = ()
) -> str:
    """The report; `banner` (admissibility, single-pass refusal) precedes every number."""
    k = summary.run.repeats
    metrics = [m for m in summary.metrics if m.headline or not headline_only]
    header = "\n".join([*header_lines(summary)[:3], *banner, *header_lines(summary)[3:]])
    parts: list[Any] = ["", metric_table(metrics, k, summary.cluster)]
    parts.append(
        f"* headline metric. n = items with a value. pass^k and pass@k average over the "
        f"n (k={k}) items with k values; an item with fewer is left out, not counted as a "
        "failure."
    )
    parts += method_note(metrics) + refusal_notes(metrics)
    if summary.cluster:
        parts.append(
            f"CI by {summary.cluster}: cluster-robust interval over {summary.clusters} "
            "clusters of items (CR2 error, t on Imbens-Kolesar degrees of freedom); none "
            f"for a metric whose items fall in fewer than {CLUSTERS_FLOOR} clusters."
        )
        if summary.cluster_warning:
            parts.append(summary.cluster_warning)
    parts += small_n_notes(metrics)
    c = summary.consistency
    if k == 1:
        parts.append(c.note + ".")
    else:
        shown = [m for m in metrics if m.headline]
        parts += [
            "",
            "per repetition, headline metrics (mean over items)"
            + (":" if k <= REPETITION_ROWS else
               f", {k} repetitions: the first and last {_ENDS}, then each metric's extremes:"),
            repetition_table(shown, k),
        ]
        parts.append(f"consistency: {fmt(c.value)} {fmt_ci(c.ci)}, n={c.n} ({c.note})")
    return header + "\n" + console_text(*parts)


def small_n_notes(metrics: Sequence[MetricSummary]) -> list[str]:
    """Say what a small suite cannot show, with the interval a perfect score would get."""
    sizes = sorted({m.n_items for m in metrics if m.headline and 0 < m.n_items < SMALL_N})
    notes = []
    for n in sizes:
        low, high = exact_interval(n, n) or (0.0, 1.0)
        notes.append(
            f"small n: with {n} items even a perfect score has the 95% interval "
            f"[{low:.4f}, {high:.4f}], so differences smaller than about {1 - low:.2f} "
            "between agents on this suite cannot be told apart from chance."
        )
    return notes


def interval_json(ci: Interval | None) -> list[float] | None:
    """An interval as every JSON document writes it: [low, high], or null."""
    return None if ci is None else [ci[0], ci[1]]


def metric_json(m: MetricSummary) -> dict[str, Any]:
    return {
        "version": m.version,
        "kind": m.kind,
        "definition": m.definition,
        "headline": m.headline,
        "imported": m.imported,
        "n_items": m.n_items,
        "mean_of_k": m.mean_of_k,
        "mean_ci": interval_json(m.mean_ci),
        "interval_method": m.mean_method,
        "interval_refused": m.mean_refused,
        "clustered_ci": interval_json(m.clustered_ci),
        "n_pass_k": m.n_pass_k,
        "n_left_out": m.n_left_out,
        "pass_k_items_with_fewer_than_k": "left out",
        "pass_hat_k": m.pass_hat_k,
        "pass_hat_k_ci": interval_json(m.pass_hat_k_ci),
        "pass_at_k": m.pass_at_k,
        "pass_at_k_ci": interval_json(m.pass_at_k_ci),
        "per_repetition": list(m.per_repetition),
    }


def run_identity(run: Run) -> dict[str, Any]:
    """What names a run in every JSON document: its id, adapter, config, suite, k, seed."""
    return {
        "run_id": run.run_id,
        "adapter": run.adapter,
        "config_name": run.config_name,
        "config_hash": run.config_hash,
        "suite_hash": run.suite_hash,
        "repeats": run.repeats,
        "seed": run.seed,
        "n_items": len(run.item_ids),
    }


def summary_json(summary: RunSummary) -> dict[str, Any]:
    run = summary.run
    return {
        "run": run_identity(run) | {"created_at": run.created_at, "env": dict(run.env)},
        "status": status_json(summary.status),
        "metrics": {m.name: metric_json(m) for m in summary.metrics},
        "consistency": {
            "value": summary.consistency.value,
            "ci": interval_json(summary.consistency.ci),
            "n": summary.consistency.n,
            "note": summary.consistency.note,
        },
    }


def status_json(status: RunStatus) -> dict[str, Any]:
    """A run's status in every JSON form: its state, its trajectories, its crashes by cause
    and the items left out of pass^k and pass@k at the run's k, and the reasons."""
    counted = status.repetitions
    return {
        "state": status.state,
        "expected": status.expected,
        "stored": status.stored,
        "crashed": status.crashed,
        "crashed_by_agent": counted.by_agent,
        "crashed_by_harness": counted.by_harness,
        "left_out": counted.left_out(),
        "reasons": list(status.reasons),
    }


def render_json(summary: RunSummary) -> str:
    return json.dumps(summary_json(summary), sort_keys=True, indent=2)
