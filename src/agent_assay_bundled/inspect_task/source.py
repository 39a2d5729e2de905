"""Which Inspect task a suite is built from, written so a fresh process loads it again.

``--source`` is either a Python file holding exactly one ``@task`` (its arguments at
their defaults), or a small YAML file:

    task: tasks/arith.py@sums      # FILE.py[@TASK] (relative to this file), or a registry
                                   # name such as inspect_evals/agentdojo
    args: {offset: 2}              # the task's arguments (Inspect's -T), any YAML value
    limit: 10                      # optional: the first N samples, in the dataset's order
    gold_calls: gold_calls         # optional: the sample metadata key holding gold's tool
                                   # calls, a list of {tool: NAME, args: {...}}

The task's arguments decide its dataset, tools and scorer, so they belong to the suite: they
are in its source line and its hash. The source line is ``inspect:`` and the spec as
canonical JSON (`describe`); `described_in` reads it back in the run side's process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError, quoted
from agent_assay.yamlfile import read_mapping_of

PREFIX = "inspect:"
FIELDS = ("task", "args", "limit", "gold_calls")
DEFAULT_GOLD_CALLS = "gold_calls"


@dataclass(frozen=True)
class TaskSource:
    """A task (a file with an optional task name, or a registry name) and its arguments."""

    task: str
    """An absolute ``FILE.py`` path, or a registry name ``package/name``."""
    name: str | None = None
    """The task's name in the file (None: the file holds one task)."""
    args: dict[str, Any] = field(default_factory=dict)
    limit: int | None = None
    gold_calls: str = DEFAULT_GOLD_CALLS

    @property
    def is_file(self) -> bool:
        return self.task.endswith(".py")

    @property
    def label(self) -> str:
        """How an error names the task: ``FILE.py@NAME`` or the registry name."""
        return self.task if self.name is None else f"{self.task}@{self.name}"

    def describe(self) -> str:
        body = {"task": self.task, "name": self.name, "args": self.args, "limit": self.limit,
                "gold_calls": self.gold_calls}
        return PREFIX + json.dumps(body, sort_keys=True, separators=(",", ":"))

    @staticmethod
    def described_in(line: str) -> TaskSource | None:
        if not line.startswith(PREFIX):
            return None
        try:
            body = json.loads(line[len(PREFIX):])
            name = body["name"]
            limit = body["limit"]
            return TaskSource(str(body["task"]), None if name is None else str(name),
                              dict(body["args"]), None if limit is None else int(limit),
                              str(body["gold_calls"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            return None


def parse_task(text: str, base: Path) -> tuple[str, str | None]:
    """``FILE.py[@NAME]`` (resolved against `base`) or a registry name -> (task, name)."""
    where, _, name = text.strip().partition("@")
    if where.endswith(".py"):
        path = (base / where).resolve()
        if not path.is_file():
            raise AssayError(f"no task file {quoted(str(path))}")
        return str(path), name.strip() or None
    if "@" in text:
        raise AssayError(f"task {quoted(text)}: NAME@TASK is for a .py file; a registry task "
                         "is package/name")
    return where, None


FILE_SUFFIXES = (".py", ".yaml", ".yml", ".json")
"""What a source that names a file ends in; a missing one is a missing file, never a name."""


def names_task(text: str) -> bool:
    """Whether `text` (no file of that name exists) names a task: ``FILE.py@NAME`` or a
    registry name such as ``inspect_evals/agentdojo``."""
    where = text.strip().partition("@")[0]
    return where.endswith(".py") if "@" in text else not where.endswith(FILE_SUFFIXES)


def load_source(path: Path) -> TaskSource:
    """A ``.py`` file is the task itself; a task named on the command line (``FILE.py@NAME``
    or a registry name, no file of that name existing) is taken with its defaults; any other
    file is read as the YAML spec."""
    if not path.exists() and names_task(str(path)):
        return TaskSource(*parse_task(str(path), Path.cwd()))
    if path.suffix == ".py":
        return TaskSource(str(path.resolve()))
    doc = read_mapping_of(path, "an Inspect task source file", FIELDS)
    data = doc.data
    if not isinstance(data.get("task"), str) or not data["task"].strip():
        raise AssayError(f"{doc.at('task')}: field 'task' must be FILE.py[@TASK] or "
                         "package/name")
    try:
        task, name = parse_task(data["task"], path.parent)
    except AssayError as exc:
        raise AssayError(f"{doc.at('task')}: {exc}") from None
    args = data.get("args") or {}
    if not isinstance(args, dict) or not all(isinstance(k, str) for k in args):
        raise AssayError(f"{doc.at('args')}: field 'args' must map argument names to values")
    limit = data.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)
                              or limit < 1):
        raise AssayError(f"{doc.at('limit')}: field 'limit' must be a positive integer")
    key = data.get("gold_calls", DEFAULT_GOLD_CALLS)
    if not isinstance(key, str) or not key:
        raise AssayError(f"{doc.at('gold_calls')}: field 'gold_calls' must be a metadata key")
    try:
        plain = json.loads(json.dumps(args))
    except (TypeError, ValueError):
        raise AssayError(f"{doc.at('args')}: field 'args' must hold JSON values (strings, "
                         "numbers, booleans, lists, mappings)") from None
    return TaskSource(task, name, plain, limit, key)
