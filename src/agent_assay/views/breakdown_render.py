"""Text, JSON and CSV for the per-tag and per-item cuts of a run (views/breakdown.py).

The CSV forms carry the run's verdict on every row: a table pasted into a spreadsheet
loses the banner printed above it, and must not lose whether its numbers are evidence.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from agent_assay.views.breakdown import ItemTable, TagBreakdown
from agent_assay.views.render import (
    console_text,
    fmt,
    fmt_ci,
    fmt_mean_ci,
    metric_json,
    refusal_notes,
)
from agent_assay.views.summary import MetricSummary

MAX_TAGS_SHOWN = 8


def _shown(metrics: Sequence[MetricSummary]) -> list[MetricSummary]:
    """The headline metrics, or every metric when the run names none."""
    return [m for m in metrics if m.headline] or list(metrics)


def partition_line(cut: TagBreakdown) -> str:
    """Whether the tags partition the items, in the words a reader needs to add n up."""
    tagged = cut.items - cut.untagged
    line = f"{len(cut.rows)} tags; n adds up to {cut.tagged_total} over the run's {cut.items} items"
    if cut.overlapping:
        line += (f": tags overlap, so an item is counted once under each of its tags "
                 f"({cut.overlapping} more item-tag pairs than the {tagged} tagged items)")
    else:
        line += ": each tagged item carries one tag"
    if cut.untagged:
        line += f"; {cut.untagged} items carry no tag and are in no row"
    return line + "."


def by_tag_text(cut: TagBreakdown) -> str:
    k = cut.run.repeats
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("tag", "n", "metric", "scored", "mean of k", "95% CI", f"pass^{k}",
                   "95% CI"):
        table.add_column(column, no_wrap=True)
    for row in cut.rows:
        for index, m in enumerate(_shown(row.metrics)):
            passing = m.kind != "measure"
            table.add_row(
                row.tag if index == 0 else "", str(row.n_items) if index == 0 else "",
                m.name, str(m.n_items), fmt(m.mean_of_k), escape(fmt_mean_ci(m)),
                fmt(m.pass_hat_k) if passing else "", fmt_ci(m.pass_hat_k_ci),
            )
    refused = [note for row in cut.rows
               for note in refusal_notes(_shown(row.metrics), f" in tag {row.tag}")]
    return console_text(
        "", "by tag (headline metrics; `report --json --by-tag` has every metric):", table,
        partition_line(cut) + " scored: the tag's items with a value of the metric; the "
        "intervals are over those items, as in the table above.", *refused,
    )


def by_tag_json(cut: TagBreakdown) -> dict[str, Any]:
    return {
        "items": cut.items,
        "untagged": cut.untagged,
        "n_total": cut.tagged_total,
        "overlapping_pairs": cut.overlapping,
        "tags": [
            {"tag": row.tag, "n_items": row.n_items,
             "metrics": {m.name: metric_json(m) for m in row.metrics}}
            for row in cut.rows
        ],
    }


def _tags(tags: Sequence[str]) -> str:
    shown = ", ".join(tags[:MAX_TAGS_SHOWN])
    return shown + (f", +{len(tags) - MAX_TAGS_SHOWN}" if len(tags) > MAX_TAGS_SHOWN else "")


def items_text(table_of: ItemTable, *, db_hint: str = "") -> str:
    k = table_of.run.repeats
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("item", "tags", *(f"rep {r}" for r in range(1, k + 1)), "mean", "failed"):
        table.add_column(column, overflow="fold")
    judged = table_of.kind != "measure"
    for line in table_of.lines:
        table.add_row(
            line.item_id, _tags(line.tags), *(fmt(v) for v in line.values), fmt(line.mean),
            f"{line.failures} of {k}" if judged else "",
        )
    which = "that failed at least one repetition" if table_of.failed_only else "of the run"
    lines = [
        "",
        f"{table_of.metric} ({table_of.kind}): {table_of.definition}",
        f"{len(table_of.lines)} items {which}"
        + ("" if table_of.lines else "; nothing to list"),
    ]
    if table_of.lines:
        first = table_of.lines[0].item_id
        lines.append(f"-> one turn by turn: agent-assay trajectories show {table_of.run.run_id} "
                     f"{first}{db_hint}")
    return console_text("\n".join(lines), *([table] if table_of.lines else []))


def items_json(table_of: ItemTable) -> dict[str, Any]:
    return {
        "metric": table_of.metric,
        "kind": table_of.kind,
        "definition": table_of.definition,
        "failed_only": table_of.failed_only,
        "items": [
            {"item_id": line.item_id, "tags": list(line.tags), "values": list(line.values),
             "mean": line.mean,
             "failed_repetitions": line.failures
             if table_of.kind != "measure" else None}
            for line in table_of.lines
        ],
    }


def _csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(["" if v is None else v for v in row] for row in rows)
    return buffer.getvalue()


def _ci(ci: tuple[float, float] | None) -> list[float | None]:
    return [None, None] if ci is None else [ci[0], ci[1]]


METRIC_COLUMNS = ("metric", "kind", "headline", "n_items", "mean_of_k", "mean_ci_low",
                  "mean_ci_high", "mean_ci_refused", "n_pass_k", "pass_hat_k", "pass_hat_k_ci_low",
                  "pass_hat_k_ci_high", "pass_at_k", "pass_at_k_ci_low", "pass_at_k_ci_high",
                  "n_left_out")


def _metric_cells(m: MetricSummary) -> list[Any]:
    return [m.name, m.kind, int(m.headline), m.n_items, m.mean_of_k, *_ci(m.mean_ci),
            m.mean_refused, m.n_pass_k, m.pass_hat_k, *_ci(m.pass_hat_k_ci), m.pass_at_k,
            *_ci(m.pass_at_k_ci), m.n_left_out]


def metrics_csv(metrics: Sequence[MetricSummary], run_id: str, verdict: str) -> str:
    return _csv(("run_id", "verdict", *METRIC_COLUMNS),
                [[run_id, verdict, *_metric_cells(m)] for m in metrics])


def by_tag_csv(cut: TagBreakdown, verdict: str) -> str:
    return _csv(
        ("run_id", "verdict", "tag", "tag_items", *METRIC_COLUMNS),
        [[cut.run.run_id, verdict, row.tag, row.n_items, *_metric_cells(m)]
         for row in cut.rows for m in row.metrics],
    )


def items_csv(table_of: ItemTable, verdict: str) -> str:
    k = table_of.run.repeats
    return _csv(
        ("run_id", "verdict", "metric", "item_id", "tags",
         *(f"rep_{r}" for r in range(1, k + 1)), "mean", "failed_repetitions"),
        [[table_of.run.run_id, verdict, table_of.metric, line.item_id, ";".join(line.tags),
          *line.values, line.mean,
          line.failures if table_of.kind != "measure" else None]
         for line in table_of.lines],
    )
