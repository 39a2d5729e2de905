"""Render a stored mutation pass: the per-metric table, the kill table, the score, one mutant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rich import box
from rich.table import Table

from agent_assay.errors import AssayError
from agent_assay.model import Run
from agent_assay.mutation.orders import merged
from agent_assay.views.render import console_text, fmt

MutationCommand = Literal["mutate", "mutation-score"]


def _table(*columns: str) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in columns:
        table.add_column(column, no_wrap=True)
    return table


def orders_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per detector metric, the orders it ignored in the pass's swap mutants (none when no
    operator reversed two calls)."""
    operators = rows[:-1]
    if not any(op.get("swaps") for op in operators):
        return []
    ignored = merged(operators)
    lines = ["orders each metric ignored (earlier tool -> later tool: the swap mutants it was "
             "not worse on / those it could have been worse on):"]
    metrics = rows[-1].get("detector_metrics", [])
    for metric in metrics:
        if metric in ignored:
            lines.append(f"  {metric}: " + "; ".join(
                f"{p['earlier']} -> {p['later']} {p['ignored']}/{p['swapped']}"
                for p in ignored[metric]))
    if not ignored:
        lines.append("  none: every detector metric was worse on every swap it could see")
    elif len(ignored) < len(metrics):
        lines.append("  every other detector metric was worse on every swap it could see")
    return lines


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
        *(["\n".join(orders)] if (orders := orders_lines(rows)) else []),
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
        "schema": f"agent-assay/{command}/2",
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
                "swaps": list(op.get("swaps", [])),
                "orders_ignored": merged([op]),
            }
            for op in rows[:-1]
        ],
        "orders_ignored": merged(rows[:-1]),
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
) -> tuple[list[Any], list[Any], dict[str, Any] | None]:
    """The baseline steps and the mutant's steps `operator` made of `item` in the pass, and
    the two calls it swapped when it swapped two (turns count from 1)."""
    ops = {r["operator"]: r for r in rows[:-1]}
    if operator not in ops:
        raise AssayError(
            f"unknown operator in the stored pass: {operator} (stored: {', '.join(ops)})"
        )
    mutants = ops[operator]["mutants"]
    if item not in mutants:
        raise AssayError(f"operator {operator} did not alter item {item} (or it was not kept)")
    base = list(mutants[item]["baseline"])
    swap = mutants[item].get("swapped")
    swapped = None if swap is None else {
        "earlier_turn": swap[0] + 1, "later_turn": swap[1] + 1,
        "earlier": base[swap[0]]["call"]["tool"], "later": base[swap[1]]["call"]["tool"],
    }
    return base, list(mutants[item]["mutant"]), swapped


def mutant_text(rows: Sequence[Mapping[str, Any]], item: str, operator: str) -> str:
    base, mutant, swapped = _stored_mutant(rows, item, operator)
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
    head = f"item {item}, operator {operator}"
    if swapped is not None:
        head += (f"; swapped turns {swapped['earlier_turn']} ({swapped['earlier']}) and "
                 f"{swapped['later_turn']} ({swapped['later']})")
    return console_text(head, table)


def mutant_json(
    rows: Sequence[Mapping[str, Any]], run: Run, item: str, operator: str
) -> dict[str, Any]:
    """`mutation show --json`: the turns mutant_text sets side by side, each step as stored."""
    base, mutant, swapped = _stored_mutant(rows, item, operator)
    turns = []
    for turn in range(max(len(base), len(mutant))):
        left = base[turn] if turn < len(base) else None
        right = mutant[turn] if turn < len(mutant) else None
        turns.append({"turn": turn + 1, "baseline": left, "mutant": right,
                      "differs": left != right})
    return {
        "schema": "agent-assay/mutation-show/2",
        "run_id": run.run_id,
        "pass_id": rows[-1]["pass_id"],
        "item_id": item,
        "operator": operator,
        "turns": turns,
        "swapped": swapped,
    }
