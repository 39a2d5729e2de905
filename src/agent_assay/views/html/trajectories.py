"""Every trajectory of a run as `trajectories show` sees it, built in one pass for the page.

`views.load.trajectory_view()` reads the store for one item; a page holding ten thousand
trajectories cannot ask ten thousand times. `views_of` takes the run's trajectories, its
current score rows, its suite and its manifest from the run's snapshot and hands each
trajectory to the same builder `trajectory_view()` uses (`build_view`), so turns,
assertions and score lines have one implementation. `cards` then turns each view into
the short strings the template prints: markup stays lean, and the template only escapes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_assay.model import Run, ToolCall
from agent_assay.stats.crashes import WHAT_IT_COUNTS_AS
from agent_assay.views.render import fmt
from agent_assay.views.run_data import RunData
from agent_assay.views.trajectory_view import (
    ABSENT,
    TrajectoryView,
    build_view,
    path_line,
    scorer_definitions,
)

if TYPE_CHECKING:
    from agent_assay.store import ScoreRecord

CELL_LIMIT = 400
"""Characters of one argument list, result or state value shown; longer ones are cut
(`agent-assay trajectories show ... --json` has them whole)."""


def views_of(data: RunData) -> dict[tuple[str, int], TrajectoryView]:
    """(item, repetition) -> its view, for every stored trajectory of the run (the snapshot
    loaded with its suite, trajectories and score rows)."""
    run = data.run
    by_id = data.suite.by_id()
    definitions = scorer_definitions(data.manifest)
    rows: dict[tuple[str, int], list[ScoreRecord]] = defaultdict(list)
    for row in data.scores:
        rows[(row.item_id, row.repetition)].append(row)
    views: dict[tuple[str, int], TrajectoryView] = {}
    for trajectory in data.trajectories:
        slot = (trajectory.item_id, trajectory.repetition)
        item = by_id.get(trajectory.item_id)
        if item is None or slot in views:  # the first stored, as trajectory_view() takes
            continue
        views[slot] = build_view(run, item, trajectory, rows.get(slot, ()), definitions)
    return views


@dataclass(frozen=True, slots=True)
class TurnRow:
    number: int
    proposed: str
    ok: str
    result: str
    gold: str
    """The gold call, or SAME when the proposal is exactly gold's."""
    mark: str
    """"first divergence", "differs" or empty."""


@dataclass(frozen=True, slots=True)
class CheckRow:
    path: str
    gold: str
    final: str
    holds: bool


@dataclass(frozen=True, slots=True)
class Card:
    """One (item, repetition) slot as the page shows it; `stored` False: nothing stored."""

    anchor: str
    item_id: str
    repetition: int
    before: str
    """The previous repetition's anchor ("" for the first)."""
    after: str
    """The next repetition's anchor ("" for the last)."""
    stored: bool
    input: str = ""
    crashed: bool = False
    error: str = ""
    crash_means: str = ""
    """What the crash counts as, by its cause (empty when it did not crash)."""
    path: str = ""
    turns: tuple[TurnRow, ...] = ()
    outcome: str = ""
    outcome_holds: bool = True
    state: str = ""
    checks: tuple[CheckRow, ...] = ()
    scores: str = ""
    """Every score of the trajectory, one `scorer<TAB>value` line each (plain text)."""


SAME = "same"
_encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str).encode


def anchor(position: int, repetition: int) -> str:
    """The element id of an item's repetition: from the item's place in the run, so it is
    a valid, unique id whatever characters the item id holds."""
    return f"t{position}-{repetition}"


def compact(value: Any, limit: int = CELL_LIMIT) -> str:
    text = _encode(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_text(call: ToolCall | None) -> str:
    return "-" if call is None else f"{call.tool}({compact(dict(call.args))})"


def card(view: TrajectoryView, slot_anchor: str, before: str, after: str,
         gold_text: dict[tuple[str, int], str] | None = None) -> Card:
    """The strings the page prints for one view. `gold_text` caches what comes from the
    item (its input, gold calls and asserted values) across its repetitions, keyed by the
    object they share; it must not outlive the views it was filled from."""
    t, item, first = view.trajectory, view.item, view.first_divergence
    cache = {} if gold_text is None else gold_text

    def once(kind: str, value: Any, text: Callable[[Any], str]) -> str:
        key = (kind, id(value))
        if key not in cache:
            cache[key] = text(value)
        return cache[key]

    turns = []
    for turn in view.turns:
        matches = turn.matches
        gold = SAME if matches else once("call", turn.gold, call_text)
        turns.append(TurnRow(
            number=turn.number,
            proposed=call_text(turn.proposed),
            ok="-" if turn.ok is None else ("yes" if turn.ok else "no"),
            result=turn.error or compact(turn.result),
            gold=gold,
            mark="first divergence" if turn.number == first else ("" if matches else "differs"),
        ))
    checks = tuple(
        CheckRow(c.path, once("value", c.expected, compact),
                 compact(c.actual) if c.present else ABSENT, c.holds)
        for c in view.assertions
    )
    held = sum(c.holds for c in view.assertions)
    return Card(
        anchor=slot_anchor,
        item_id=item.item_id,
        repetition=t.repetition,
        before=before,
        after=after,
        stored=True,
        input=once("input", item.input, lambda data: compact(dict(data))),
        crashed=t.crashed,
        error=t.error or "",
        crash_means=WHAT_IT_COUNTS_AS[t.crash_cause] if t.crash_cause else "",
        path=path_line(view),
        turns=tuple(turns),
        outcome=f"outcome: {t.outcome!r} (gold {item.gold.outcome!r})",
        outcome_holds=t.outcome == item.gold.outcome,
        state=f"state: {held} of {len(view.assertions)} gold assertions hold",
        checks=checks,
        scores="\n".join(f"{s.scorer}\t{fmt(s.value)}" for s in view.scores),
    )


def cards(
    run: Run, views: Mapping[tuple[str, int], TrajectoryView]
) -> dict[str, tuple[Card, ...]]:
    """item -> a card per repetition (1 first), in the run's item order; a slot with no
    stored trajectory gets a card that says so, so every link has its target."""
    out: dict[str, tuple[Card, ...]] = {}
    reps = range(1, run.repeats + 1)
    for position, item_id in enumerate(run.item_ids, 1):
        anchors = ["", *(anchor(position, r) for r in reps), ""]
        gold_text: dict[tuple[str, int], str] = {}
        made: list[Card] = []
        for r in reps:
            view = views.get((item_id, r))
            here, before, after = anchors[r], anchors[r - 1], anchors[r + 1]
            made.append(
                Card(here, item_id, r, before, after, stored=False) if view is None
                else card(view, here, before, after, gold_text)
            )
        out[item_id] = tuple(made)
    return out


def definitions(views: Sequence[TrajectoryView], manifest: Mapping[str, Any]) -> list[
        tuple[str, str]]:
    """(scorer, definition) for every scorer a trajectory on the page shows, manifest order
    first: printed once beside whichever trajectory is open, not once per trajectory."""
    stated = scorer_definitions(manifest)
    shown = {s.scorer: s.definition for v in views for s in v.scores}
    order = [n for n in stated if n in shown] + sorted(n for n in shown if n not in stated)
    return [(name, shown[name] or "(no definition stored)") for name in order]
