"""One stored trajectory, turn by turn, beside its item's gold: where a number came from.

A reader who doubts a score needs the path the agent took, the path gold expected, the
first turn where they part, what the final world holds at each asserted path, and every
score with what it means. All of it is read from the store (the item's gold from the
stored suite), so the view needs no adapter and works on any store, imported runs too.
Calls are compared as stored, before any adapter normalisation a scorer may apply.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from agent_assay.model import Item, Run, ToolCall, Trajectory
from agent_assay.statepaths import found, same, value_at
from agent_assay.stats.crashes import WHAT_IT_COUNTS_AS
from agent_assay.views.render import console_text, fmt

if TYPE_CHECKING:
    from agent_assay.store import ScoreRecord

ABSENT = "(absent)"
CELL_CHARS = 60


@dataclass(frozen=True)
class Turn:
    number: int
    proposed: ToolCall | None
    ok: bool | None
    result: Any
    error: str | None
    gold: ToolCall | None

    @property
    def matches(self) -> bool:
        return self.proposed == self.gold


@dataclass(frozen=True)
class AssertionCheck:
    path: str
    expected: Any
    actual: Any
    present: bool

    @property
    def holds(self) -> bool:
        return self.present and same(self.actual, self.expected)


@dataclass(frozen=True)
class ScoreLine:
    scorer: str
    value: float | None
    definition: str
    detail: Any


@dataclass(frozen=True)
class TrajectoryView:
    run: Run
    item: Item
    trajectory: Trajectory
    turns: tuple[Turn, ...]
    assertions: tuple[AssertionCheck, ...]
    scores: tuple[ScoreLine, ...]
    attempt: int = 1
    """Which attempt at the slot this is (a crashed slot run again holds more than one)."""
    attempts: int = 1
    """How many the slot holds; the newest is the one every figure reads."""

    @property
    def first_divergence(self) -> int | None:
        """The number of the first turn whose proposal is not gold's, or None."""
        return next((t.number for t in self.turns if not t.matches), None)


def scorer_definitions(manifest: Mapping[str, Any]) -> dict[str, str]:
    """Each scorer's definition as the run's manifest states it (what its number means)."""
    return {
        str(s["name"]): str(s.get("definition", ""))
        for s in manifest.get("scorers", [])
        if isinstance(s, Mapping) and s.get("name") is not None
    }


def build_view(
    run: Run,
    item: Item,
    trajectory: Trajectory,
    scores: Iterable[ScoreRecord],
    definitions: Mapping[str, str],
) -> TrajectoryView:
    """One trajectory beside its item's gold, from rows already read: `scores` are the
    trajectory's own current score rows. The one implementation of turns, assertions and
    score lines, whether one view is asked for or a whole run's are built at once."""
    return TrajectoryView(
        run, item, trajectory, _turns(trajectory, item.gold.path),
        _assertions(trajectory, item),
        tuple(ScoreLine(r.scorer, r.value, definitions.get(r.scorer, ""), r.detail)
              for r in scores),
    )


def _turns(trajectory: Trajectory, gold: Sequence[ToolCall]) -> tuple[Turn, ...]:
    steps = trajectory.steps
    return tuple(
        Turn(
            number=i + 1,
            proposed=steps[i].call if i < len(steps) else None,
            ok=steps[i].ok if i < len(steps) else None,
            result=steps[i].result if i < len(steps) else None,
            error=steps[i].error if i < len(steps) else None,
            gold=gold[i] if i < len(gold) else None,
        )
        for i in range(max(len(steps), len(gold)))
    )


def _assertions(trajectory: Trajectory, item: Item) -> tuple[AssertionCheck, ...]:
    state: Mapping[str, Any] = trajectory.final_state or {}
    checks = []
    for assertion in item.gold.assertions:
        value = value_at(state, assertion.path)
        present = found(value)
        actual = value if present else None
        checks.append(AssertionCheck(assertion.path, assertion.equals, actual, present))
    return tuple(checks)


# ---- rendering ---------------------------------------------------------------------------
def _compact(value: Any, limit: int = CELL_CHARS) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _call(call: ToolCall | None) -> str:
    return "-" if call is None else f"{call.tool}({_compact(dict(call.args), 200)})"


def _table(*columns: str) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def path_line(view: TrajectoryView) -> str:
    """Whether the proposals follow gold, and where they first part (text and HTML)."""
    first, gold = view.first_divergence, len(view.item.gold.path)
    if first is None:
        return f"path: identical to gold ({gold} calls)"
    return (f"path: {len(view.trajectory.steps)} proposals against {gold} gold calls; "
            f"first divergence at turn {first}")


def attempt_line(view: TrajectoryView) -> list[str]:
    """For a slot run again (`run --resume --retry`): which attempt this is, and which one
    the figures read."""
    if view.attempts == 1:
        return []
    if view.attempt == view.attempts:
        return [f"attempt {view.attempt} of {view.attempts}: the one every figure reads "
                f"(the crashed ones before it: --attempt 1 to {view.attempts - 1})"]
    return [f"!!! attempt {view.attempt} of {view.attempts}: run again later, so no figure "
            f"reads it (the newest is attempt {view.attempts})"]


def trajectory_text(view: TrajectoryView) -> str:
    t, item, first = view.trajectory, view.item, view.first_divergence
    head = [
        f"run {view.run.run_id}  item {item.item_id}  repetition {t.repetition} of "
        f"{view.run.repeats}  ({view.run.adapter}/{view.run.config_name})",
        *attempt_line(view),
        f"input: {_compact(dict(item.input), 200)}",
        *([f"!!! crashed: {t.error}", f"    {WHAT_IT_COUNTS_AS[t.crash_cause]}"]
          if t.crash_cause else []),
        path_line(view),
    ]
    turns = _table("turn", "proposed", "ok", "result", "gold", "")
    for turn in view.turns:
        ok = "-" if turn.ok is None else ("yes" if turn.ok else "no")
        mark = "<- first divergence" if turn.number == first else ("" if turn.matches else "x")
        turns.add_row(str(turn.number), _call(turn.proposed), ok,
                      turn.error or _compact(turn.result), _call(turn.gold), mark)
    state = _table("asserted path", "gold", "final state", "")
    for check in view.assertions:
        actual = _compact(check.actual) if check.present else ABSENT
        state.add_row(check.path, _compact(check.expected), actual, "" if check.holds else "x")
    scores = _table("scorer", "value", "definition")
    for score in view.scores:
        scores.add_row(score.scorer, fmt(score.value), score.definition)
    outcome_mark = "" if t.outcome == item.gold.outcome else "  x"
    held = sum(c.holds for c in view.assertions)
    return "\n".join([
        "\n".join(head) + "\n" + (console_text(turns) if view.turns else ""),
        f"outcome: {t.outcome!r} (gold {item.gold.outcome!r}){outcome_mark}\n"
        f"state: {held} of {len(view.assertions)} gold assertions hold\n"
        + (console_text(state) if view.assertions else ""),
        *collateral_lines(view),
        console_text(scores),
    ])


def collateral_lines(view: TrajectoryView) -> list[str]:
    """Which changes `state.collateral` counted, so a reader can tell damage from a field
    the gold forgot: each stray path with its final value, each created record gold says
    nothing about. Empty when the run has no collateral score or it counted nothing."""
    line = next((s for s in view.scores if s.scorer == "state.collateral"), None)
    if line is None or not line.value or not isinstance(line.detail, Mapping):
        return []
    final = view.trajectory.final_state or {}
    paths, created = line.detail.get("paths", []), line.detail.get("created", [])
    table = _table("stray change", "final state")
    for path in paths:
        value = value_at(final, str(path))
        table.add_row(str(path), _compact(value) if found(value) else ABSENT)
    for record in created:
        table.add_row(str(record), "(created; gold asserts nothing on it)")
    hidden = int(line.value) - len(paths) - len(created)
    more = [f"... and {hidden} more (the score's detail keeps the first of each kind)"]
    return [f"state.collateral counted {int(line.value)} change(s) gold does not cover:\n"
            + console_text(table), *(more if hidden > 0 else [])]


def trajectory_json(view: TrajectoryView) -> dict[str, Any]:
    return {
        "schema": "agent-assay/trajectories-show/1",
        "run_id": view.run.run_id,
        "item_id": view.item.item_id,
        "repetition": view.trajectory.repetition,
        "repetitions": view.run.repeats,
        "attempt": view.attempt,
        "attempts": view.attempts,
        "crashed": view.trajectory.crashed,
        "crash_cause": view.trajectory.crash_cause,
        "error": view.trajectory.error,
        "first_divergence": view.first_divergence,
        "turns": [
            {
                "turn": t.number,
                "proposed": None if t.proposed is None else t.proposed.to_json(),
                "ok": t.ok,
                "result": t.result,
                "error": t.error,
                "gold": None if t.gold is None else t.gold.to_json(),
                "matches_gold": t.matches,
            }
            for t in view.turns
        ],
        "outcome": {"got": view.trajectory.outcome, "gold": view.item.gold.outcome},
        "assertions": [
            {"path": c.path, "gold": c.expected, "present": c.present, "final": c.actual,
             "holds": c.holds}
            for c in view.assertions
        ],
        "scores": [
            {"scorer": s.scorer, "value": s.value, "definition": s.definition,
             "detail": s.detail}
            for s in view.scores
        ],
    }
