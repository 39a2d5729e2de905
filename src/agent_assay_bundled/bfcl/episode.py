"""One BFCL entry as an episode: its instances, its turns, the tools offered in each.

Calls are executed by BFCL's own executor on the entry's instances. The user's turns come
from the entry's question, one at a time when the agent stops calling tools; a turn whose
message BFCL withholds because it adds functions (miss_func) says what BFCL's inference
says there, and offers the added docs from then on. A tool not offered in the current
turn is refused with the words the harness's model agent uses, so a replay and a model
see the same thing.
"""

from __future__ import annotations

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


class BfclEpisode:
    def __init__(self, entry: Mapping[str, Any]) -> None:
        self.entry = entry
        self.turn = 0
        self.executor = Executor(entry)
        self.offered = {doc["name"] for doc in docs_at_turn(entry, 0)}

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolOutcome:
        if tool not in self.offered:
            return ToolOutcome(False, None, f"unknown tool: {tool}")
        call = ToolCall(tool, dict(args))
        problem = safe_to_write(call)
        if problem is not None:
            return ToolOutcome(False, None, problem)
        return outcome_of(self.executor.execute([call_text(call)])[0])

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
