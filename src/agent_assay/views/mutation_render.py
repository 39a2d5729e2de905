"""Render a stored mutation pass: the per-metric table, the kill table, the score, one mutant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.table import Table

from agent_assay.errors import AssayError
from agent_assay.views.render import console_text, fmt


def _table(*columns: str) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in columns:
        table.add_column(column, no_wrap=True)
    return table


def mutation_text(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        raise AssayError("no mutation pass is stored for this run")
    summary = rows[-1]
    operators = [r for r in rows[:-1]]
    metrics = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    metrics.add_column("metric", no_wrap=True)
    metrics.add_column("baseline", no_wrap=True)
    for op in operators:
        metrics.add_column(op["operator"], no_wrap=True)
    for metric, base in summary["baseline_means"].items():
        metrics.add_row(metric, fmt(base), *(fmt(op["means"].get(metric)) for op in operators))
    kills = _table(
        "operator",
        "would alter",
        "altered",
        "status (statistical)",
        "metrics that saw it: statistical / threshold",
    )
    seen = []
    for op in operators:
        kills.add_row(
            op["operator"],
            str(op["would_alter"]),
            str(op["altered"]),
            op["status"],
            f"{len(op['killed_by_test'])} / {len(op['killed_by_threshold'])}",
        )
        seen.append(
            f"  {op['operator']}: statistical: {', '.join(op['killed_by_test']) or '-'}"
            f"; threshold: {', '.join(op['killed_by_threshold']) or '-'}"
        )
    score = summary["gate_mutation_score"]
    head = (
        f"mutation pass {summary['pass_id']} over {summary['items']} items "
        f"({summary['trajectories']} trajectories); operators from {summary['source']}"
    )
    tail = (
        f"gate_mutation_score: {fmt(score)} -- {summary['killed']} killed of "
        f"{summary['total'] - summary['equivalent']} non-equivalent "
        f"({summary['equivalent']} equivalent, {summary['survived']} survived); "
        "the score uses the statistical detector"
    )
    notes = (
        "'would alter' counts baseline trajectories the operator would change, checked "
        "before anything is replayed; 'altered' counts those it did change."
    )
    return console_text(
        head,
        "",
        "per-metric means (baseline, then each operator):",
        metrics,
        "",
        kills,
        "\n".join(seen),
        notes,
        tail,
    )


def _call(step: Mapping[str, Any] | None) -> str:
    if step is None:
        return ""
    call = step["call"]
    args = ", ".join(f"{k}={v!r}" for k, v in sorted(call["args"].items()))
    return f"{call['tool']}({args}) ok={step['ok']}"


def mutant_text(rows: Sequence[Mapping[str, Any]], item: str, operator: str) -> str:
    ops = {r["operator"]: r for r in rows[:-1]}
    if operator not in ops:
        raise AssayError(
            f"unknown operator in the stored pass: {operator} (stored: {', '.join(ops)})"
        )
    mutants = ops[operator]["mutants"]
    if item not in mutants:
        raise AssayError(f"operator {operator} did not alter item {item} (or it was not kept)")
    base, mutant = mutants[item]["baseline"], mutants[item]["mutant"]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("turn", no_wrap=True)
    table.add_column("baseline", overflow="fold")
    table.add_column(f"mutant ({operator})", overflow="fold")
    table.add_column("", no_wrap=True)
    for turn in range(max(len(base), len(mutant))):
        left = base[turn] if turn < len(base) else None
        right = mutant[turn] if turn < len(mutant) else None
        mark = "" if left == right else "<- differs"
        table.add_row(str(turn + 1), _call(left), _call(right), mark)
    return console_text(f"item {item}, operator {operator}", table)
