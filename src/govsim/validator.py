"""Final validation and the reward.

Promise: ``validate`` reports every defect of a snapshot with typed codes; ``reward`` is 0
unless a verified execution exists and the graph is fully satisfied, and otherwise
min(1, oracle cost / max(1, authorisation attempts)). Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from govsim.defects import Code, Defect, merge
from govsim.evaluate import Episode, Evaluator
from govsim.oracle import minimum_cost
from govsim.state import EpisodeState, MalformedSnapshot, parse_snapshot, receipt
from govsim.task import Task


@dataclass(frozen=True)
class Report:
    valid: bool
    executed: bool
    defects: tuple[Defect, ...]
    attempts: int
    oracle_cost: int
    reward: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "executed": self.executed,
            "defects": [d.as_dict() for d in self.defects],
            "attempts": self.attempts,
            "oracle_cost": self.oracle_cost,
            "reward": self.reward,
        }


def judge(
    task: Task, state: EpisodeState, signatory_id: str | None
) -> tuple[bool, tuple[Defect, ...]]:
    """Action identity plus the whole requirement graph; shared with preflight."""
    action = state.action
    if action is None:
        return False, (Defect(Code.ACTION_MISSING, task.action_id, "no action was created"),)
    found: list[Defect] = []
    if action.action_id != task.action_id or action.family != task.family:
        found.append(Defect(Code.ACTION_MISMATCH, action.action_id, "not the requested action"))
    episode = Episode(
        task.family, task.request.day, action.payload, tuple(state.attempts), signatory_id
    )
    outcome = Evaluator(task.world, task.graph, episode).outcome()
    return outcome.ok and not found, merge(found, outcome.defects)


def _execution_defects(task: Task, state: EpisodeState) -> tuple[Defect, ...]:
    ex = state.execution
    if ex is None:
        return (Defect(Code.EXECUTION_MISSING, task.action_id, "the action was never executed"),)
    if state.action is None or ex.action_id != state.action.action_id:
        return (Defect(Code.ACTION_MISMATCH, ex.action_id, "executed a different action"),)
    if ex.receipt != receipt(task.secret, state.action, state.attempts, ex.signatory_id):
        return (Defect(Code.EXECUTION_UNVERIFIED, ex.action_id, "receipt does not verify"),)
    return ()


def validate(task: Task, snapshot: Mapping[str, Any]) -> Report:
    cost = minimum_cost(task)
    try:
        state = parse_snapshot(snapshot)
    except MalformedSnapshot as exc:
        bad = Defect(Code.MALFORMED_STATE, task.task_id, str(exc))
        return Report(False, False, (bad,), 0, cost, 0.0)
    if snapshot.get("task_id") != task.task_id:
        bad = Defect(Code.MALFORMED_STATE, task.task_id, "snapshot belongs to another task")
        return Report(False, False, (bad,), len(state.attempts), cost, 0.0)
    pre = _execution_defects(task, state)
    signatory = state.execution.signatory_id if state.execution else None
    ok, defects = judge(task, state, signatory)
    valid = ok and not pre
    attempts = len(state.attempts)
    score = min(1.0, cost / max(1, attempts)) if valid else 0.0
    return Report(valid, state.execution is not None, merge(pre, defects), attempts, cost, score)


def reward(task: Task, snapshot: Mapping[str, Any]) -> float:
    return validate(task, snapshot).reward
