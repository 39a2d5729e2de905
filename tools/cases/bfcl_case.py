"""What the harness finds on BFCL multi-turn, entry by entry, for the case study.

For each category: the entries a do-nothing agent passes (with the checker's words),
the ground truth that fails BFCL's own check, what BFCL makes of an agent that acts in a
turn whose ground truth is empty (the turn where a function is withheld or a parameter is
missing), and, for each of the harness's default
mutation operators applied to gold's path (mutating tools as learned from the source,
see agent_assay_bundled.bfcl.facts), the mutants `bfcl.valid` still accepts (a changed
path the checker lets through, with what changed) and those it refuses although the
world they leave is gold's (with the checker's error types).

Usage: python -m tools.cases.bfcl_case [CATEGORY ...] [--examples N]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from agent_assay.adapters.loaded import run_calls
from agent_assay.hashing import stable_seed
from agent_assay.model import USER_TURN, Item, Step, ToolCall, Trajectory, turns_of
from agent_assay.mutation.operators import CLASSIC, OperatorContext, SkipState
from agent_assay.scoring.base import ScoringContext
from agent_assay.scoring.state import StateAssertions
from agent_assay_bundled.bfcl.entries import call_text
from agent_assay_bundled.bfcl.facts import changing_methods
from agent_assay_bundled.bfcl.scoring import BfclValid, check, entry_of
from agent_assay_bundled.bfcl.source import parse
from agent_assay_bundled.bfcl.system import BfclSystem

DEFAULT = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
           "multi_turn_long_context")
SEED = 38
STATE, CONTEXT = StateAssertions(), ScoringContext()


def shown(path: Sequence[ToolCall]) -> str:
    return " ".join("|" if c.tool == USER_TURN else call_text(c) for c in path)


def difference(gold: Sequence[ToolCall], mutant: Sequence[ToolCall]) -> str:
    """The first position where the mutant's path leaves gold's."""
    for index, (a, b) in enumerate(zip(gold, mutant, strict=False)):
        if a != b:
            return f"at call {index}: gold {shown([a])}, mutant {shown([b])}"
    return f"length {len(gold)} -> {len(mutant)}"


def category_findings(category: str, examples: int) -> list[str]:
    system = BfclSystem()
    suite = system.build_suite_for(parse(category))
    scorer = BfclValid()
    ids = tuple(i.item_id for i in suite.items)
    octx = OperatorContext(frozenset(changing_methods(category, ids)), system.argument_pools())
    lines = [f"== {category}: {len(suite.items)} entries; mutating tools learned from gold's "
             f"replay: {', '.join(sorted(octx.mutating_tools)) or 'none'}"]
    lines += null_findings(system, suite.items, scorer, examples)
    lines += truth_findings(system, suite.items, scorer)
    lines += early_findings(system, suite.items, scorer, examples)
    for op in CLASSIC:
        if isinstance(op, SkipState):
            lines += unapplied_findings(system, suite.items, octx)
        else:
            lines += mutant_findings(system, suite.items, scorer, op, octx, examples)
    return lines


def unapplied_findings(system: BfclSystem, items: Sequence[Item],
                       octx: OperatorContext) -> list[str]:
    """skip_state: the mutating calls proposed but never applied (the other calls replayed).
    BFCL's checker executes the calls again; fed every proposed call, as BFCL's pipeline
    feeds it (where proposed and executed are the same calls), it cannot tell."""
    probed = fed_all = fed_executed = 0
    for item in items:
        calls = list(item.gold.path)
        flags = [c.tool in octx.mutating_tools for c in calls]
        if not any(flags):
            continue
        probed += 1
        applied = run_calls(system, item.public(), None,
                            [c for c, skip in zip(calls, flags, strict=True) if not skip],
                            seed=0, repetition=1)
        steps = iter(applied.steps)
        merged = [Step(c, False, None, "proposed, not applied") if skip else next(steps)
                  for c, skip in zip(calls, flags, strict=True)]
        merged += list(steps)  # turns the replay reached after the path
        trajectory = replace(applied, steps=tuple(merged))
        fed_all += fed_every_call(item, trajectory)
        fed_executed += bool((BfclValid().verdict(item.gold, trajectory) or {}).get("valid"))
    return [f"mutation skip_state: {probed} entries altered (mutating calls proposed, never "
            f"applied); BFCL's checker fed every proposed call accepts {fed_all}, fed the "
            f"calls executed (bfcl.valid) {fed_executed}"]


def null_findings(system: BfclSystem, items: Sequence[Item], scorer: BfclValid,
                  examples: int) -> list[str]:
    passed = []
    for item in items:
        verdict = scorer.verdict(item.gold, run_calls(system, item.public(), None, (), seed=0,
                                                      repetition=1))
        if verdict and verdict["valid"]:
            passed.append(item.item_id)
    out = [f"do-nothing agent: bfcl.valid on {len(passed)} of {len(items)} entries"]
    out += [f"  passes: {entry_id}" for entry_id in passed[:examples]]
    return out


def truth_findings(system: BfclSystem, items: Sequence[Item], scorer: BfclValid) -> list[str]:
    """Gold failing BFCL's check, and gold whose replay has a failed call (BFCL's executor
    ran it, but the episode flags it: a function its turn does not offer, say)."""
    failing, flagged = [], []
    for item in items:
        replayed = run_calls(system, item.public(), None, item.gold.path, seed=0, repetition=1)
        verdict = scorer.verdict(item.gold, replayed)
        if not (verdict and verdict["valid"]):
            failing.append(f"  {item.item_id}: {(verdict or {}).get('error_type')}")
        flagged += [f"  {item.item_id} step {number} ({step.call.tool}): {step.error}"
                    for number, step in enumerate(replayed.steps, 1) if not step.ok]
    return [f"ground truth failing BFCL's own check: {len(failing)} of {len(items)}",
            *failing,
            f"failed calls in gold's replay: {len(flagged)}", *flagged]


def turns(path: Sequence[ToolCall]) -> list[list[ToolCall]]:
    split: list[list[ToolCall]] = [[]]
    for call in path:
        if call.tool == USER_TURN:
            split.append([])
        else:
            split[-1].append(call)
    return split


def joined(split: Sequence[Sequence[ToolCall]]) -> list[ToolCall]:
    path: list[ToolCall] = []
    for index, turn in enumerate(split):
        if index:
            path.append(ToolCall(USER_TURN, {}))
        path.extend(turn)
    return path


def early_findings(system: BfclSystem, items: Sequence[Item], scorer: BfclValid,
                   examples: int) -> list[str]:
    """Acting in the first turn gold leaves empty (a function withheld, a parameter
    missing): the next turn's calls made there, and again in their own turn."""
    probed, accepted = 0, []
    for item in items:
        split = turns(item.gold.path)
        empty = [i for i, turn in enumerate(split)
                 if not turn and i + 1 < len(split) and split[i + 1]]
        if not empty:
            continue
        probed += 1
        split[empty[0]] = list(split[empty[0] + 1])
        replayed = run_calls(system, item.public(), None, joined(split), seed=0, repetition=1)
        if fed_every_call(item, replayed):
            accepted.append(f"  accepted: {item.item_id} turn {empty[0] + 1}: "
                            f"{shown(split[empty[0]])}")
    if not probed:
        return ["acting where gold does nothing: no entry has a turn gold leaves empty"]
    return [f"acting where gold does nothing (the next turn's calls made in the turn gold "
            f"leaves empty, then again): BFCL's checker, fed every call as its pipeline "
            f"feeds a model's, accepts {len(accepted)} of {probed} entries",
            *accepted[:examples]]


def fed_every_call(item: Item, trajectory: Trajectory) -> bool:
    """BFCL's verdict on every call the trajectory proposes, executed or not: what its
    pipeline decides for a model whose every call its inference executed."""
    every = [[[call_text(s.call)] for s in turn] for turn in turns_of(trajectory.steps)]
    return bool(check(entry_of(item.item_id), every, item.gold.truth["ground_truth"])
                .get("valid"))


def mutant_findings(system: BfclSystem, items: Sequence[Item], scorer: BfclValid, op: Any,
                    octx: OperatorContext, examples: int) -> list[str]:
    altered, survivors, stricter = 0, [], Counter[str]()
    for item in items:
        rng = random.Random(stable_seed(SEED, op.name, item.item_id, 1))
        mutant = op.mutate(list(item.gold.path), rng, octx)
        if mutant == list(item.gold.path):
            continue
        altered += 1
        replayed = run_calls(system, item.public(), None, mutant, seed=0, repetition=1)
        verdict = scorer.verdict(item.gold, replayed) or {}
        if verdict.get("valid"):
            survivors.append(f"  survives: {item.item_id} {difference(item.gold.path, mutant)}")
        elif STATE.score(item.gold, replayed, CONTEXT).value == 1.0:
            stricter[str(verdict.get("error_type"))] += 1
    head = (f"mutation {op.name}: {altered} entries altered, bfcl.valid still 1 on "
            f"{len(survivors)}; refused though the final state is gold's on "
            f"{sum(stricter.values())}"
            + (f" ({', '.join(f'{k} {v}' for k, v in sorted(stricter.items()))})"
               if stricter else ""))
    return [head, *survivors[:examples]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("categories", nargs="*", default=list(DEFAULT))
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args(argv)
    for category in args.categories:
        print("\n".join(category_findings(category, args.examples)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
