"""The committed reports give one number one interval, wherever it is printed.

A report prints a metric's pass^K and pass@K twice (the summary table, and the pass^k
table's row for k = K) and, for a 0/1 metric, its mean of k twice (the summary, and
pass^1, which is the same estimate). Each pair must agree to the last digit, value and
interval. This reads the artifacts as committed, the SmolLM2 runs included, so a view
that computes its own interval shows up here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPORTS = Path(__file__).resolve().parents[2] / "reports"
WITH_CURVES = ["llm/report_t07.txt", "llm/report_t0.txt", "tau_bench/report.txt"]
KINDS = ("binary", "fraction", "count", "measure")
TOKEN = re.compile(r"\[[^\]]*\]|\S+")

Cell = tuple[str, str]  # (value, interval) as printed


def summary_rows(text: str) -> dict[str, tuple[str, Cell, Cell, Cell]]:
    """metric -> (kind, mean of k, pass^K, pass@K) from the summary table."""
    rows = {}
    for line in text.splitlines():
        tokens = TOKEN.findall(line)
        kind_at = next((i for i, t in enumerate(tokens) if t in KINDS), None)
        if kind_at is None or len(tokens) < kind_at + 9:
            continue
        _, mean, mean_ci, _, hat, hat_ci, at, at_ci = tokens[kind_at + 1: kind_at + 9]
        rows[tokens[0]] = (tokens[kind_at], (mean, mean_ci), (hat, hat_ci), (at, at_ci))
    return rows


def curve_rows(text: str) -> dict[str, dict[int, tuple[Cell, Cell]]]:
    """metric -> k -> (pass^k, pass@k) from the pass^k table."""
    table = text.split("pass^k and pass@k, k = 1..", 1)[1].split("\n\n", 1)[0]
    rows: dict[str, dict[int, tuple[Cell, Cell]]] = {}
    metric = ""
    for line in table.splitlines()[3:]:
        tokens = TOKEN.findall(line)
        if not line.startswith(" "):
            metric = tokens[0]
            tokens = [t for t in tokens[1:] if t != "(imported)"]
        k, _, hat, hat_ci, at, at_ci = tokens
        rows.setdefault(metric, {})[int(k)] = ((hat, hat_ci), (at, at_ci))
    return rows


@pytest.mark.parametrize("name", WITH_CURVES)
def test_the_summary_and_the_pass_k_table_print_the_same_intervals(name: str) -> None:
    text = (REPORTS / name).read_text()
    summary, curves = summary_rows(text), curve_rows(text)
    k = max(next(iter(curves.values())))
    compared = 0
    for metric, by_k in curves.items():
        kind, mean, hat, at = summary[metric]
        assert by_k[k] == (hat, at), f"{name}: {metric} pass^{k}/pass@{k} differ"
        compared += 1
        if kind == "binary":
            assert by_k[1][0] == mean, f"{name}: {metric} mean of k {mean} but pass^1 {by_k[1][0]}"
            compared += 1
    assert compared >= len(curves) + 1  # at least one 0/1 metric was checked both ways
