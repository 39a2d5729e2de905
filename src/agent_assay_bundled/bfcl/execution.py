"""BFCL's own executor (`execute_multi_turn_func_call`), held to one set of instances.

The executor keeps the instances it creates in its module's globals under a name made of
the model name and the entry id, and reuses them on the next call with that name: that is
how a conversation's state carries from turn to turn. Each `Executor` uses a model name
of its own, so two episodes (or an episode and a check) never share a world, and `close`
removes what it left in those globals.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.adapters.system import ToolOutcome

ERROR_PREFIX = "Error during execution"


def fresh_name(tag: str) -> str:
    return f"assay_{tag}_{uuid.uuid4().hex}"


def release(model_name: str) -> None:
    """Drop every instance BFCL's executor keeps under `model_name` (any suffix)."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    prefix = re.sub(r"[-./:]", "_", model_name) + "_"
    for key in [k for k in vars(multi_turn_utils) if k.startswith(prefix)]:
        del vars(multi_turn_utils)[key]


def long_context(entry_id: str) -> bool:
    """As BFCL decides it: from the category in the entry's id."""
    category = entry_id.rsplit("_", 1)[0]
    return "long_context" in category or "composite" in category


class Executor:
    """One entry's environment instances, loaded with its initial config."""

    def __init__(self, entry: Mapping[str, Any], tag: str = "episode") -> None:
        self.entry = entry
        self.model_name = fresh_name(tag)
        self.instances: dict[str, Any] = {}
        self.execute([])

    def execute(self, texts: Sequence[str]) -> list[str]:
        from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
            execute_multi_turn_func_call,
        )

        results, self.instances = execute_multi_turn_func_call(
            list(texts), self.entry["initial_config"], self.entry["involved_classes"],
            self.model_name, self.entry["id"], long_context=long_context(self.entry["id"]))
        return list(results)

    def close(self) -> None:
        release(self.model_name)


def outcome_of(result: str) -> ToolOutcome:
    """BFCL's result string as an outcome: failed when the executor caught an exception
    or the method answered with an `error` field."""
    if result.startswith(ERROR_PREFIX):
        return ToolOutcome(False, result, result)
    try:
        value = json.loads(result)
    except ValueError:
        return ToolOutcome(True, result)
    if isinstance(value, dict) and "error" in value:
        return ToolOutcome(False, value, str(value["error"]))
    return ToolOutcome(True, value)
