"""The regression gate in words and as data: what `compare --fail-on-regression` adds after
the comparison, one line per gated metric and one line for the gate, naming the test."""

from __future__ import annotations

from typing import Any

from agent_assay.integrity.regression import GatedMetric, RegressionGate
from agent_assay.views.render import fmt_ci, fmt_signed, interval_json

STATUS_WORDS = {"regressed": "REGRESSED", "improved": "improved", "held": "held",
                "untested": "UNTESTED"}


def level(alpha: float) -> str:
    return f"{(1 - alpha) * 100:g}%"


def gated_line(g: GatedMetric, alpha: float) -> str:
    """One gated metric: its status, B - A, the interval at 1 - alpha, p and the test."""
    m = g.paired
    head = (f"{STATUS_WORDS[g.status]:<9} {m.metric} ({m.kind}, {g.better} is better): "
            f"B-A {fmt_signed(m.difference)}")
    if m.p_value is None:
        why = "cannot be tested: " if g.status == "untested" else ""
        return f"{head}  {why}{m.test} (n={m.n_items})"
    ci = fmt_ci(g.ci) or f"no {level(alpha)} interval ({m.no_ci or 'none'})"
    return f"{head}  {level(alpha)} {ci}  p={m.p_value:.4g} ({m.test}, n={m.n_items})"


def gate_lines(gate: RegressionGate) -> list[str]:
    """What the gate decided, after whatever the comparison printed."""
    if gate.refused is not None:
        return [f"regression gate {gate.word}: {gate.refused}; a refused comparison is never "
                "a pass"]
    lines = [f"regression gate, A is the baseline: a metric regresses when B is worse and its "
             f"{level(gate.alpha)} interval leaves out 0 (two-sided p < {gate.alpha:g})"]
    lines += [f"  {gated_line(g, gate.alpha)}" for g in gate.metrics]
    gated = len(gate.metrics)
    if gate.regressed:
        named = ", ".join(g.paired.metric for g in gate.regressed)
        lines.append(f"regression gate REGRESSED: B is worse than the baseline on {named} "
                     f"({len(gate.regressed)} of {gated} gated metrics)")
    elif gate.untested:
        named = ", ".join(g.paired.metric for g in gate.untested)
        lines.append(f"regression gate REFUSED: {named} differ(s) but could not be tested, so "
                     "no regression can be ruled out")
    else:
        lines.append(f"regression gate PASSED: none of the {gated} gated metrics is worse "
                     "than the baseline")
    return lines


def gate_json(gate: RegressionGate) -> dict[str, Any]:
    """The `gate` key of `compare --json --fail-on-regression`."""
    return {
        "status": gate.word,
        "exit_code": int(gate.exit_code),
        "alpha": gate.alpha,
        "refused": gate.refused,
        "metrics": [
            {
                "metric": g.paired.metric,
                "kind": g.paired.kind,
                "better": g.better,
                "status": g.status,
                "difference": g.paired.difference,
                "ci": interval_json(g.ci),
                "p_value": g.paired.p_value,
                "test": g.paired.test,
                "n_items": g.paired.n_items,
            }
            for g in gate.metrics
        ],
        "regressed": [g.paired.metric for g in gate.regressed],
    }
