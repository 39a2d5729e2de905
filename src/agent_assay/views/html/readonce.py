"""A view of a store that reads each of one run's tables once, however often it is asked.

The page is built from several views (the summary, the pass^k curves, the per-tag cut,
the per-item table, every trajectory), and each of them reads the run's trajectories or
score rows by itself. Passed to all of them, this wrapper answers the second and later
asks from memory, so a run of ten thousand trajectories is read and decoded once, and
every view computes its numbers with its own, unchanged code.
"""

from __future__ import annotations

from typing import Any

from agent_assay.model import Run, Suite, Trajectory
from agent_assay.store import ScoreRecord, Store, StoredOutcome
from agent_assay.store.encoding import ScoreColumns


class ReadOnce(Store):
    """`store`'s engine, with the run-wide reads cached (never closed: the caller owns it)."""

    def __init__(self, store: Store) -> None:
        super().__init__(store.engine)
        self._trajectories: dict[str, list[Trajectory]] = {}
        self._scores: dict[str, list[ScoreRecord]] = {}
        self._columns: dict[str, ScoreColumns] = {}
        self._manifests: dict[str, dict[str, Any]] = {}
        self._suites: dict[str, Suite] = {}
        self._runs: dict[str, Run] = {}
        self._outcomes: dict[str, dict[str, StoredOutcome]] = {}

    def close(self) -> None:
        """Nothing to close: the engine belongs to the store this wraps."""

    def trajectories(
        self,
        run_id: str,
        item_id: str | None = None,
        repetition: int | None = None,
        attempt: int | None = None,
    ) -> list[Trajectory]:
        if attempt is not None:  # an earlier attempt: no figure reads it, nothing to cache
            return super().trajectories(run_id, item_id, repetition, attempt)
        if run_id not in self._trajectories:
            self._trajectories[run_id] = super().trajectories(run_id)
        return [t for t in self._trajectories[run_id]
                if (item_id is None or t.item_id == item_id)
                and (repetition is None or t.repetition == repetition)]

    def current_scores(
        self, run_id: str, item_id: str | None = None, attempt: int | None = None
    ) -> list[ScoreRecord]:
        if attempt is not None:
            return super().current_scores(run_id, item_id, attempt)
        if run_id not in self._scores:
            self._scores[run_id] = super().current_scores(run_id)
        every = self._scores[run_id]
        return list(every) if item_id is None else [r for r in every if r.item_id == item_id]

    def score_columns(self, run_id: str, *, crashes: bool = True) -> ScoreColumns:
        """Read once, crashed slots included whatever `crashes` says (the page's other
        views need them)."""
        if run_id not in self._columns:
            self._columns[run_id] = super().score_columns(run_id)
        return self._columns[run_id]

    def manifest(self, run_id: str) -> dict[str, Any]:
        if run_id not in self._manifests:
            self._manifests[run_id] = super().manifest(run_id)
        return dict(self._manifests[run_id])

    def get_suite(self, suite_hash: str) -> Suite:
        if suite_hash not in self._suites:
            self._suites[suite_hash] = super().get_suite(suite_hash)
        return self._suites[suite_hash]

    def get_run(self, run_id: str) -> Run:
        if run_id not in self._runs:
            self._runs[run_id] = super().get_run(run_id)
        return self._runs[run_id]

    def control_outcomes(self, run_id: str) -> dict[str, StoredOutcome]:
        if run_id not in self._outcomes:
            self._outcomes[run_id] = super().control_outcomes(run_id)
        return dict(self._outcomes[run_id])
