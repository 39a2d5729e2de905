"""Re-score a stored run without re-running its agent.

Scorers are pure, so re-scoring an unchanged run must reproduce every stored
row, and then nothing is written. When anything differs (a new scorer
version, a changed value or detail, a scorer added or removed) the run gets a
new scoring generation holding a full set of rows, recorded with the scorer
set that produced it; readers take that generation from then on, and the
earlier ones stay in the store, so a scorer upgrade is audited, never silent.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.run_context import run_context
from agent_assay.runner import scorer_manifest
from agent_assay.store import ScoreRecord, Store
from agent_assay.store.evidence import require_intact


@dataclass(frozen=True)
class RescoreResult:
    generation: int
    """The run's current generation after re-scoring (unchanged when nothing differed)."""
    written: int
    changed: int
    unchanged: int


def fresh_scores(store: Store, system: LoadedSystem | object, run_id: str) -> list[ScoreRecord]:
    """Every stored trajectory of `run_id` scored again by the adapter's scorers now."""
    context = run_context(store, system, store.get_run(run_id))
    return [record for t in store.trajectories(run_id) for record in context.score(t)]


def rescore(store: Store, system: LoadedSystem | object, run_id: str) -> RescoreResult:
    adapter = load_system(system)
    require_intact(store, run_id, "re-scored")
    current = {r.slot_key(): r for r in store.current_scores(run_id)}
    fresh = fresh_scores(store, adapter, run_id)
    unchanged = sum(
        1 for r in fresh if r.slot_key() in current and current[r.slot_key()].same_result(r)
    )
    changed = len(fresh) - unchanged
    removed = len(current.keys() - {r.slot_key() for r in fresh})
    if not changed and not removed:
        return RescoreResult(store.current_generation(run_id), 0, 0, unchanged)
    generation = store.append_generation(
        run_id,
        f"re-scored: {changed} rows changed, {removed} removed",
        scorer_manifest(adapter.scorers()),
        fresh,
    )
    return RescoreResult(generation, len(fresh), changed + removed, unchanged)
