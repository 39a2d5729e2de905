"""One BFCL entry as an episode: its instances, its turns, the tools offered in each.

Calls are executed by BFCL's own executor on the entry's instances. The user's turns come
from the entry's question, one at a time when the agent stops calling tools; a turn whose
message BFCL withholds because it adds functions (miss_func) says what BFCL's inference
says there, and offers the added docs from then on.

What runs is what BFCL's executor runs: any public method of the entry's instances, offered
in this turn or not (BFCL's inference executes a withheld function a model calls). A call
of a method the turn does not offer is executed, so the world and BFCL's verdict stay
BFCL's, but its step fails with the reason, so the replay's failed calls and the positive
control name it. A name that is no method of the instances is refused with the words the
harness's model agent uses, unexecuted (BFCL would evaluate it and record an error, which
changes neither the world nor its verdict).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from agent_assay.adapters.system import Ending, ToolOutcome, UserTurn
from agent_assay.model import ToolCall
from agent_assay_bundled.bfcl.entries import call_text, safe_to_write
from agent_assay_bundled.bfcl.execution import Executor, outcome_of
from agent_assay_bundled.bfcl.snapshot import state_of
from agent_assay_bundled.bfcl.tools import docs_at_turn, tool_specs


def user_message(entry: Mapping[str, Any], turn: int) -> str:
    """The user's words at `turn` (BFCL's prompt for added functions on a withheld turn)."""
    from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC

    if str(turn) in (entry.get("missed_function") or {}):
        return str(DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC)
    return "\n".join(str(m["content"]) for m in entry["question"][turn])


def public_methods(instances: Any) -> frozenset[str]:
    """The names BFCL's executor maps to an instance: every public method."""
    return frozenset(name for instance in instances
                     for name, _ in inspect.getmembers(instance, inspect.ismethod)
                     if not name.startswith("_"))


def offered_from(entry: Mapping[str, Any], tool: str) -> str:
    """When the entry first offers `tool`, as a user reads it (turns counted from 1)."""
    for at, withheld in (entry.get("missed_function") or {}).items():
        if any(doc["name"] == tool for doc in withheld):
            return f"offered from turn {int(at) + 1}"
    return "no turn offers it"


class BfclEpisode:
    def __init__(self, entry: Mapping[str, Any]) -> None:
        self.entry = entry
        self.turn = 0
        self.executor = Executor(entry)
        self.offered = {doc["name"] for doc in docs_at_turn(entry, 0)}
        self.methods = public_methods(self.executor.instances.values())

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolOutcome:
        if tool not in self.methods:
            return ToolOutcome(False, None, f"unknown tool: {tool}")
        call = ToolCall(tool, dict(args))
        problem = safe_to_write(call)
        if problem is not None:
            return ToolOutcome(False, None, problem)
        done = outcome_of(self.executor.execute([call_text(call)])[0])
        if tool in self.offered:
            return done
        return ToolOutcome(False, done.result,
                           f"{tool} is not offered in turn {self.turn + 1}"
                           f" ({offered_from(self.entry, tool)}); BFCL's executor ran it anyway"
                           + ("" if done.ok else f", and it failed: {done.error}"))

    def next_turn(self) -> UserTurn | None:
        if self.turn + 1 >= len(self.entry["question"]):
            return None
        self.turn += 1
        added = str(self.turn) in (self.entry.get("missed_function") or {})
        docs = docs_at_turn(self.entry, self.turn)
        self.offered = {doc["name"] for doc in docs}
        return UserTurn(user_message(self.entry, self.turn),
                        tool_specs(docs) if added else None)

    def finish(self) -> Ending:
        state = state_of(self.executor.instances)
        self.executor.close()
        return Ending(state, None, {"turns_reached": self.turn + 1,
                                    "turns": len(self.entry["question"])})
