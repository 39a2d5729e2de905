"""Re-score a stored run without re-running its agent.

Scorers are pure, so re-scoring an unchanged run must reproduce every stored
row; only rows that differ (a new scorer version, a changed value) are
appended, which is what lets a scorer upgrade be audited rather than silent.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_assay.adapters.protocol import AgentAdapter
from agent_assay.runner import score_records, scorers_for, scoring_context
from agent_assay.store.store import ScoreRecord, Store


@dataclass(frozen=True)
class RescoreResult:
    appended: int
    unchanged: int


def rescore(store: Store, adapter: AgentAdapter, run_id: str) -> RescoreResult:
    run = store.get_run(run_id)
    items = store.get_suite(run.suite_hash).by_id()
    scorers = scorers_for(adapter)
    ctx = scoring_context(adapter)
    latest = {r.key(): r for r in store.latest_scores(run_id)}
    fresh: list[ScoreRecord] = []
    unchanged = 0
    for trajectory in store.trajectories(run_id):
        for record in score_records(scorers, items[trajectory.item_id], trajectory, ctx):
            previous = latest.get(record.key())
            if previous is not None and previous.same_result(record):
                unchanged += 1
            else:
                fresh.append(record)
    store.append_scores(run_id, fresh)
    return RescoreResult(appended=len(fresh), unchanged=unchanged)
