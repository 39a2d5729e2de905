"""Reading tau-bench results files: the streaming reader, validation, and every bad input.

Synthetic files are built here (and imported by the other tau-bench test modules)
so each fault can be planted in an otherwise valid file. A file-level fault is a
one-line AssayError naming the result's index and field, and nothing is stored;
a fault inside one result's messages is recorded on that trajectory instead.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_assay import cli
from agent_assay.cli import DEFAULT_DB
from agent_assay.errors import AssayError
from agent_assay.store import Store
from agent_assay.views.load import passk_report
from agent_assay.views.passk import render_passk
from agent_assay_bundled.tau_bench.importer import import_results
from agent_assay_bundled.tau_bench.parse import UNPARSED, _ArrayReader, parse_results

TABLES = ("suites", "items", "configs", "runs", "run_env", "trajectories", "scores", "run_events")
REAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "tau-bench"


def real_file() -> Path:
    """The published gpt-4o airline file, or a skip that says where it was looked for."""
    path = (REAL / "gpt-4o-airline.json").resolve()
    if not path.is_file():
        reason = f"tau-bench data not found at {path}"
        print(reason)
        pytest.skip(reason)
    return path


# ---- synthetic files ------------------------------------------------------------
def call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "content": None,
        "role": "assistant",
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
        ],
    }


def tool(call_id: str, name: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}


def default_traj(task_id: int) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "# Airline Agent Policy"},
        {"role": "user", "content": "Hi, please look me up."},
        call("call_1", "get_user_details", {"user_id": f"user_{task_id}"}),
        tool("call_1", "get_user_details", '{"name": "X"}'),
        {"role": "assistant", "content": "You are user X."},
        {"role": "user", "content": "###STOP###"},
    ]


def result(
    task_id: int,
    trial: int,
    reward: float = 1.0,
    *,
    actions: list[dict[str, Any]] | None = None,
    outputs: tuple[str, ...] = (),
    traj: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    gold = (
        actions
        if actions is not None
        else [{"name": "get_user_details", "kwargs": {"user_id": f"user_{task_id}"}}]
    )
    return {
        "task_id": task_id,
        "reward": reward,
        "info": {
            "task": {
                "user_id": f"user_{task_id}",
                "actions": gold,
                "instruction": f"You are user_{task_id}.",
                "outputs": list(outputs),
            },
            "source": "user",
            "user_cost": 0.001,
            "reward_info": {"reward": reward, "info": {"r_actions": reward}, "actions": gold},
        },
        "traj": traj if traj is not None else default_traj(task_id),
        "trial": trial,
    }


def results(tasks: int = 2, trials: int = 2) -> list[dict[str, Any]]:
    return [result(t, r) for r in range(trials) for t in range(tasks)]


def write(path: Path, data: Any) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def row_counts(store: Store) -> dict[str, int]:
    return {table: store.count_rows(table) for table in TABLES}


# ---- the streaming reader -------------------------------------------------------
@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 16])
def test_reader_matches_json_loads_at_any_chunk_size(chunk: int) -> None:
    data = [
        {"a": 12345678901234567890, "b": [1.5e-3, -0.0, True, None], "s": "é ü 漢字 🙂 \" \\ ,]"},
        [],
        {},
        -17,
        "tail",
    ]
    raw = (" \n [ " + ",\n ".join(json.dumps(d, ensure_ascii=False) for d in data) + " ] \n")
    reader = _ArrayReader(io.BytesIO(raw.encode("utf-8")), "mem", chunk)
    assert [v for _, v in reader.elements()] == data
    import hashlib

    assert reader.digest.hexdigest() == hashlib.sha256(raw.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "not a tau-bench results file: expected a JSON list of results, found an empty file"),
        ('{"task_id": 0}', "expected a JSON list of results, found '{'"),
        ("[1, 2", "result [1]: expected ',' or ']' after it, found end of file"),
        ('[{"a": 1}, {"a": ', "result [1]: invalid JSON"),
        ("[1] 2", "data after the list"),
        ("[1,,2]", "result [1]: invalid JSON"),
        ("[0, NaN]", "result [1]: the value is NaN, not a finite number"),
        ('[{"a": [-Infinity]}]', "result [0]: field 'a[0]' is -Infinity, not a finite number"),
        ('[{"a": 1e400}]', "result [0]: field 'a' is 1e400, not a finite number"),
        ('[{"a\\udc00": 1}]', "result [0]: the value has a key that holds a lone surrogate"),
        ("[" + "[" * 5000 + "]" * 5000 + "]", "result [0]: nested deeper than 100 levels"),
    ],
)
def test_reader_refuses_what_is_not_one_json_list(raw: str, message: str) -> None:
    reader = _ArrayReader(io.BytesIO(raw.encode("utf-8")), "f.json", 4)
    with pytest.raises(AssayError, match=message.replace("[", r"\[").replace("]", r"\]")):
        list(reader.elements())


def test_memory_stays_within_a_few_times_the_file() -> None:
    import tracemalloc

    path = real_file()
    tracemalloc.start()
    try:
        parse_results(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = path.stat().st_size
    assert peak < 3 * size, f"peak {peak} bytes for a {size}-byte file"


# ---- file-level faults: one line, index and field, nothing written ---------------
def _set(index: int, key: str, value: Any) -> Callable[[list[Any]], Any]:
    def mutate(data: list[Any]) -> Any:
        data[index][key] = value
        return data

    return mutate


def _drop(index: int, key: str) -> Callable[[list[Any]], Any]:
    def mutate(data: list[Any]) -> Any:
        del data[index][key]
        return data

    return mutate


def _task(index: int, key: str, value: Any) -> Callable[[list[Any]], Any]:
    def mutate(data: list[Any]) -> Any:
        data[index]["info"]["task"][key] = value
        return data

    return mutate


FILE_FAULTS: dict[str, tuple[Callable[[list[Any]], Any], str]] = {
    "not_a_list": (lambda d: {"results": d}, "expected a JSON list of results, found '{'"),
    "empty_list": (lambda d: [], "the list is empty"),
    "not_an_object": (lambda d: [*d[:2], 7, *d[3:]], "result [2]: expected an object, got int"),
    "missing_task_id": (_drop(1, "task_id"), "result [1]: missing field 'task_id'"),
    "missing_reward": (_drop(3, "reward"), "result [3]: missing field 'reward'"),
    "reward_not_a_number": (
        _set(0, "reward", "1.0"),
        "result [0]: field 'reward' must be a number from 0 to 1, got \"1.0\"",
    ),
    "reward_out_of_range": (
        _set(2, "reward", 2),
        "result [2]: field 'reward' must be a number from 0 to 1, got 2",
    ),
    "missing_trial": (_drop(2, "trial"), "result [2]: missing field 'trial'"),
    "traj_not_a_list": (
        _set(1, "traj", {"role": "user"}),
        "result [1]: field 'traj' must be a list of messages",
    ),
    "missing_task": (
        lambda d: [*d[:1], {**d[1], "info": {}}, *d[2:]],
        "result [1]: missing field 'info.task'",
    ),
    "action_kwargs_not_object": (
        _task(0, "actions", [{"name": "get_user_details", "kwargs": "user_0"}]),
        "result [0]: field 'info.task.actions[0].kwargs' must be an object",
    ),
    "action_not_airline": (
        _task(0, "actions", [{"name": "cancel_pending_order", "kwargs": {}}]),
        "result [0]: field 'info.task.actions[0].name' is 'cancel_pending_order', not a "
        "tau-bench airline tool",
    ),
    "outputs_not_strings": (
        _task(0, "outputs", [327]),
        "result [0]: field 'info.task.outputs' must be a list of strings",
    ),
    "task_defined_twice": (
        _task(2, "instruction", "something else"),
        "result [2]: task 0 is defined differently (field 'info.task') than in result [0]",
    ),
    "duplicate_trial": (
        _set(3, "trial", 0),
        "result [3]: task 1 trial 0 already appears as result [1] (field 'trial')",
    ),
    "unequal_trials": (
        lambda d: [*d, result(0, 2)],
        "trials of unequal count per task (field 'trial'): 2 trials: task 1; 3 trials: task 0",
    ),
    "models_disagree": (
        lambda d: [{**r, "model": f"m{i % 2}"} for i, r in enumerate(d)],
        "results disagree on the model: 'm0' (result [0]), 'm1' (result [1])",
    ),
}


@pytest.mark.parametrize("case", sorted(FILE_FAULTS))
def test_file_level_faults_are_one_line_and_write_nothing(
    case: str, tmp_path: Path, store: Store
) -> None:
    mutate, message = FILE_FAULTS[case]
    path = write(tmp_path / f"{case}.json", mutate(results()))
    before = row_counts(store)
    with pytest.raises(AssayError) as caught:
        import_results(store, path)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(f"{path}: ")
    assert message in text
    assert row_counts(store) == before


def test_unequal_trials_names_the_first_short_task(tmp_path: Path) -> None:
    data = [result(t, r) for t in range(3) for r in range(3) if (t, r) != (1, 2)]
    with pytest.raises(AssayError) as caught:
        parse_results(write(tmp_path / "short.json", data))
    assert str(caught.value) == (
        f"{tmp_path / 'short.json'}: result [3]: trials of unequal count per task "
        "(field 'trial'): 2 trials: task 1; 3 trials: task 0, 2"
    )


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(AssayError, match="file not found"):
        parse_results(tmp_path / "absent.json")
    with pytest.raises(AssayError, match="is a directory"):
        parse_results(tmp_path)


def run_cli(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["agent-assay", *args])
    with pytest.raises(SystemExit) as caught:
        cli.main()
    out, err = capsys.readouterr()
    return int(caught.value.code or 0), out, err


@pytest.mark.parametrize("case", sorted(FILE_FAULTS))
def test_cli_prints_one_error_line_and_stores_nothing(
    case: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mutate, message = FILE_FAULTS[case]
    path = write(tmp_path / "bad.json", mutate(results()))
    db = tmp_path / "assay.db"
    code, out, err = run_cli(["import", "tau-bench", str(path), "--db", str(db)], monkeypatch,
                             capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"error: {path}: ") and message in err
    assert "Traceback" not in err
    assert not db.exists()  # refused before any store was opened


def test_cli_default_db_is_the_cli_default() -> None:
    assert DEFAULT_DB == cli.DEFAULT_DB


# ---- per-trajectory faults: recorded, counted, not fatal ----------------------------
def test_bad_tool_arguments_mark_that_trajectory_malformed(tmp_path: Path, store: Store) -> None:
    data = results()
    data[1]["traj"][2] = call("call_1", "get_user_details", '{"user_id": "user_1"')
    data[2]["traj"].append(tool("call_9", "think", ""))
    imported = import_results(store, write(tmp_path / "faults.json", data))
    by_slot = {(t.item_id, t.repetition): t for t in store.trajectories(imported.run.run_id)}
    bad = by_slot[("001", 1)]
    assert bad.meta["malformed"] == [
        "traj[2].tool_calls[0].function.arguments: not valid JSON (Expecting ',' delimiter "
        "at char 20)"
    ]
    assert bad.error is not None and bad.error.startswith("malformed: traj[2].tool_calls[0]")
    assert not bad.crashed
    assert bad.steps[0].call.args == {UNPARSED: '{"user_id": "user_1"'}
    assert by_slot[("000", 2)].meta["malformed"] == [
        "traj[6].tool_call_id: 'call_9' answers no pending tool call"
    ]
    assert len(store.trajectories(imported.run.run_id)) == 4
    events = [e for e in store.events(imported.run.run_id) if e.event == "item_malformed"]
    assert [(e.detail["item_id"], e.detail["result_index"]) for e in events] == [
        ("000", 2),
        ("001", 1),
    ]
    report = passk_report(store, imported.run)
    assert len(report.faults["malformed"]) == 2
    text = render_passk(report)
    assert "malformed trajectories: 2" in text
    assert "001/1: traj[2].tool_calls[0].function.arguments: not valid JSON" in text
    # the published reward is kept: the fault is in the record, not in what tau-bench judged
    rewards = {(r.item_id, r.repetition): r for r in store.current_scores(imported.run.run_id)
               if r.scorer == "tau.reward"}
    assert rewards[("001", 1)].value == 1.0 and rewards[("001", 1)].imported


def test_model_is_recorded_when_present_and_the_trials_rank_into_repetitions(
    tmp_path: Path, store: Store
) -> None:
    data = [{**result(t, r), "info": {**result(t, r)["info"], "model": "gpt-x"}}
            for t in range(2) for r in (3, 7)]
    imported = import_results(store, write(tmp_path / "m.json", data), name="gpt-x-run")
    run = imported.run
    assert run.env["model"] == "gpt-x" and run.config_name == "gpt-x-run"
    assert store.get_config(run.config_hash).params["model"] == "gpt-x"
    assert run.repeats == 2
    assert {(t.item_id, t.repetition, t.meta["trial"])
            for t in store.trajectories(run.run_id)} == {
        ("000", 1, 3), ("000", 2, 7), ("001", 1, 3), ("001", 2, 7)
    }
    plain = import_results(store, write(tmp_path / "plain.json", results()))
    assert "model" not in plain.run.env and plain.run.config_name == "plain"
