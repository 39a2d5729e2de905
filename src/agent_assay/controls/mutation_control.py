"""mutation: every defect class an operator plants must be seen by some metric.

Runs a mutation pass with every operator at its default parameters over the
certified run, stores it like `agent-assay mutate` does, and requires the
gate mutation score (statistical detector) to reach the band. A surviving
mutant names a defect that no metric in this scorer set can see. The orders each metric
ignored in the swap mutants are reported beside the verdict, not judged: a check that
ignores order is the benchmark's choice to show, not a failure of the evaluation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.mutation.config import DEFAULT
from agent_assay.mutation.engine import pass_payloads, run_pass
from agent_assay.mutation.orders import merged


class MutationControl:
    kind = "mutation"
    version = "1"
    requires: Requirement | None = "replay"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        mutants = replace(DEFAULT, alpha=float(band["alpha"]))
        result = run_pass(ctx.store, ctx.adapter, ctx.run, mutants, stored=ctx.trajectories,
                          environment=ctx.environment())
        ctx.store.put_mutation_rows(ctx.run.run_id, pass_payloads(result))
        statuses = {r.operator: r.status for r in result.results}
        altered = {r.operator: r.altered for r in result.results}
        score = result.score
        survived = sorted(op for op, s in statuses.items() if s == "SURVIVED")
        summary = (
            f"gate_mutation_score {score!r}: {result.count('KILLED')} killed, "
            f"{len(survived)} survived, {result.count('EQUIVALENT')} equivalent; altered "
            + ", ".join(f"{op} {n}" for op, n in altered.items())
        )
        if survived:
            summary += f"; survived: {', '.join(survived)}"
        ignored = merged(r.orders for r in result.results)
        if ignored:
            summary += (
                f"; tool orders ignored, pairs per metric (mutation score {ctx.run.run_id} "
                "lists them): " + ", ".join(f"{m} {len(pairs)}" for m, pairs in ignored.items())
            )
        passed = score is not None and score >= float(band["min_score"])
        measured = {
            "pass_id": result.pass_id,
            "score": score,
            "operators": statuses,
            "altered": altered,
            "orders_ignored": ignored,
        }
        return outcome(self, passed, summary, measured, band)
