"""Parse a published tau-bench results file into a suite and one trajectory per result.

The file is a JSON list of results (task_id, trial, reward, info.task, traj). It is
streamed with the standard library: a small reader decodes one list element at a
time with `json.JSONDecoder.raw_decode` over chunks and hashes the bytes as they
pass, so memory holds one parsed result plus the converted trajectories.

Everything is validated before the first write. A fault that makes the file
unusable (not a list, a result without task_id or reward, tasks with unequal
trial counts, one task defined two ways) is a one-line AssayError naming the
result's index and field, and nothing is stored. A fault inside one result's
message list (a tool call whose arguments are not valid JSON, a tool result
for an unknown call) does not stop the import: that trajectory is stored with
the fault listed in ``meta["malformed"]`` and counted in the report, and its
published reward stays what tau-bench published.

Python's json takes what no store can hold: NaN and the infinities, a float past
its range, an integer too long to print again, a lone surrogate, nesting deep enough
to exhaust the stack. Each is refused as it is decoded, naming the result and the
field, so it never reaches the store (where it failed with a traceback, half-written);
so is a key given twice in one object, which json settles by keeping the last. The file
itself is opened by `infiles`: a regular file of at most `DATA_LIMIT` bytes.

The suite hash is a function of the tasks only, so the same tasks read from
any file are the same suite. Nothing here touches a store (see `importer`).
"""

from __future__ import annotations

import codecs
import hashlib
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay.infiles import DATA_LIMIT, RepeatedKey, lone_surrogate, open_input, unique_keys
from agent_assay.model import Cost, Gold, Item, Step, Suite, ToolCall, Trajectory
from agent_assay_bundled.tau_bench.rules import ADAPTER, AIRLINE_TOOLS, DOMAIN, gold_digest

CHUNK = 1 << 16
WHITESPACE = " \t\n\r"
FAILED_PREFIXES = ("Error", "Unknown action")
"""tau-bench's tools report a refused call as a result starting with these."""
UNPARSED = "__unparsed_arguments__"
MODEL_KEYS = ("model", "agent_model")
MAX_DEPTH = 100
"""Deepest nesting taken in a result or in a tool call's arguments: tau-bench's own
files nest 9 deep; json's decoder, and the encoders after it, run out of stack past 1,000."""


# ---- strict JSON ----------------------------------------------------------------
class _Unstorable:
    """A number json would decode but no store can write back (NaN, an infinity, an
    integer too long to print), kept as its text until `_refusal` says where it is."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def why(self) -> str:
        digits = self.text.lstrip("-")
        if digits.isdigit():
            limit = sys.get_int_max_str_digits()
            return f"is an integer of {len(digits)} digits, more than {limit}"
        return f"is {self.text}, not a finite number"


def _float(text: str) -> float | _Unstorable:
    value = float(text)
    return value if math.isfinite(value) else _Unstorable(text)


def _int(text: str) -> int | _Unstorable:
    limit = sys.get_int_max_str_digits()
    return _Unstorable(text) if limit and len(text.lstrip("-")) > limit else int(text)


DECODER = json.JSONDecoder(parse_float=_float, parse_int=_int, parse_constant=_Unstorable,
                           object_pairs_hook=unique_keys)
"""Strict JSON: besides what `_refusal` names, a key given twice in one object (Python
keeps the last silently) is refused."""


def _refusal(value: Any) -> str | None:
    """What in a decoded value no store can hold, and where; None if nothing.

    A loop over an explicit stack of containers, so no nesting can overflow it. Leaves
    are checked where they sit (no path is built for them); containers in file order.
    """
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels at {_field(path)}"
        if isinstance(node, dict):
            if (fault := _leaf_fault("".join(node))) is not None:
                return f"{_field(path)} has a key that {fault}"
            children: Iterable[tuple[str | int, Any]] = node.items()
        elif isinstance(node, list):
            children = enumerate(node)
        else:  # a leaf at the top: every other leaf is checked below, where it sits
            fault = _leaf_fault(node)
            return None if fault is None else f"{_field(path)} {fault}"
        containers = []
        for key, child in children:
            if isinstance(child, dict | list):
                containers.append((child, (*path, key)))
            elif (fault := _leaf_fault(child)) is not None:
                return f"{_field((*path, key))} {fault}"
        stack.extend(reversed(containers))
    return None


def _leaf_fault(leaf: Any) -> str | None:
    if isinstance(leaf, _Unstorable):
        return leaf.why()
    if isinstance(leaf, str) and (bad := lone_surrogate(leaf)):
        return f"holds a lone surrogate {bad!r}, which UTF-8 cannot encode"
    return None


def _field(path: Sequence[str | int]) -> str:
    """A path written as the other messages write it (field 'info.task.actions[0]'), on one
    short line whatever its keys hold."""
    if not path:
        return "the value"
    text = "".join(
        f"[{p}]" if isinstance(p, int) else f".{p}" if p.isprintable() else f"[{_brief(p)}]"
        for p in path
    ).removeprefix(".")
    return f"field '{text if len(text) <= 80 else text[:77] + '...'}'"


# ---- streaming ------------------------------------------------------------------
class _ArrayReader:
    """Decode the elements of one top-level JSON list from a byte stream, chunk by chunk,
    refusing any element that holds what no store can (see `_refusal`)."""

    def __init__(self, stream: IO[bytes], where: str, chunk: int = CHUNK) -> None:
        self.stream = stream
        self.where = where
        self.chunk = chunk
        self.digest = hashlib.sha256()
        self.text = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.bytes_read = 0

    def _more(self, want: int) -> bool:
        """Append at least one more chunk to the buffer; False at end of file."""
        if self.eof:
            return False
        data = self.stream.read(want)
        self.digest.update(data)
        self.bytes_read += len(data)
        try:
            decoded = self.text.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise AssayError(
                f"{self.where}: not a tau-bench results file: not UTF-8 near byte "
                f"{self.bytes_read - len(data) + exc.start}"
            ) from exc
        if not data:
            self.eof = True
        self.buf = self.buf[self.pos :] + decoded
        self.pos = 0
        return bool(data)

    def _peek(self) -> str | None:
        """The next non-whitespace character (not consumed), or None at end of file."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in WHITESPACE:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more(self.chunk):
                return None

    def _value(self, index: int) -> Any:
        want = self.chunk
        while True:
            try:
                value, end = DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self._more(want):
                    want *= 2  # geometric growth keeps a large element linear to decode
                    continue
                raise AssayError(
                    f"{self.where}: result [{index}]: invalid JSON: {exc.msg}"
                ) from exc
            except RecursionError as exc:
                raise AssayError(
                    f"{self.where}: result [{index}]: nested deeper than {MAX_DEPTH} levels"
                ) from exc
            except RepeatedKey as exc:
                raise AssayError(f"{self.where}: result [{index}]: {exc}") from exc
            if end == len(self.buf) and self._more(want):
                continue  # a number may continue in the next chunk
            self.pos = end
            if (fault := _refusal(value)) is not None:
                raise AssayError(f"{self.where}: result [{index}]: {fault}")
            return value

    def elements(self) -> Iterator[tuple[int, Any]]:
        first = self._peek()
        if first != "[":
            found = "an empty file" if first is None else f"{first!r}"
            raise AssayError(
                f"{self.where}: not a tau-bench results file: expected a JSON list of "
                f"results, found {found}"
            )
        self.pos += 1
        index = 0
        if self._peek() == "]":
            self.pos += 1
        else:
            while True:
                if self._peek() is None:
                    raise AssayError(f"{self.where}: result [{index}]: file ends inside the list")
                yield index, self._value(index)
                index += 1
                sep = self._peek()
                if sep == ",":
                    self.pos += 1
                    continue
                if sep == "]":
                    self.pos += 1
                    break
                found = "end of file" if sep is None else repr(sep)
                raise AssayError(
                    f"{self.where}: result [{index - 1}]: expected ',' or ']' after it, "
                    f"found {found}"
                )
        if self._peek() is not None:
            raise AssayError(f"{self.where}: not a tau-bench results file: data after the list")


# ---- parsed form ----------------------------------------------------------------
@dataclass(frozen=True)
class ParsedResults:
    """A fully validated file: nothing here has been written yet."""

    path: Path
    sha256: str
    suite: Suite
    trajectories: tuple[Trajectory, ...]
    trials: int
    model: str | None

    @property
    def malformed(self) -> list[Trajectory]:
        return [t for t in self.trajectories if t.meta.get("malformed")]

    @property
    def without_reward_info(self) -> list[Trajectory]:
        return [t for t in self.trajectories if not t.meta.get("reward_computed")]


def item_id_of(task_id: int | str) -> str:
    """Zero-padded for integer ids so item order is task order."""
    return f"{task_id:03d}" if isinstance(task_id, int) else task_id


class _Result:
    """Field access for one result, with errors that name the index and the field."""

    def __init__(self, where: str, index: int, data: Any) -> None:
        self.where, self.index = where, index
        if not isinstance(data, dict):
            self.fail(f"expected an object, got {_type(data)}")
        self.data: dict[str, Any] = data

    def fail(self, message: str) -> None:
        raise AssayError(f"{self.where}: result [{self.index}]: {message}")

    def get(self, dotted: str, check: Callable[[Any], bool], want: str) -> Any:
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                self.fail(f"missing field '{dotted}'")
            node = node[part]
        if not check(node):
            self.fail(f"field '{dotted}' must be {want}, got {_brief(node)}")
        return node


def _type(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else type(value).__name__


def _brief(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _task_name(task_id: int | str) -> str:
    """A task id as a message shows it: as written, unless that would break the line."""
    return str(task_id) if isinstance(task_id, int) or task_id.isprintable() else _brief(task_id)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_reward(v: Any) -> bool:
    return (
        isinstance(v, int | float)
        and not isinstance(v, bool)
        and math.isfinite(v)
        and 0.0 <= v <= 1.0
    )


def _gold(result: _Result) -> tuple[Gold, dict[str, Any]]:
    task = result.get("info.task", lambda v: isinstance(v, dict), "an object")
    result.get("info.task.instruction", lambda v: isinstance(v, str), "a string")
    actions = result.get("info.task.actions", lambda v: isinstance(v, list), "a list")
    outputs = result.get(
        "info.task.outputs",
        lambda v: isinstance(v, list) and all(isinstance(o, str) for o in v),
        "a list of strings",
    )
    path = []
    for j, action in enumerate(actions):
        field = f"info.task.actions[{j}]"
        if not isinstance(action, dict):
            result.fail(f"field '{field}' must be an object, got {_brief(action)}")
        name, kwargs = action.get("name"), action.get("kwargs", {})
        if not isinstance(name, str) or not name:
            result.fail(f"field '{field}.name' must be a tool name, got {_brief(name)}")
        if name not in AIRLINE_TOOLS:
            result.fail(
                f"field '{field}.name' is {name!r}, not a tau-bench {DOMAIN} tool "
                f"(only the {DOMAIN} domain is supported)"
            )
        if not isinstance(kwargs, dict):
            result.fail(f"field '{field}.kwargs' must be an object, got {_brief(kwargs)}")
        path.append(ToolCall(name, kwargs))
    return Gold(path=tuple(path), truth={"outputs": list(outputs)}), task


@dataclass
class _Reading:
    """What `_steps` has read of a trajectory so far: the tool calls (with any fault) and
    the turn of each, the results answered to them, the calls still unanswered (id, call
    number), the dialogue, the per-message faults and the system prompt's digest."""

    calls: list[tuple[ToolCall, str | None]] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    results: dict[int, Any] = field(default_factory=dict)
    pending: list[tuple[Any, int]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)
    system: Any = field(default_factory=hashlib.sha256)

    def read(self, turn: int, message: Any) -> None:
        where = f"traj[{turn}]"
        if not isinstance(message, dict):
            self.malformed.append(f"{where}: not an object")
            return
        role, content = message.get("role"), message.get("content")
        if role == "system":
            self.system.update(str(content).encode("utf-8"))
        elif role == "tool":
            self._answer(message.get("tool_call_id"), content, where)
        elif role not in ("user", "assistant"):
            self.malformed.append(f"{where}.role: unknown role {role!r}")
        else:
            if isinstance(content, str) and content:
                self.messages.append({"turn": turn, "role": role, "content": content})
            tool_calls = message.get("tool_calls") or []
            if role == "assistant" and tool_calls:
                self._offer(tool_calls, turn, where)

    def _answer(self, call_id: Any, content: Any, where: str) -> None:
        match = next((n for n, (cid, _) in enumerate(self.pending) if cid == call_id), None)
        if match is None:
            self.malformed.append(f"{where}.tool_call_id: {call_id!r} answers no pending tool call")
            return
        self.results[self.pending.pop(match)[1]] = content

    def _offer(self, tool_calls: Any, turn: int, where: str) -> None:
        if not isinstance(tool_calls, list):
            self.malformed.append(f"{where}.tool_calls: not a list")
            return
        for j, raw in enumerate(tool_calls):
            call, fault = _call(raw, f"{where}.tool_calls[{j}]")
            if fault:
                self.malformed.append(fault)
            self.pending.append((raw.get("id") if isinstance(raw, dict) else None,
                                 len(self.calls)))
            self.calls.append((call, fault))
            self.turns.append(turn)

    def steps(self) -> list[Step]:
        """Each call with its result, or failed when none was recorded."""
        steps = []
        for n, (call, fault) in enumerate(self.calls):
            if n not in self.results:
                steps.append(Step(call, ok=False, error="no tool result recorded in traj"))
                continue
            result = self.results[n]
            failed = isinstance(result, str) and result.startswith(FAILED_PREFIXES)
            error = fault or (str(result) if failed else None)
            steps.append(Step(call, ok=not failed, result=result, error=error))
        return steps


def _steps(traj: list[Any]) -> tuple[list[Step], list[dict[str, Any]], list[int], list[str], str]:
    """Tool calls in order with their results, the dialogue, and any per-message faults."""
    reading = _Reading()
    for turn, message in enumerate(traj):
        reading.read(turn, message)
    return (reading.steps(), reading.messages, reading.turns, reading.malformed,
            reading.system.hexdigest())


def _call(raw: Any, where: str) -> tuple[ToolCall, str | None]:
    if not isinstance(raw, dict) or not isinstance(raw.get("function"), dict):
        return ToolCall("<malformed>", {}), f"{where}.function: missing"
    function = raw["function"]
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return ToolCall("<malformed>", {}), f"{where}.function.name: missing"
    arguments = function.get("arguments")
    if isinstance(arguments, dict):
        return ToolCall(name, arguments), None
    if not isinstance(arguments, str):
        return ToolCall(name, {UNPARSED: _brief(arguments)}), (
            f"{where}.function.arguments: not a JSON string"
        )
    parsed, fault = _arguments(arguments)
    if parsed is not None:
        return ToolCall(name, parsed), None
    return ToolCall(name, {UNPARSED: arguments}), f"{where}.function.arguments: {fault}"


def _arguments(arguments: str) -> tuple[dict[str, Any] | None, str]:
    """A call's arguments decoded to an object, or None and why not."""
    try:
        parsed = DECODER.decode(arguments)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at char {exc.pos})"
    except RecursionError:
        return None, f"nested deeper than {MAX_DEPTH} levels"
    except RepeatedKey as exc:
        return None, str(exc)
    if not isinstance(parsed, dict):
        return None, f"JSON {_type(parsed)}, not an object"
    refused = _refusal(parsed)
    if refused is not None:
        return None, refused
    return parsed, ""


def _model(result: _Result) -> str | None:
    info = result.data.get("info")
    for source in (result.data, info if isinstance(info, dict) else {}):
        for key in MODEL_KEYS:
            if isinstance(source.get(key), str) and source[key]:
                return str(source[key])
    return None


def parse_results(path: Path) -> ParsedResults:
    """Read and validate the whole file; raise a one-line AssayError on a file-level fault."""
    where = str(path)
    stream = open_input(path, "tau-bench results file", DATA_LIMIT)
    items: dict[str, Item] = {}
    task_json: dict[str, tuple[str, int]] = {}
    slots: dict[str, dict[int, int]] = defaultdict(dict)
    drafts: list[Trajectory] = []
    models: dict[str, int] = {}
    with stream:
        reader = _ArrayReader(stream, where)
        for index, data in reader.elements():
            result = _Result(where, index, data)
            task_id = result.get(
                "task_id",
                lambda v: (_is_int(v) and v >= 0) or (isinstance(v, str) and bool(v)),
                "a non-negative integer or a non-empty string",
            )
            trial = result.get("trial", lambda v: _is_int(v) and v >= 0, "a non-negative integer")
            reward = float(result.get("reward", _is_reward, "a number from 0 to 1"))
            traj = result.get("traj", lambda v: isinstance(v, list), "a list of messages")
            gold, task = _gold(result)
            item_id = item_id_of(task_id)
            canonical = canonical_json(task)
            if item_id in task_json and task_json[item_id][0] != canonical:
                result.fail(
                    f"task {_task_name(task_id)} is defined differently (field 'info.task') "
                    f"than in result [{task_json[item_id][1]}]"
                )
            if item_id in items and items[item_id].input["task_id"] != task_id:
                result.fail(f"task id {task_id!r} collides with another task's item id {item_id}")
            if trial in slots[item_id]:
                result.fail(
                    f"task {_task_name(task_id)} trial {trial} already appears as result "
                    f"[{slots[item_id][trial]}] (field 'trial')"
                )
            slots[item_id][trial] = index
            task_json.setdefault(item_id, (canonical, index))
            items.setdefault(
                item_id,
                Item(
                    item_id=item_id,
                    input={
                        "task_id": task_id,
                        "user_id": task.get("user_id"),
                        "instruction": task["instruction"],
                    },
                    gold=gold,
                ),
            )
            if (model := _model(result)) is not None:
                models.setdefault(model, index)
            drafts.append(_draft(item_id, task_id, trial, reward, result, traj, gold))
        sha256 = reader.digest.hexdigest()
    if not drafts:
        raise AssayError(f"{where}: not a tau-bench results file: the list is empty")
    counts = {item_id: len(trials) for item_id, trials in slots.items()}
    if len(set(counts.values())) > 1:
        by_count: dict[int, list[str]] = defaultdict(list)
        for item_id, n in sorted(counts.items()):
            by_count[n].append(_task_name(items[item_id].input["task_id"]))
        detail = "; ".join(
            f"{n} trials: task {', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''}"
            for n, ids in sorted(by_count.items())
        )
        first = min(slots[i][min(slots[i])] for i, n in counts.items() if n != max(counts.values()))
        raise AssayError(
            f"{where}: result [{first}]: trials of unequal count per task (field 'trial'): {detail}"
        )
    if len(models) > 1:
        listed = ", ".join(f"{m!r} (result [{i}])" for m, i in models.items())
        raise AssayError(f"{where}: results disagree on the model: {listed}")
    rank = {
        (item_id, trial): n
        for item_id, trials in slots.items()
        for n, trial in enumerate(sorted(trials), start=1)
    }
    trajectories = tuple(
        sorted(
            (replace(t, repetition=rank[(t.item_id, int(t.meta["trial"]))]) for t in drafts),
            key=lambda t: (t.item_id, t.repetition),
        )
    )
    suite = Suite(
        adapter=ADAPTER,
        items=tuple(items[i] for i in sorted(items)),
        source=f"{path.name} (sha256 {sha256})",
    )
    return ParsedResults(
        path=path,
        sha256=sha256,
        suite=suite,
        trajectories=trajectories,
        trials=next(iter(counts.values())),
        model=next(iter(models), None),
    )


def _draft(
    item_id: str,
    task_id: int | str,
    trial: int,
    reward: float,
    result: _Result,
    traj: list[Any],
    gold: Gold,
) -> Trajectory:
    steps, messages, turns, malformed, system_sha = _steps(traj)
    info = result.data.get("info") or {}
    reward_info = info.get("reward_info") if isinstance(info, dict) else None
    user_cost = info.get("user_cost") if isinstance(info, dict) else None
    meta: dict[str, Any] = {
        "source": "tau-bench",
        "result_index": result.index,
        "task_id": task_id,
        "trial": trial,
        "published_reward": reward,
        "gold_sha256": gold_digest(gold),
        "reward_computed": isinstance(reward_info, dict),
        "reward_info": reward_info.get("info") if isinstance(reward_info, dict) else None,
        "user_cost_usd": user_cost if isinstance(user_cost, int | float) else None,
        "system_prompt_sha256": system_sha,
        "messages": messages,
        "call_turns": turns,
        "malformed": malformed,
        "executed": False,
    }
    return Trajectory(
        item_id=item_id,
        repetition=0,
        steps=tuple(steps),
        cost=Cost(0.0, "the agent's cost is not recorded in the tau-bench results file"),
        error=f"malformed: {'; '.join(malformed)}" if malformed else None,
        meta=meta,
    )
