"""Hostile tau-bench files through the CLI: a one-line error or an import, never a traceback.

Python's json accepts what no store can hold (NaN, Infinity, a lone surrogate, an
integer too long to print again, nesting deep enough to exhaust the stack); each of
these once reached the store, failed there with a traceback and left a half-written
run. The cases plant one fault in a valid file; the fuzz test plants random ones.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_assay.store import open_store
from agent_assay_bundled.tau_bench.parse import MAX_DEPTH
from tests.importers.test_tau_bench_parse import call, results, row_counts, write
from tests.support.invoke import Invocation, invoke

HOLE = "\x00raw\x00"
"""Marks where raw JSON text goes: json.dumps cannot write 10**5000 or 100,000 brackets."""


def _encode(data: Any, ascii_only: bool) -> bytes:
    """JSON bytes with ("raw", text) leaves written as that text; surrogates kept as they are."""
    raws: list[str] = []

    def hole(value: Any) -> Any:
        if isinstance(value, tuple) and value[:1] == ("raw",):
            raws.append(value[1])
            return f"{HOLE}{len(raws) - 1}"
        if isinstance(value, dict):
            return {k: hole(v) for k, v in value.items()}
        return [hole(v) for v in value] if isinstance(value, list | tuple) else value

    text = json.dumps(hole(data), ensure_ascii=ascii_only)
    for n, raw in enumerate(raws):
        text = text.replace(json.dumps(f"{HOLE}{n}", ensure_ascii=ascii_only), raw)
    return text.encode("utf-8", "surrogatepass")


def planted(raw: str, *path: str | int, data: list[Any] | None = None) -> str:
    """A valid file (or `data`) as JSON text with the value at `path` replaced by `raw`."""
    data = results() if data is None else data
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = ("raw", raw)
    return _encode(data, ascii_only=True).decode("ascii")


def nested(depth: int, kind: str = "list") -> str:
    return "[" * depth + "]" * depth if kind == "list" else '{"a":' * depth + "0" + "}" * depth


KWARGS = (0, "info", "task", "actions", 0, "kwargs", "user_id")
HUGE_INT = "9" * 5000


def stored(db: Path) -> dict[str, int] | None:
    return row_counts(open_store(str(db))) if db.exists() else None


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store already holding one imported run, so a refusal must leave it as it was."""
    path = tmp_path / "assay.db"
    got = invoke("import", "tau-bench", str(write(tmp_path / "good.json", results(3, 1))),
                 "--db", str(path))
    assert got.code == 0, got.err
    return path


def refused(path: Path, db: Path) -> str:
    """Import `path` through the CLI; assert one `error:` line naming it and no change to `db`."""
    before = stored(db)
    got = invoke("import", "tau-bench", str(path), "--db", str(db))
    assert got.traceback is None, got.traceback
    assert got.code != 0 and got.out == ""
    assert got.err.count("\n") == 1 and got.err.startswith(f"error: {path}: "), got.err
    assert stored(db) == before
    return got.err.rstrip("\n")


# ---- what Python's json lets through -------------------------------------------------
LENIENT: dict[str, tuple[str, str]] = {
    "nan_in_kwargs": (
        planted("NaN", *KWARGS),
        "result [0]: field 'info.task.actions[0].kwargs.user_id' is NaN, not a finite number",
    ),
    "infinity_in_kwargs": (planted("Infinity", *KWARGS), "is Infinity, not a finite number"),
    "minus_infinity_in_kwargs": (
        planted("-Infinity", *KWARGS),
        "is -Infinity, not a finite number",
    ),
    "nan_user_cost": (
        planted("NaN", 3, "info", "user_cost"),
        "result [3]: field 'info.user_cost' is NaN",
    ),
    "nan_in_reward_info": (
        planted("NaN", 1, "info", "reward_info", "info", "r_actions"),
        "result [1]: field 'info.reward_info.info.r_actions' is NaN",
    ),
    "huge_float": (planted("1e400", *KWARGS), "is 1e400, not a finite number"),
    "huge_negative_float": (
        planted("-1e999", 2, "info", "user_cost"),
        "result [2]: field 'info.user_cost' is -1e999, not a finite number",
    ),
    "huge_int_in_kwargs": (
        planted(HUGE_INT, *KWARGS),
        "field 'info.task.actions[0].kwargs.user_id' is an integer of 5000 digits, more than 4300",
    ),
    "huge_int_trial": (planted("-" + HUGE_INT, 1, "trial"), "field 'trial' is an integer"),
    "surrogate_in_message": (
        planted(r'"\ud800"', 0, "traj", 1, "content"),
        r"result [0]: field 'traj[1].content' holds a lone surrogate '\ud800', which UTF-8 "
        "cannot encode",
    ),
    "surrogate_in_key": (
        planted(r'{"\udfff": 1}', *KWARGS[:-1], data=results(3, 1)),
        "field 'info.task.actions[0].kwargs' has a key that holds a lone surrogate '\\udfff'",
    ),
    "surrogate_task_id": (
        planted(r'"t\udc80"', 2, "task_id", data=results(3, 1)),
        r"result [2]: field 'task_id' holds a lone surrogate '\udc80'",
    ),
    "deep_lists": (
        planted(nested(100_000), *KWARGS),
        f"result [0]: nested deeper than {MAX_DEPTH} levels",
    ),
    "deep_objects": (
        planted(nested(100_000, "object"), *KWARGS),
        f"result [0]: nested deeper than {MAX_DEPTH} levels",
    ),
    "deep_but_parsable": (
        planted(nested(1200), 1, "info", "reward_info", "info"),
        f"result [1]: nested deeper than {MAX_DEPTH} levels at field 'info.reward_info.info[0]",
    ),
    "repeated_key": (
        json.dumps(results()).replace('"reward": ', '"reward": 0.25, "reward": ', 1),
        "result [0]: the key 'reward' is given twice in one object",
    ),
    "line_break_in_task_id": (
        json.dumps([{**results()[0], "task_id": "a\nb"}] * 2),
        "result [1]: task \"a\\nb\" trial 0 already appears as result [0]",
    ),
}


@pytest.mark.parametrize("case", sorted(LENIENT))
def test_what_python_json_accepts_is_one_line_and_stores_nothing(
    case: str, tmp_path: Path, db: Path
) -> None:
    text, message = LENIENT[case]
    path = tmp_path / f"{case}.json"
    path.write_text(text, encoding="utf-8")
    assert message in refused(path, db)


def test_nan_reward_stays_refused(tmp_path: Path, db: Path) -> None:
    path = write(tmp_path / "nan_reward.json", planted("NaN", 0, "reward"))
    assert "result [0]: field 'reward' is NaN, not a finite number" in refused(path, db)


# ---- files that are not a results list at all (handled before; kept) -------------------
def _file(content: bytes) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = tmp / "bad.json"
        path.write_bytes(content)
        return path

    return make


UNREADABLE: dict[str, tuple[Callable[[Path], Path], str]] = {
    "empty": (_file(b""), "expected a JSON list of results, found an empty file"),
    "whitespace": (_file(b" \n\t"), "found an empty file"),
    "object": (_file(b'{"results": []}'), "expected a JSON list of results, found '{'"),
    "number": (_file(b"3"), "found '3'"),
    "null": (_file(b"null"), "found 'n'"),
    "not_utf8": (_file(json.dumps(results()).encode()[:40] + b"\xff"), "not UTF-8 near byte 40"),
    "truncated": (_file(json.dumps(results()).encode()[:-30]), "result [3]: invalid JSON"),
    "missing": (lambda tmp: tmp / "absent.json", "file not found"),
    "directory": (lambda tmp: tmp, "is a directory"),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_unreadable_files_are_one_line_and_store_nothing(
    case: str, tmp_path: Path, db: Path
) -> None:
    make, message = UNREADABLE[case]
    assert message in refused(make(tmp_path), db)


# ---- inside a tool call's arguments: that trajectory is malformed, the import goes on ----
@pytest.mark.parametrize(
    ("arguments", "fault"),
    [
        ('{"user_id": NaN}', "field 'user_id' is NaN, not a finite number"),
        ('{"user_id": 1e400}', "field 'user_id' is 1e400, not a finite number"),
        (
            '{"user_id": ' + HUGE_INT + "}",
            "field 'user_id' is an integer of 5000 digits, more than 4300",
        ),
        (r'{"user_id": "\ud800"}', r"field 'user_id' holds a lone surrogate '\ud800', which UTF-8 "
         "cannot encode"),
        ('{"user_id": ' + nested(100_000) + "}", f"nested deeper than {MAX_DEPTH} levels"),
        ('{"user_id": "a", "user_id": "b"}', "the key 'user_id' is given twice in one object"),
    ],
)
def test_hostile_tool_arguments_mark_that_trajectory_malformed(
    arguments: str, fault: str, tmp_path: Path
) -> None:
    data = results()
    data[1]["traj"][2] = call("call_1", "get_user_details", arguments)
    path = write(tmp_path / "args.json", data)
    got = invoke("import", "tau-bench", str(path), "--db", str(tmp_path / "assay.db"))
    assert got.traceback is None, got.traceback
    assert got.code == 0, got.err
    assert "4 trajectories, 1 malformed" in got.err
    store = open_store(str(tmp_path / "assay.db"))
    (bad,) = [t for t in store.trajectories(got.out.split()[-1]) if t.meta["malformed"]]
    assert bad.meta["malformed"] == [f"traj[2].tool_calls[0].function.arguments: {fault}"]


# ---- random damage ----------------------------------------------------------------------
RAW_TOKENS = (
    "NaN", "Infinity", "-Infinity", "1e400", "-1e999", HUGE_INT, "-" + HUGE_INT,
    nested(MAX_DEPTH + 1), nested(2000), nested(100_000), nested(100_000, "object"),
)
KEYS = ("task_id", "trial", "reward", "info", "task", "traj", "role", "content",
        "tool_calls", "function", "name", "arguments", "id", "tool_call_id", "kwargs")
odd_text = st.text(alphabet=st.characters(codec=None), max_size=12)
texts = (
    odd_text
    | st.builds(str.__add__, odd_text, st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))
    | st.sampled_from(("", "\n", "system", "tool", "assistant", "user", "Error: no",
                       "get_user_details", "book_reservation", "call_1", "NaN"))
)
leaves = (
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63)
    | st.floats(allow_nan=True, allow_infinity=True) | texts
    | st.sampled_from(RAW_TOKENS).map(lambda raw: ("raw", raw))
)
json_values = st.recursive(
    leaves,
    lambda kids: st.lists(kids, max_size=4)
    | st.dictionaries(st.sampled_from(KEYS) | texts, kids, max_size=4),
    max_leaves=12,
)


def _slots(node: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) in the tree, found without recursion."""
    found: list[tuple[Any, Any]] = []
    stack = [node]
    while stack:
        parent = stack.pop()
        keys = list(parent) if isinstance(parent, dict) else range(len(parent))
        for key in keys:
            found.append((parent, key))
            if isinstance(parent[key], dict | list):
                stack.append(parent[key])
    return found


@st.composite
def damaged_files(draw: st.DrawFn) -> bytes:
    """A valid file with one to three values dropped or replaced, then maybe cut or spliced."""
    holder: dict[str, Any] = {"root": results()}
    for _ in range(draw(st.integers(1, 3))):
        parent, key = draw(st.sampled_from(_slots(holder)))
        if draw(st.booleans()) and parent is not holder:
            del parent[key]
        else:
            parent[key] = draw(json_values)
    raw = _encode(holder["root"], draw(st.booleans()))
    cut = draw(st.sampled_from(("none", "none", "truncate", "insert")))
    at = draw(st.integers(0, len(raw)))
    if cut == "truncate":
        return raw[:at]
    return raw[:at] + draw(st.binary(min_size=1, max_size=8)) + raw[at:] if cut == "insert" else raw


def _outcome(got: Invocation, path: Path, runs_before: int, runs_after: int) -> str:
    if got.traceback is not None:
        return "traceback"
    if got.code == 0:
        return "import"
    one_line = got.err.count("\n") == 1 and got.err.startswith(f"error: {path}: ")
    return "error" if one_line and runs_after == runs_before else "bad error"


@pytest.mark.usefixtures("same_cases_in_any_run")
def test_random_damage_is_one_error_line_or_an_import(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    db, path = tmp_path / "fuzz.db", tmp_path / "damaged.json"
    seen: Counter[str] = Counter()
    failures: list[str] = []

    def runs() -> int:
        return open_store(str(db)).count_rows("runs") if db.exists() else 0

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(damaged_files())
    def one_file(raw: bytes) -> None:
        path.write_bytes(raw)
        before = runs()
        got = invoke("import", "tau-bench", str(path), "--db", str(db))
        outcome = _outcome(got, path, before, runs())
        seen["cases"] += 1
        seen[outcome] += 1
        if outcome in ("traceback", "bad error") and len(failures) < 3:
            failures.append(f"{outcome} for {raw[:300]!r}...:\n{got.traceback or got.err}")

    one_file()
    record_property(
        "summary",
        f"tau-bench fuzz: {seen['cases']} cases, {seen['error']} one-line errors, "
        f"{seen['import']} imports, {seen['traceback']} tracebacks",
    )
    assert not failures, "\n\n".join(failures)
    assert seen["cases"] == 300 and seen["error"] and seen["import"]
