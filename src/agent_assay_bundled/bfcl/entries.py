"""BFCL's entries and ground truth, read by BFCL's own loaders, and the two translations
between its call strings and the harness's calls.

Ground truth is a list of turns of Python call strings (`mv(source='a', destination='b')`,
sometimes positional: `sort('final_report.pdf')`). `gold_calls` parses them with `ast` and
names positional arguments from the environment class's own method signature; `call_text`
writes a call back the way BFCL's decoders do (`name(key=repr(value), ...)`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.model import ToolCall

Entry = Mapping[str, Any]


@cache
def entries(category: str) -> dict[str, Entry]:
    """The category's entries by id, as BFCL's inference loads them (function docs
    attached, miss_func's withheld docs moved to their turn)."""
    from bfcl_eval.utils import load_dataset_entry

    return {e["id"]: e for e in load_dataset_entry(category)}


@cache
def ground_truth(category: str) -> dict[str, list[list[str]]]:
    """The category's possible answers by id: per turn, the call strings."""
    from bfcl_eval.utils import load_ground_truth_entry

    return {g["id"]: g["ground_truth"] for g in load_ground_truth_entry(category)}


def environment_class(name: str) -> type:
    """An involved class, from the module BFCL maps it to."""
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    return getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[name]), name)  # type: ignore[no-any-return]


def owners(involved: Sequence[str]) -> dict[str, type]:
    """Public method name -> its class, the way BFCL's executor maps them (a later class
    wins a shared name, as in `execute_multi_turn_func_call`)."""
    found: dict[str, type] = {}
    for class_name in involved:
        cls = environment_class(class_name)
        for name, _ in inspect.getmembers(cls, predicate=inspect.isfunction):
            if not name.startswith("_"):
                found[name] = cls
    return found


def parse_call(text: str, methods: Mapping[str, type], where: str) -> ToolCall:
    """One ground-truth call string as a call with named arguments."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("not a call of a plain name")
        name = node.func.id
        positional = [ast.literal_eval(a) for a in node.args]
        named = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (SyntaxError, ValueError) as exc:
        raise AssayError(f"{where}: ground truth {text!r} is not a call with literal "
                         f"arguments ({exc})") from exc
    if positional:
        owner = methods.get(name)
        if owner is None:
            raise AssayError(f"{where}: ground truth {text!r} calls {name}, which no involved "
                             "class has, with positional arguments")
        parameters = [p for p in inspect.signature(getattr(owner, name)).parameters
                      if p != "self"]
        named = {**dict(zip(parameters, positional, strict=False)), **named}
    return ToolCall(name, named)


def gold_turns(entry_id: str, turns: Sequence[Sequence[str]],
               involved: Sequence[str]) -> list[list[ToolCall]]:
    methods = owners(involved)
    return [[parse_call(text, methods, f"bfcl entry {entry_id}, turn {index}")
             for text in turn] for index, turn in enumerate(turns)]


def call_text(call: ToolCall) -> str:
    """A call as BFCL's decoders write one: `name(key=repr(value), ...)`."""
    args = ",".join(f"{key}={value!r}" for key, value in call.args.items())
    return f"{call.tool}({args})"


def safe_to_write(call: ToolCall) -> str | None:
    """Why `call` cannot be written as a call string BFCL would execute (None: it can):
    names must be identifiers, or the string would say something else."""
    if not call.tool.isidentifier():
        return f"tool name {call.tool!r} is not a Python identifier"
    bad = [key for key in call.args if not str(key).isidentifier()]
    return f"argument name {bad[0]!r} is not a Python identifier" if bad else None
