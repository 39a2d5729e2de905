"""identical_config: two separate executions of one config must store the same values.

Both executions are real runs, stored like any other (their environment names
the run they certify). Every stored value is compared — each trajectory's
fields and each score — except the fields the adapter declares
nondeterministic (wall-clock latency). The report lists how many values were
compared, the largest numeric difference, and every path that differed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.runner import execute_run, start_run
from agent_assay.statepaths import flatten

MAX_LISTED = 20


def stored_values(ctx: ControlContext, run_id: str, skip: set[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for t in ctx.store.trajectories(run_id):
        for path, value in flatten(t.to_json()).items():
            if path.split(".")[0] not in skip:
                values[f"{t.item_id}/{t.repetition}/trajectory.{path}"] = value
    for row in ctx.store.current_scores(run_id):
        if row.scorer not in skip:
            values[f"{row.item_id}/{row.repetition}/score.{row.scorer}"] = row.value
    return values


class IdenticalConfig:
    kind = "identical_config"
    version = "1"
    requires: Requirement | None = None

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        run_ids = []
        for execution in (1, 2):
            twin = start_run(
                ctx.store,
                ctx.adapter,
                ctx.suite,
                ctx.config,
                repeats=1,
                seed=ctx.run.seed,
                items=ctx.items,
                extra_env={
                    "control": self.kind,
                    "certifies": ctx.run.run_id,
                    "execution": execution,
                },
            )
            execute_run(ctx.store, ctx.adapter, twin, progress=False)
            run_ids.append(twin.run_id)
        skip = set(ctx.adapter.facts.nondeterministic_fields)
        first, second = (stored_values(ctx, r, skip) for r in run_ids)
        differing = sorted(p for p in first.keys() | second.keys() if first.get(p) != second.get(p))
        deltas = [
            abs(first[p] - second[p])
            for p in differing
            if isinstance(first.get(p), int | float) and isinstance(second.get(p), int | float)
        ]
        max_delta = max(deltas, default=0.0)
        measured = {
            "runs": run_ids,
            "values_compared": len(first.keys() | second.keys()),
            "max_abs_delta": max_delta,
            "differing_paths": len(differing),
            "differing_sample": differing[:MAX_LISTED],
            "excluded_fields": sorted(skip),
        }
        summary = (
            f"two separate executions: {measured['values_compared']} values compared, "
            f"max_abs_delta {max_delta!r}, {len(differing)} differing paths"
        )
        allowed = int(band["max_differing_paths"])
        return outcome(self, len(differing) <= allowed, summary, measured, band)
