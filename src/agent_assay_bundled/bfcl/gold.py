"""Gold for one entry: its ground truth replayed by BFCL's executor.

The path is the ground truth's calls with a turn boundary between turns. The assertions
are the instances gold changes: for each class whose public state differs after gold's
last turn from the initial config, that class's whole final state (BFCL's state checker
compares whole instances too; a class gold leaves alone is not asserted, so an agent that
does nothing cannot pass on it). Replaying gold also shows which methods change state:
`changing_methods`, the facts this adapter learns (see `facts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_assay.model import USER_TURN, Gold, StateAssertion, ToolCall
from agent_assay_bundled.bfcl.entries import Entry, call_text, gold_turns
from agent_assay_bundled.bfcl.execution import Executor
from agent_assay_bundled.bfcl.scoring import ENTRY, GROUND_TRUTH
from agent_assay_bundled.bfcl.snapshot import state_of


@dataclass(frozen=True)
class Replayed:
    gold: Gold
    changing_methods: frozenset[str]


def replay_gold(entry: Entry, truth: Sequence[Sequence[str]]) -> Replayed:
    turns = gold_turns(entry["id"], truth, entry["involved_classes"])
    executor = Executor(entry, "gold")
    try:
        initial = state_of(executor.instances)
        before, changing = initial, set()
        for call in (c for turn in turns for c in turn):
            executor.execute([call_text(call)])
            after = state_of(executor.instances)
            if after != before:
                changing.add(call.tool)
            before = after
    finally:
        executor.close()
    path: list[ToolCall] = []
    for index, turn in enumerate(turns):
        if index:
            path.append(ToolCall(USER_TURN, {}))
        path.extend(turn)
    assertions = tuple(StateAssertion(name, state) for name, state in before.items()
                       if state != initial.get(name))
    return Replayed(Gold(path=tuple(path), assertions=assertions,
                         truth={GROUND_TRUTH: [list(t) for t in truth], ENTRY: entry["id"]}),
                    frozenset(changing))
