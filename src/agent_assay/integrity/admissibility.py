"""Admissible iff zero invariant violations and every control PASSED (or allowed NOT_RUN).

Decided from the store alone: the run's status, its manifest, and the newest
stored outcome of every registered control. The reasons are listed, in the
order a reader should fix them.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_assay.controls.registry import control_kinds
from agent_assay.model import Run
from agent_assay.report.summary import manifest_of, run_status
from agent_assay.store.store import Store, StoredOutcome


@dataclass(frozen=True)
class Admissibility:
    admissible: bool
    reasons: tuple[str, ...]
    outcomes: dict[str, StoredOutcome]


def assess(store: Store, run: Run) -> Admissibility:
    reasons: list[str] = []
    status = run_status(store, run, store.trajectories(run.run_id))
    if status.state != "complete":
        reasons.append(f"run is {status.state}: {'; '.join(status.reasons)}")
    elif status.crashed:
        reasons.append(f"{status.crashed} crashed trajectories")
    outcomes = store.control_outcomes(run.run_id)
    versions = {s["name"]: s["version"] for s in manifest_of(store, run).get("scorers", [])}
    failed = [k for k, o in outcomes.items() if o.status in ("FAILED", "ERROR")]
    if failed:
        reasons.append(f"failed control(s): {', '.join(failed)}")
    not_run = [
        k
        for k, o in outcomes.items()
        if o.status == "NOT_RUN" and not o.payload.get("allowed_not_run")
    ]
    if not_run:
        reasons.append(f"control(s) NOT_RUN without allowance: {', '.join(not_run)}")
    missing = [k for k in control_kinds() if k not in outcomes]
    if missing:
        reasons.append(f"control(s) never run for this run: {', '.join(missing)}")
    for kind, o in outcomes.items():
        if o.suite_hash != run.suite_hash or o.config_hash != run.config_hash:
            reasons.append(f"{kind} was judged on a different suite or config")
        if o.payload.get("scorer_versions", {}) != versions:
            reasons.append(f"{kind} was judged with different scorer versions than the run's")
    return Admissibility(not reasons, tuple(reasons), outcomes)


def single_pass_refusal(store: Store, run: Run) -> tuple[str, ...]:
    """Why a k=1 headline is refused: empty when the config is deterministic AND certified."""
    if run.repeats > 1:
        return ()
    reasons = []
    if not manifest_of(store, run).get("deterministic", False):
        reasons.append("the adapter does not declare this config deterministic")
    certified = any(
        o.status == "PASSED"
        for o in store.control_outcomes_for_config(run.config_hash, "identical_config")
    )
    if not certified:
        reasons.append("identical_config has not PASSED for this config")
    return tuple(reasons)
