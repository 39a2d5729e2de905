"""The ``mock`` config's script: Inspect's mockllm model with outputs written in advance.

The setting ``script`` (``-M script=JSON``) is a JSON list of outputs, each a tool call
``{"tool": NAME, "args": {...}}`` or a reply ``{"answer": TEXT}``, played on every sample;
or a mapping from sample id to such a list, ``"*"`` for the samples it does not name. The
outputs go to the task's solver as its model's turns (`bridge`), so the script is
Inspect's mockllm with custom outputs. An empty script answers the empty string. Being
a config parameter, the script is part of the config hash.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent_assay.errors import AssayError, quoted
from agent_assay.model import ToolCall
from agent_assay_bundled.inspect_task.tools import ANSWER, ANSWER_ARG


def parse_script(text: str) -> dict[str, list[ToolCall]]:
    """sample id (or "*") -> the calls a script plays there; one line on a bad script."""
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AssayError(f"-M script={quoted(text)}: not JSON ({exc.msg})") from None
    table = loaded if isinstance(loaded, dict) else {"*": loaded}
    return {str(key): outputs(key, value) for key, value in table.items()}


def outputs(key: object, listed: object) -> list[ToolCall]:
    if not isinstance(listed, list):
        raise AssayError(f"-M script: the outputs for {key!r} must be a list")
    calls = []
    for output in listed:
        calls.append(output_call(key, output))
    return calls


def output_call(key: object, output: Any) -> ToolCall:
    if isinstance(output, Mapping) and isinstance(output.get("answer"), str):
        return ToolCall(ANSWER, {ANSWER_ARG: output["answer"]})
    if (isinstance(output, Mapping) and isinstance(output.get("tool"), str)
            and isinstance(output.get("args", {}), Mapping)):
        return ToolCall(output["tool"], dict(output.get("args", {})))
    raise AssayError(f"-M script: output {output!r} for {key!r} is neither "
                     '{"tool": NAME, "args": {...}} nor {"answer": TEXT}')


def script_for(text: str, item_id: str) -> list[ToolCall]:
    table = parse_script(text)
    return table.get(item_id, table.get("*", []))
