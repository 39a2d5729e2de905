"""`bfcl.valid`: BFCL's own multi-turn checker on a trajectory, as a system scorer.

The trajectory is split at its turn boundaries; each turn's executed calls (see
`decodable`) are written as the call strings BFCL's decoders produce, one step per call,
and handed with the item's ground truth and entry to `multi_turn_checker` under a model
name of its own (released afterwards, see `execution`). Before the checker, BFCL's runner
refuses a result whose number of turns is not the ground truth's ("force_terminated");
that one comparison is made here too, since the checker itself would index past the end.
The checker's error type and message are kept in the score's detail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_assay.model import USER_TURN, Gold, Step, Trajectory, is_turn_boundary, turns_of
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay_bundled.bfcl.entries import Entry, call_text, entries, safe_to_write
from agent_assay_bundled.bfcl.execution import fresh_name, release

VALID = "bfcl.valid"
GROUND_TRUTH = "ground_truth"
"""gold.truth key: BFCL's possible answer, per turn, as its call strings."""
ENTRY = "entry_id"
FORCE_TERMINATED = "multi_turn:force_terminated"


def decodable(step: Step) -> bool:
    """A call BFCL's pipeline would have decoded and executed: not a turn boundary, not a
    call the harness kept only as raw text (a dunder argument: malformed arguments), and
    one the environment executed (it answered, even with an error). BFCL's checker judges
    by executing the calls again on fresh instances, which in BFCL's pipeline are the calls
    its inference executed; a call refused before execution (a tool not offered, a call
    proposed but never applied) is left out, so the verdict is on what happened."""
    call = step.call
    return (call.tool != USER_TURN and safe_to_write(call) is None
            and not any(str(k).startswith("__") for k in call.args)
            and (step.ok or step.result is not None))


def decoded_turns(trajectory: Trajectory) -> list[list[list[str]]]:
    """Per turn, per step, the call strings: BFCL's `multi_turn_model_result_list_decoded`."""
    return [[[call_text(s.call)] for s in turn if decodable(s)]
            for turn in turns_of(trajectory.steps)]


def check(entry: Entry, decoded: Sequence[Sequence[Sequence[str]]],
          truth: Sequence[Sequence[str]]) -> dict[str, Any]:
    """BFCL's verdict on `decoded` for `entry` (its runner's turn count, then its checker)."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    if len(decoded) != len(truth):
        return {"valid": False, "error_type": FORCE_TERMINATED,
                "error_message": f"The length of the model result turns ({len(decoded)}) "
                                 f"does not match the length of the ground truth turns "
                                 f"({len(truth)})."}
    name = fresh_name("check")
    try:
        return dict(multi_turn_checker([[list(s) for s in t] for t in decoded],
                                       [list(t) for t in truth], dict(entry),
                                       entry["id"].rsplit("_", 1)[0], name))
    finally:
        release(name)


def entry_of(entry_id: str) -> Entry:
    """The installed package's entry, found from its id the way BFCL finds a category."""
    return entries(entry_id.rsplit("_", 1)[0])[entry_id]


class BfclValid:
    name = VALID
    version = "1"
    definition = ("1 if BFCL's multi_turn_checker accepts the trajectory's per-turn calls "
                  "against the entry's ground truth (state and execution results after every "
                  "turn), else 0; the checker's error type and message in the detail")
    kind: ScoreKind = "binary"
    refines = "state.assertions"
    """BFCL compares every instance after every turn that expects calls, and the calls'
    results too: a sharper check of the world gold leaves than the final state alone."""

    def entry(self, entry_id: str) -> Entry:
        return entry_of(entry_id)

    def verdict(self, gold: Gold, trajectory: Trajectory) -> dict[str, Any] | None:
        truth, entry_id = gold.truth.get(GROUND_TRUTH), gold.truth.get(ENTRY)
        if truth is None or entry_id is None:
            return None
        return check(self.entry(str(entry_id)), decoded_turns(trajectory), truth)

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        verdict = self.verdict(gold, trajectory)
        if verdict is None:
            return ScoreValue(None, {"reason": "gold carries no BFCL ground truth"})
        if verdict.get("valid"):
            return ScoreValue(1.0)
        return ScoreValue(0.0, {"error_type": verdict.get("error_type"),
                                "error_message": verdict.get("error_message")})

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        """The trajectory with the calls of the last turn that made any left out: the
        empty turn BFCL's checker exists to refuse."""
        turns = turns_of(t.steps)
        last = max((i for i, turn in enumerate(turns) if turn), default=None)
        if last is None or not _expects_calls(gold, last):
            return None
        kept: list[Step] = []
        index = 0
        for step in t.steps:
            if is_turn_boundary(step):
                index += 1
            if is_turn_boundary(step) or index != last:
                kept.append(step)
        return replace(t, steps=tuple(kept))


def _expects_calls(gold: Gold, turn: int) -> bool:
    truth: Mapping[int, Any] = dict(enumerate(gold.truth.get(GROUND_TRUTH) or []))
    return bool(truth.get(turn))
