"""Scorers for the governance adapter: govsim's own validator, recomputed from gold.

Each scorer is a pure function of (gold, trajectory). Gold's ``truth`` carries the
world's generation coordinates (seed, split, difficulty, index, template); the world is
regenerated from them (``generate_one`` is a pure function), checked against the stored
task id, cached, and handed with the trajectory's final state to ``govsim.validate``.
Nothing reads the adapter's run-time verdict, so a stored run can be re-scored, and
under shuffled gold a trajectory is judged against another world's rules (which
govsim refuses: the snapshot names another task, so the reward is 0).

Every scorer brings a ``plant_defect`` for the scorer self-test. The defects are the
failures govsim exists to catch, planted into the oracle's world: a redundant approval
(receipt re-signed so only the extra attempt is wrong), an action never executed, an
approval skipped (receipt re-signed so only the missing approval is wrong).
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from dataclasses import replace
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.model import Gold, Step, Trajectory
from agent_assay.scoring.base import ScoreKind, Scorer, ScoreValue, ScoringContext
from govsim import Code, Defect, Report, Task, minimum_cost, validate
from govsim.generator import generate_one
from govsim.state import parse_snapshot, receipt

REWARD = "governance.reward"
VALID = "governance.execution_valid"
HEADLINE: tuple[str, ...] = (REWARD, VALID)
RECORD = "record_authorization"
EXECUTE = "execute_action"

WorldKey = tuple[int, str, str, int, str]
"""(seed, split, difficulty, index, template_id): enough to regenerate one world."""

_WORLDS: dict[WorldKey, Task] = {}


def world_key(coordinates: Mapping[str, Any]) -> WorldKey:
    try:
        return (
            int(coordinates["seed"]),
            str(coordinates["split"]),
            str(coordinates["difficulty"]),
            int(coordinates["index"]),
            str(coordinates["template_id"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise AssayError(f"gold truth has no usable world coordinates: {exc!r}") from exc


def remember(key: WorldKey, task: Task) -> None:
    """Share a world the adapter already generated, so scoring does not regenerate it."""
    _WORLDS[key] = task


def world_of(truth: Mapping[str, Any]) -> Task:
    """The hidden task gold describes, regenerated once per process and checked by id."""
    world = truth.get("world")
    if not isinstance(world, Mapping):
        raise AssayError("gold truth carries no 'world' coordinates: not a governance item")
    key = world_key(world)
    task = _WORLDS.get(key)
    if task is None:
        seed, split, difficulty, index, template_id = key
        try:
            task = generate_one(seed, split, index, difficulty, template_id)
        except (ValueError, StopIteration, KeyError) as exc:
            raise AssayError(f"cannot regenerate world {key}: {type(exc).__name__}") from exc
        _WORLDS[key] = task
    if task.task_id != truth.get("task_id"):
        raise AssayError(
            f"world {key} regenerates as {task.task_id}, but gold names {truth.get('task_id')}: "
            "govsim's generator has changed since the suite was built"
        )
    return task


def judge(gold: Gold, trajectory: Trajectory) -> Report | None:
    """govsim's report for the trajectory's final state; None when there is no state."""
    if trajectory.final_state is None:
        return None
    task = world_of(gold.truth)
    try:
        return validate(task, trajectory.final_state)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        # validate refuses malformed snapshots itself; anything stranger is malformed too
        bad = Defect(Code.MALFORMED_STATE, task.task_id, f"{type(exc).__name__}: {exc}")
        return Report(False, False, (bad,), 0, minimum_cost(task), 0.0)


def _codes(report: Report) -> list[str]:
    return [f"{d.code.value}:{d.subject}" for d in report.defects][:10]


# ---- planted defects ---------------------------------------------------------------------


def _state(t: Trajectory) -> dict[str, Any] | None:
    if t.final_state is None or t.final_state.get("execution") is None:
        return None
    return deepcopy(dict(t.final_state))


def _resign(gold: Gold, state: dict[str, Any]) -> None:
    """Recompute the execution receipt for the state's action, approvals and signatory."""
    parsed = parse_snapshot(state)
    assert parsed.action is not None and parsed.execution is not None
    task = world_of(gold.truth)
    state["execution"]["receipt"] = receipt(
        task.secret, parsed.action, parsed.attempts, parsed.execution.signatory_id
    )


def _with_steps(t: Trajectory, state: dict[str, Any], steps: list[Step]) -> Trajectory:
    """Keep the execute step's reply in line with the (re-signed) state."""
    fixed = []
    for step in steps:
        if step.call.tool == EXECUTE and step.ok and isinstance(step.result, Mapping):
            execution = state.get("execution") or {}
            step = replace(step, result={**step.result, "receipt": execution.get("receipt")})
        fixed.append(step)
    return replace(t, final_state=state, steps=tuple(fixed))


def plant_redundant_approval(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    """Record the last approval a second time, execute validly: one attempt too many."""
    state = _state(t)
    if state is None or not state["authorizations"]:
        return None
    state["authorizations"].append(deepcopy(state["authorizations"][-1]))
    _resign(gold, state)
    steps = list(t.steps)
    last = max((i for i, s in enumerate(steps) if s.call.tool == RECORD and s.ok), default=None)
    if last is not None:
        result = {"recorded": True, "attempt_number": len(state["authorizations"])}
        steps.insert(last + 1, replace(steps[last], result=result))
    return _with_steps(t, state, steps)


def plant_not_executed(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    """Everything recorded, but the action is never executed."""
    state = _state(t)
    if state is None:
        return None
    state["execution"] = None
    state["action_status"] = "created"
    steps = [s for s in t.steps if s.call.tool != EXECUTE]
    state["turns_used"] = len(steps)
    return replace(t, final_state=state, steps=tuple(steps), outcome="not_executed")


def plant_skipped_approval(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
    """Leave out the first recorded approval; the receipt is re-signed for what remains."""
    state = _state(t)
    if state is None or not state["authorizations"]:
        return None
    state["authorizations"] = state["authorizations"][1:]
    _resign(gold, state)
    steps = list(t.steps)
    first = next((i for i, s in enumerate(steps) if s.call.tool == RECORD), None)
    if first is not None:
        del steps[first]
    return _with_steps(t, state, steps)


# ---- scorers -------------------------------------------------------------------------------


class GovernanceReward:
    name = REWARD
    version = "1"
    definition = (
        "govsim's reward: 0 unless a verified execution satisfies the whole requirement "
        "graph, else min(1, oracle cost / authorisation attempts)"
    )
    kind: ScoreKind = "fraction"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        report = judge(gold, trajectory)
        if report is None:
            return ScoreValue(0.0, {"reason": "no final state"})
        detail = {"valid": report.valid, "attempts": report.attempts, "cost": report.oracle_cost}
        return ScoreValue(report.reward, detail)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return plant_redundant_approval(gold, t, ctx)


class ExecutionValid:
    name = VALID
    version = "1"
    definition = (
        "1 if govsim's validator finds a verified execution that satisfies the whole "
        "requirement graph with a valid signatory, else 0"
    )
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        report = judge(gold, trajectory)
        if report is None:
            return ScoreValue(0.0, {"reason": "no final state"})
        codes = _codes(report)
        return ScoreValue(1.0 if report.valid else 0.0, {"defects": codes} if codes else None)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return plant_not_executed(gold, t, ctx)


class ExcessAttempts:
    name = "governance.excess_attempts"
    version = "1"
    definition = (
        "record_authorization attempts beyond the oracle's minimum, valid or not "
        "(0 is best); n/a without a final state"
    )
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        report = judge(gold, trajectory)
        if report is None:
            return ScoreValue(None, {"reason": "no final state"})
        excess = max(0, report.attempts - report.oracle_cost)
        return ScoreValue(float(excess), {"attempts": report.attempts, "cost": report.oracle_cost})

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return plant_redundant_approval(gold, t, ctx)


class DefectCount:
    name = "governance.defects"
    version = "1"
    definition = "number of typed defects govsim's validator reports for the final state (0 best)"
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        report = judge(gold, trajectory)
        if report is None:
            return ScoreValue(None, {"reason": "no final state"})
        codes = _codes(report)
        return ScoreValue(float(len(report.defects)), {"defects": codes} if codes else None)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return plant_skipped_approval(gold, t, ctx)


def governance_scorers() -> tuple[Scorer, ...]:
    return (GovernanceReward(), ExecutionValid(), ExcessAttempts(), DefectCount())
