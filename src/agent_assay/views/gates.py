"""Render the integrity gates: control tables, the admissibility banner, comparisons.

A banner is printed before any number, so a reader cannot see a figure from
an inadmissible run without first reading why it is inadmissible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from agent_assay.findings import summarise_findings
from agent_assay.integrity.admissibility import Admissibility, Integrity, SinglePass
from agent_assay.integrity.comparability import Comparison, PairedMetric, tested_count
from agent_assay.model import Run
from agent_assay.stats.paired import ALPHA
from agent_assay.views.render import (
    console_text,
    fmt,
    fmt_ci,
    fmt_signed,
    interval_json,
    render_text,
    summary_json,
)
from agent_assay.views.run_data import RunData
from agent_assay.views.summary import summary_of

if TYPE_CHECKING:
    from agent_assay.store import StoredOutcome

UNSOUND = "UNSOUND COMPARISON"


def control_table(outcomes: Sequence[Mapping[str, Any]]) -> str:
    from agent_assay.controls.next_steps import next_step  # it imports the adapters' module

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("control", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("what it measured", overflow="fold")
    for o in outcomes:
        status = o["status"] + (" (allowed)" if o.get("allowed_not_run") else "")
        hint = "" if o.get("allowed_not_run") else next_step(
            o["kind"], o["status"], o.get("reason", ""))
        table.add_row(o["kind"], status, o["summary"] + (f"\n-> next: {hint}" if hint else ""))
    return console_text(table)


TAMPER_LINES = 12


def tampered_lines(run: Run, state: Integrity) -> list[str]:
    """The banner of a run whose stored evidence fails its integrity check: no number
    follows."""
    return [
        f"!!! TAMPERED -- the stored evidence of run {run.run_id} fails its integrity "
        "check; no number is shown",
        *(f"    {line}" for line in summarise_findings(state.findings, TAMPER_LINES)),
        f"    run `agent-assay verify {run.run_id}` for the full check",
    ]


def evidence_line(state: Integrity) -> str:
    head = state.check.evidence.head
    if head is None:
        return "evidence chain: none"
    return (
        f"evidence chain: {head.seq} blocks, head sha256 {head.digest} "
        "(publish it beside the numbers; `agent-assay verify` re-derives them)"
    )


def admissibility_lines(verdict: Admissibility) -> list[str]:
    """The verdict as `Admissibility.word` decides it, then every reason, waiver and
    departure from the harness's defaults, each on its own line."""
    if verdict.tampered:
        return ["!!! INADMISSIBLE -- " + verdict.reasons[0]]
    if verdict.word == "ADMISSIBLE":
        first = ("ADMISSIBLE -- zero invariant violations; every control PASSED or allowed "
                 "NOT_RUN, judged under the harness's defaults with nothing waived")
    elif verdict.admissible:
        first = (f"!!! {verdict.word} -- every control PASSED or was allowed NOT_RUN, and "
                 "the verdict stands on the waivers below")
    else:
        first = "!!! INADMISSIBLE -- the numbers below are not reportable evidence"
    return [first, *(f"    {line}" for line in verdict_details(verdict))]


def verdict_details(verdict: Admissibility) -> list[str]:
    """Why a run is inadmissible, what its verdict waived, and what else departs from the
    harness's defaults: the lines every text form prints after the verdict's word."""
    return [
        *(f"reason: {reason}" for reason in verdict.reasons),
        *(f"waived: {waiver}" for waiver in verdict.waivers),
        *verdict.disclosures,
    ]


def single_pass_lines(single: SinglePass) -> list[str]:
    if single.certified_by is not None:
        return [f"k=1 headline: this config's determinism is certified by identical_config on "
                f"run {single.certified_by}"]
    if not single.reasons:
        return []
    return [
        "!!! single run; not a measurement",
        *(f"    {r}" for r in single.reasons),
        "    k=1 supports no spread across repetitions and no consistency figure; the numbers",
        "    below are a sample of one pass, not a measurement of this agent.",
    ]


def comparison_text(c: Comparison, *, forced: bool) -> str:
    lines: list[str] = []
    for run, state in ((c.run_a, c.integrity_a), (c.run_b, c.integrity_b)):
        if state.tampered:
            lines += tampered_lines(run, state)
    if c.tampered:
        lines.append("COMPARISON REFUSED")
        lines += [f"  {mismatch.code}: {mismatch.detail}" for mismatch in c.mismatches]
        lines.append("Nothing was compared, and --force cannot compare a tampered store.")
        return "\n".join(lines) + "\n"
    stamp = f"  [{UNSOUND}]" if not c.sound else ""
    if not c.sound:
        lines.append("COMPARISON REFUSED" if not forced else f"{UNSOUND}: forced with --force")
        lines += [f"  {mismatch.code}: {mismatch.detail}" for mismatch in c.mismatches]
        if not forced:
            lines.append(
                "Nothing was compared. Re-run with --force to see the numbers anyway; "
                f"every line will be stamped {UNSOUND}."
            )
            return "\n".join(lines) + "\n"
    lines.append(
        f"A = {c.run_a.run_id} ({c.run_a.config_name}), "
        f"B = {c.run_b.run_id} ({c.run_b.config_name}){stamp}"
    )
    for label, verdict in (("A", c.verdict_a), ("B", c.verdict_b)):
        if verdict is not None and (verdict.waivers or verdict.disclosures):
            lines.append(f"{label} is {verdict.one_line}")
    for metric in c.only_in_a:
        lines.append(f"metric {metric} present in A only; not compared{stamp}")
    for metric in c.only_in_b:
        lines.append(f"metric {metric} present in B only; not compared{stamp}")
    lines += [line + stamp for line in (
        *clustering_lines(c),
        *(paired_line(m) for m in c.metrics),
        *([HEADLINE_MARK] if any(m.headline for m in c.metrics) else []),
        headline_line(c),
        tested_line(c),
    )]
    return "\n".join(lines) + "\n"


HEADLINE_MARK = "* headline metric (named so by either run's manifest)."


def clustering_lines(c: Comparison) -> list[str]:
    """What the figures rest on when the items are clustered, and any warning."""
    if c.cluster is None:
        return []
    return [
        f"clustered by {c.cluster}: {c.clusters} clusters of items; every p-value and interval "
        "below is the cluster-robust paired t (CR2 error, Imbens-Kolesar degrees of freedom)",
        *([c.cluster_warning] if c.cluster_warning else []),
    ]


def paired_line(m: PairedMetric) -> str:
    """One metric: both means, B - A, and either the interval and p-value of one test or
    why there is none ("no item differs")."""
    head = (f"{m.metric}{' *' if m.headline else ''}: A {fmt(m.mean_a)}  B {fmt(m.mean_b)}  "
            f"B-A {fmt_signed(m.difference)}")
    if m.p_value is None:
        return f"{head}  {m.test} (n={m.n_items})"
    missing = f"; no interval: {m.no_ci}" if m.ci is None else ""
    return (f"{head} {fmt_ci(m.ci) or '[no interval]'}  p={m.p_value:.4g} "
            f"({m.test}, n={m.n_items}{missing})")


def headline_line(c: Comparison) -> str:
    """The one line that says which headline metrics differ at ALPHA."""
    level = f"p < {ALPHA:.2g}"
    if not any(m.headline for m in c.metrics):
        return f"no headline metric is compared, so none differs ({level})"
    found = c.headline_differences()
    if not found:
        return f"no headline metric differs ({level})"
    named = ", ".join(f"{m.metric} ({fmt_signed(m.difference)})" for m in found)
    return f"headline metrics that differ ({level}): {named}"


def tested_line(c: Comparison) -> str:
    return (f"{tested_count(c.metrics)} of {len(c.metrics)} metrics tested (the others have "
            "no p-value); p-values are not corrected for multiple comparisons.")


def _paired_json(m: PairedMetric) -> dict[str, Any]:
    return {
        "metric": m.metric,
        "kind": m.kind,
        "headline": m.headline,
        "n_items": m.n_items,
        "differing": m.differing,
        "mean_a": m.mean_a,
        "mean_b": m.mean_b,
        "difference": m.difference,
        "ci": interval_json(m.ci),
        "no_ci_reason": None if m.ci is not None else m.no_ci,
        "p_value": m.p_value,
        "differs": m.differs,
        "test": m.test,
        "df": m.df,
        "clusters": m.clusters,
    }


def _compared_run(run: Run, state: Integrity, verdict: Admissibility | None) -> dict[str, Any]:
    return {"run_id": run.run_id, "config_name": run.config_name, "tampered": state.tampered,
            "verdict": verdict.word if verdict else None,
            "waivers": list(verdict.waivers) if verdict else [],
            "disclosures": list(verdict.disclosures) if verdict else []}


def comparison_json(c: Comparison, *, forced: bool) -> dict[str, Any]:
    """`compare --json`: what comparison_text prints, as data. A refused comparison (unsound
    without --force, or any tampered run) carries its mismatches and no number."""
    shown = not c.tampered and (c.sound or forced)
    return {
        "schema": "agent-assay/compare/2",
        "run_a": _compared_run(c.run_a, c.integrity_a, c.verdict_a),
        "run_b": _compared_run(c.run_b, c.integrity_b, c.verdict_b),
        "sound": c.sound,
        "forced": forced and shown and not c.sound,
        "refused": not shown,
        "tampered": c.tampered,
        "mismatches": [{"code": m.code, "detail": m.detail} for m in c.mismatches],
        "metrics": [_paired_json(m) for m in c.metrics] if shown else None,
        "only_in_a": list(c.only_in_a) if shown else None,
        "only_in_b": list(c.only_in_b) if shown else None,
        "tested": tested_count(c.metrics) if shown else None,
        "p_values_corrected": False,
        "alpha": ALPHA,
        "headline_differ": [m.metric for m in c.headline_differences()] if shown else None,
        "headline_summary": headline_line(c) if shown else None,
        "cluster": c.cluster,
        "clusters": c.clusters if c.cluster is not None and shown else None,
        "cluster_warning": c.cluster_warning if shown else None,
    }


def _outcome_json(outcome: Mapping[str, Any]) -> dict[str, Any]:
    from agent_assay.controls.next_steps import next_step  # it imports the adapters' module

    hint = "" if outcome.get("allowed_not_run") else next_step(
        outcome["kind"], outcome["status"], outcome.get("reason", ""))
    return dict(outcome) | {"next_step": hint or None}


def controls_json(
    run: Run, outcomes: Sequence[Mapping[str, Any]], verdict: Admissibility, exit_code: int
) -> dict[str, Any]:
    """`controls run --json`: each control's stored outcome (what control_table shows, and
    the rest of its payload), the counts by status and the verdict they add up to."""
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[str(outcome["status"])] = counts.get(str(outcome["status"]), 0) + 1
    return {
        "schema": "agent-assay/controls-run/1",
        "run_id": run.run_id,
        "adapter": run.adapter,
        "config_name": run.config_name,
        "outcomes": [_outcome_json(o) for o in outcomes],
        "counts": counts,
        **verdict_json(verdict),
        "reasons": list(verdict.reasons),
        "exit_code": exit_code,
    }


def verdict_json(verdict: Admissibility) -> dict[str, Any]:
    """The verdict in every JSON form: its word and statement, why, what it waived, what
    it departed from without waiving, and the choices its certificate binds (the reasons
    an inadmissible run is one are keyed by each form)."""
    return {
        "admissible": verdict.admissible,
        "verdict": verdict.word,
        "statement": verdict.statement,
        "waivers": list(verdict.waivers),
        "disclosures": list(verdict.disclosures),
        "choices": dict(verdict.choices) or None,
    }


def controls_show_json(run: Run, outcomes: Mapping[str, StoredOutcome]) -> dict[str, Any]:
    """`controls show --json`: the newest stored payload of each control, keyed by kind."""
    payloads: dict[str, Any] = {kind: o.payload for kind, o in outcomes.items()}
    return {"schema": "agent-assay/controls-show/1", "run_id": run.run_id} | payloads


def report_text_of(data: RunData, *, headline_only: bool = False) -> str:
    """The run report with its gates: integrity and admissibility first, then any
    single-pass refusal; a tampered run gets its findings and no number at all."""
    run, verdict = data.run, data.verdict
    if verdict.tampered:
        lines = [*tampered_lines(run, verdict.integrity), *admissibility_lines(verdict)]
        return "\n".join(lines) + "\n"
    banner = [
        *admissibility_lines(verdict),
        evidence_line(verdict.integrity),
        *single_pass_lines(data.single),
    ]
    return render_text(summary_of(data), headline_only=headline_only, banner=banner)


def report_json_of(data: RunData) -> dict[str, Any]:
    run, verdict = data.run, data.verdict
    gate = {
        "schema": "agent-assay/report/1",
        **verdict_json(verdict),
        "inadmissible_reasons": list(verdict.reasons),
        "tampered": verdict.tampered,
        "integrity_findings": [f.line() for f in verdict.integrity.findings],
    }
    if verdict.tampered:
        return {"run_id": run.run_id} | gate
    head = verdict.integrity.check.evidence.head
    single = data.single
    return summary_json(summary_of(data)) | gate | {
        "chain_head": head.to_json() if head else None,
        "single_pass_refused": list(single.reasons),
        "determinism_certified_by": single.certified_by,
    }
