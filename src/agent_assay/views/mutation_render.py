"""Render a stored mutation pass: the per-metric table, the kill table, the score, one mutant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rich import box
from rich.table import Table

from agent_assay.errors import AssayError
from agent_assay.model import Run
from agent_assay.views.render import console_text, fmt

MutationCommand = Literal["mutate", "mutation-score"]


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


def mutation_json(
    rows: Sequence[Mapping[str, Any]], run: Run, *, command: MutationCommand
) -> dict[str, Any]:
    """`mutate --json` and `mutation score --json`: what mutation_text prints, as data (the
    kept mutants are left out; `mutation show` prints one)."""
    if not rows:
        raise AssayError("no mutation pass is stored for this run")
    summary = rows[-1]
    return {
        "schema": f"agent-assay/{command}/1",
        "run_id": run.run_id,
        "adapter": run.adapter,
        "config_name": run.config_name,
        "pass_id": summary["pass_id"],
        "source": summary["source"],
        "items": summary["items"],
        "trajectories": summary["trajectories"],
        "detector_metrics": list(summary.get("detector_metrics", [])),
        "detector_used_for_score": summary.get("detector_used_for_score"),
        "baseline_means": dict(summary["baseline_means"]),
        "operators": [
            {
                "operator": op["operator"],
                "params": dict(op.get("params", {})),
                "status": op["status"],
                "would_alter": op["would_alter"],
                "altered": op["altered"],
                "means": dict(op["means"]),
                "killed_by_test": list(op["killed_by_test"]),
                "killed_by_threshold": list(op["killed_by_threshold"]),
                "verdicts": list(op.get("verdicts", [])),
            }
            for op in rows[:-1]
        ],
        "killed": summary["killed"],
        "survived": summary["survived"],
        "equivalent": summary["equivalent"],
        "total": summary["total"],
        "gate_mutation_score": summary["gate_mutation_score"],
    }


def _call(step: Mapping[str, Any] | None) -> str:
    if step is None:
        return ""
    call = step["call"]
    args = ", ".join(f"{k}={v!r}" for k, v in sorted(call["args"].items()))
    return f"{call['tool']}({args}) ok={step['ok']}"


def _stored_mutant(
    rows: Sequence[Mapping[str, Any]], item: str, operator: str
) -> tuple[list[Any], list[Any]]:
    """The baseline steps and the mutant's steps `operator` made of `item` in the pass."""
    ops = {r["operator"]: r for r in rows[:-1]}
    if operator not in ops:
        raise AssayError(
            f"unknown operator in the stored pass: {operator} (stored: {', '.join(ops)})"
        )
    mutants = ops[operator]["mutants"]
    if item not in mutants:
        raise AssayError(f"operator {operator} did not alter item {item} (or it was not kept)")
    return list(mutants[item]["baseline"]), list(mutants[item]["mutant"])


def mutant_text(rows: Sequence[Mapping[str, Any]], item: str, operator: str) -> str:
    base, mutant = _stored_mutant(rows, item, operator)
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


def mutant_json(
    rows: Sequence[Mapping[str, Any]], run: Run, item: str, operator: str
) -> dict[str, Any]:
    """`mutation show --json`: the turns mutant_text sets side by side, each step as stored."""
    base, mutant = _stored_mutant(rows, item, operator)
    turns = []
    for turn in range(max(len(base), len(mutant))):
        left = base[turn] if turn < len(base) else None
        right = mutant[turn] if turn < len(mutant) else None
        turns.append({"turn": turn + 1, "baseline": left, "mutant": right,
                      "differs": left != right})
    return {
        "schema": "agent-assay/mutation-show/1",
        "run_id": run.run_id,
        "pass_id": rows[-1]["pass_id"],
        "item_id": item,
        "operator": operator,
        "turns": turns,
    }
