"""The inspect system's parts: items, tools and gold from the task, the mock config's
script, the model agent, sources named every way, and one-line errors on bad input."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.hosting.jobs import Task, act
from agent_assay.model import ToolCall
from agent_assay.runner import resolve_config
from agent_assay_bundled.inspect_task.checks import TaskScorer
from agent_assay_bundled.inspect_task.source import names_task
from agent_assay_bundled.inspect_task.system import InspectTaskSystem
from tests.inspect_task.tasks import write_task
from tests.llm.fake_openai import Action, call, completion, fake_server
from tests.support.invoke import invoke


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ledger task written once for the module: a process loads a task file once and
    plays gold's prefixes once per loaded task, so the tests that only read it share it; three
    samples, the fewest the tests below tell apart (s0 and s1 run, s2 beside them)."""
    return write_task(tmp_path_factory.mktemp("ledger") / "task", samples=3)


def test_items_tools_and_gold_come_from_the_task(ledger: Path) -> None:
    system = InspectTaskSystem()
    suite = system.build_suite(ledger)
    assert [i.item_id for i in suite.items] == ["s0", "s1", "s2"]
    first = suite.items[0]
    assert first.input == {"prompt": "Record 3 in the ledger, then say the total."}
    assert first.gold.truth["target"] == ["3"]
    assert first.gold.path == (ToolCall("record", {"amount": 3}),
                               ToolCall("submit_answer", {"answer": "3"}))
    assert [(a.path, a.equals) for a in first.gold.assertions] == [("store.total", 3)]
    assert [t.name for t in system.tools(first.public())] == ["record", "submit_answer"]
    assert sorted(system.argument_pools()["amount"]) == [3, 4, 5]
    assert system.learned_facts(system.facts).mutating_tools == ("record",)


def test_the_mock_config_plays_its_script_through_the_tasks_solver(tmp_path: Path, ledger: Path
                                                                  ) -> None:
    spec = ledger
    store = api.open_db(str(tmp_path / "m.db"))
    system = load_system(InspectTaskSystem())
    script = json.dumps({"s0": [{"tool": "record", "args": {"amount": 3}}, {"answer": "3"}],
                         "*": [{"tool": "record", "args": {"amount": "x"}}]})
    done = api.evaluate(system, "mock", store=store, source=spec, settings={"script": script})
    run = done.run_id
    trajectories = {t.item_id: t for t in store.trajectories(run)}
    assert trajectories["s0"].final_state == {"store": {"total": 3}}
    assert trajectories["s0"].steps[0].result == "total 3"
    wrong = trajectories["s1"].steps[0]
    assert not wrong.ok and wrong.error is not None and "parsing" in wrong.error
    scores = {s.item_id: s.value for s in store.current_scores(run)
              if s.scorer == "inspect.ledger_total"}
    assert scores["s0"] == 1.0 and scores["s1"] == 0.0


TWO_TASKS = "from inspect_ai import Task, task\n\n@task\ndef a():\n    return Task(dataset=[])\n" \
            "\n@task\ndef b():\n    return Task(dataset=[])\n"
NO_ID = ("from inspect_ai import Task, task\nfrom inspect_ai.dataset import Sample\n\n@task\n"
         "def t():\n    return Task(dataset=[Sample(input='hi', target='x')])\n")
SAME_ID = ("from inspect_ai import Task, task\nfrom inspect_ai.dataset import Sample\n\n@task\n"
           "def t():\n    return Task(dataset=[Sample(id=1, input='a', target='x'), "
           "Sample(id=1, input='b', target='y')])\n")
RAISES = "from inspect_ai import Task, task\n\n@task\ndef t():\n    raise RuntimeError('no data')\n"
BROKEN = "import no_such_module_here\n" + RAISES


@pytest.mark.parametrize(("files", "yaml", "message"), [
    ({}, "task: missing.py\n", "src.yaml:1: no task file "),
    ({}, "task: inspect_evals/no_such_task\n", "unknown Inspect task 'inspect_evals/no_such_task'"),
    ({}, "task: nosuchpackage\n", "unknown Inspect task 'nosuchpackage': a registry task is "
                                  "package/name"),
    ({"t.py": TWO_TASKS}, "task: t.py\n", "t.py holds 2 tasks (a, b): name one as t.py@TASK"),
    ({"t.py": TWO_TASKS}, "task: t.py@c\n", "t.py has no task 'c' (it has: a, b)"),
    ({"t.py": NO_ID}, "task: t.py\n", "/t.py: sample 1 (input 'hi') has no id"),
    ({"t.py": SAME_ID}, "task: t.py\n", "/t.py: sample 2 repeats the id '1'"),
    ({"t.py": RAISES}, "task: t.py\n", "/t.py failed to load: RuntimeError: no data at "),
    ({"t.py": BROKEN}, "task: t.py\n", "/t.py fails to load: ModuleNotFoundError: No module "
                                       "named 'no_such_module_here'"),
    ({"t.py": NO_ID}, "task: t.py\nargs: {size: 3}\n", "/t.py: arguments ['size'] refused: "),
    ({"x.py": NO_ID}, "task: x.py\nlimit: 0\n",
     "src.yaml:2: field 'limit' must be a positive integer"),
])
def test_bad_input_is_one_line_naming_what_is_wrong_and_writes_nothing(
    tmp_path: Path, registered: Path, files: dict[str, str], yaml: str, message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    spec = tmp_path / "src.yaml"
    spec.write_text(yaml)
    db = tmp_path / "s.db"
    done = invoke("run", "--adapter", "inspect", "--source", str(spec), "--config", "oracle",
                  "--db", str(db))
    assert done.traceback is None and done.code == 1, done
    assert done.err.count("\n") == 1 and done.err.startswith("error: "), done.err
    assert message in done.err, done.err
    assert not db.exists() or api.open_db(str(db)).list_runs() == []


def test_a_bad_script_is_refused_before_a_run_is_written(tmp_path: Path, registered: Path,
                                                         ledger: Path) -> None:
    spec = ledger
    db = tmp_path / "s.db"
    done = invoke("run", "--adapter", "inspect", "--source", str(spec), "--config", "mock",
                  "-M", "script=[{\"say\": 1}]", "--db", str(db))
    assert done.traceback is None and done.code == 1, done
    assert done.err.startswith("error: -M script: output {'say': 1} for '*' is neither ")
    assert done.err.count("\n") == 1
    assert not db.exists() or api.open_db(str(db)).list_runs() == []


def test_without_the_package_the_error_names_the_extra(
    tmp_path: Path, registered: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    spec = tmp_path / "t.py"
    spec.write_text(NO_ID)
    done = invoke("run", "--adapter", "inspect", "--source", str(spec), "--config", "oracle",
                  "--db", str(tmp_path / "s.db"))
    assert done.traceback is None and done.code == 1
    assert done.err == ("error: the inspect system needs the inspect_ai package: install "
                        "agent-assay[inspect]\n")


def ledger_model(body: dict[str, Any]) -> Action:
    """Records the amount the request names, then answers the total in plain text."""
    turns = sum(m["role"] == "assistant" for m in body["messages"])
    asked = int(re.findall(r"Record (\d+)", body["messages"][1]["content"])[0])
    if turns == 0:
        return completion(calls=[call("record", amount=asked)])
    return completion(content=str(asked))


def test_the_model_agent_drives_the_tasks_tools_and_its_scorer_reads_the_answer(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter = InspectTaskSystem()
    suite = adapter.build_suite(ledger)
    system = load_system(adapter)
    config = resolve_config(system, "smollm2-t0")
    first, second = suite.items[:2]
    with fake_server(ledger_model) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        done = [act(system, Task(item.public(), config, 7, 1)) for item in (first, second)]
    assert [t.steps[0].result for t in done] == ["total 3", "total 4"]
    assert [t.meta["final_answer"] for t in done] == ["3", "4"]
    scorer = TaskScorer("ledger_total")
    got = [scorer.score(i.gold, t, system.scoring_context()) for i, t in zip((first, second), done,
                                                                             strict=True)]
    assert [g.value for g in got] == [1.0, 1.0]
    # the same answer scored against the other sample's gold (shuffled targets) fails
    assert scorer.score(second.gold, done[0], system.scoring_context()).value == 0.0


def test_a_file_holding_one_task_is_a_source_with_the_tasks_defaults(tmp_path: Path) -> None:
    write_task(tmp_path / "task")
    suite = InspectTaskSystem().build_suite(tmp_path / "task" / "ledger.py")
    assert len(suite.items) == 10
    assert suite.source.startswith("inspect:") and '"args":{}' in suite.source


PORT = ('task: inspect_evals/agentdojo\nargs: {with_sandbox_tasks: "no", workspace: banking, '
        "with_injections: false}\nlimit: 2\n")


def test_a_registry_task_runs_offline_and_a_bad_argument_names_it(tmp_path: Path,
                                                                  registered: Path) -> None:
    """inspect_evals' AgentDojo port ships its data: it loads with no network; an argument
    it cannot use is one line naming the task and what the task raised."""
    pytest.importorskip("inspect_evals", reason="inspect_evals is not installed")
    good = tmp_path / "port.yaml"
    good.write_text(PORT)
    suite = InspectTaskSystem().build_suite(good)
    assert [i.item_id for i in suite.items] == ["banking-u0", "banking-u1"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(PORT.replace("workspace: banking", "workspace: nosuchsuite"))
    done = invoke("run", "--adapter", "inspect", "--source", str(bad), "--config", "oracle",
                  "--db", str(tmp_path / "s.db"))
    assert done.traceback is None and done.code == 1, done
    assert done.err.count("\n") == 1
    assert done.err.startswith("error: task inspect_evals/agentdojo failed to load: KeyError: "
                               "'nosuchsuite' at "), done.err


def test_a_missing_source_file_is_one_line_naming_it(tmp_path: Path, registered: Path) -> None:
    missing = tmp_path / "nope.py"
    db = tmp_path / "s.db"
    done = invoke("run", "--adapter", "inspect", "--source", str(missing), "--config", "oracle",
                  "--db", str(db))
    assert done.traceback is None and done.code == 1, done
    assert done.err == f"error: --source {missing}: no such file or directory\n"
    assert not db.exists()


def test_a_task_named_on_the_command_line_needs_no_yaml(tmp_path: Path, registered: Path
                                                        ) -> None:
    """`--source FILE.py@NAME` and `--source package/name` name a task with its defaults,
    with no file of that name; a name ending like a file is a missing file."""
    db = tmp_path / "s.db"
    spec = write_task(tmp_path / "named")
    named = invoke("suite", "build", "--adapter", "inspect", "--source",
                   f"{spec.parent / 'ledger.py'}@ledger", "--db", str(db))
    assert named.traceback is None and named.code == 0, named.err
    unknown = invoke("suite", "build", "--adapter", "inspect", "--source",
                     "inspect_evals/no_such_task", "--db", str(tmp_path / "u.db"))
    assert unknown.code == 1 and "unknown Inspect task 'inspect_evals/no_such_task'" in unknown.err
    assert (names_task("inspect_evals/agentdojo"), names_task("t.py@a"), names_task("t.yaml"),
            names_task("t.py")) == (True, True, False, False)
