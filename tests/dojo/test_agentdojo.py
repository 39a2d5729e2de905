"""The agentdojo system: AgentDojo's suites driven through its own runtime and checks, the
controls going red on planted benchmark defects (a check that ignores the world, a wrong
ground truth), one-line errors, and the harness's model agent against a fake server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agentdojo", reason="agentdojo is not installed (make install adds the "
                    "agentdojo extra)")

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.bands import load_bands
from agent_assay.controls.base import ControlContext
from agent_assay.controls.execute import control_context
from agent_assay.controls.headline_agreement import HeadlineAgreement
from agent_assay.controls.null_agent import NullAgentControl
from agent_assay.controls.positive_control import PositiveControl
from agent_assay.controls.random_agent import RandomAgentControl
from agent_assay.hosting.jobs import Task, act
from agent_assay.model import ToolCall
from agent_assay.runner import resolve_config
from agent_assay_bundled.agentdojo.checks import UtilityCheck
from agent_assay_bundled.agentdojo.system import AgentDojoAdapter
from agent_assay_bundled.agentdojo.world import ANSWER
from tests.llm.fake_openai import Action, call, completion, fake_server
from tests.support.dists import write_dist
from tests.support.invoke import invoke, on_path

PLANTED = Path(__file__).with_name("planted.py")


def source(tmp_path: Path, suite: str, tasks: list[str], name: str = "src") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"suite: {suite}\nmodules: [{PLANTED}]\ntasks: [{', '.join(tasks)}]\n")
    return path


@pytest.fixture
def registered(tmp_path: Path) -> Iterator[None]:
    """The adapter's entry point, registered for this test whatever the venv holds."""
    site = write_dist(tmp_path / "site", "adojo",
                      {"agentdojo": "agent_assay_bundled.agentdojo.system:AgentDojoAdapter"})
    with on_path(site):
        yield


def certified(tmp_path: Path, spec: Path) -> tuple[Any, Any, Any]:
    store = api.open_db(str(tmp_path / f"{spec.stem}.db"))
    system = load_system(AgentDojoAdapter())
    run = api.run_to_certify(store, system, run=None, config="ground_truth", source=spec)
    return store, system, run


def judged(control: Any, ctx: ControlContext) -> Any:
    bands = load_bands(ctx.adapter.facts.bands)
    return control.run(ctx, bands.get(control.kind))


@pytest.mark.parametrize(("text", "message"), [
    ("suite: nosuch\n", "src.yaml:1: unknown AgentDojo suite 'nosuch' at v1.2.2 (known: "),
    ("suite: banking@v9\n", "src.yaml:1: unknown AgentDojo benchmark version 'v9' "
                            "(agentdojo 0.1.35 has: v1, v1.1, v1.1.1, v1.1.2, v1.2, v1.2.1, "
                            "v1.2.2)"),
    ("suite: banking\ntasks: [user_task_99]\n", "src.yaml:2: banking@v1.2.2 has no user task "
                                                "'user_task_99'"),
    ("suite: banking\nvariant: attack\n", "src.yaml:2: field 'variant' must be one of utility, "
                                          "security, got 'attack'"),
])
def test_a_bad_source_is_one_line_naming_the_file_and_line(
    tmp_path: Path, registered: None, text: str, message: str
) -> None:
    spec = tmp_path / "src.yaml"
    spec.write_text(text)
    done = invoke("suite", "build", "--adapter", "agentdojo", "--source", str(spec),
                  "--db", str(tmp_path / "s.db"))
    assert done.traceback is None and done.code == 1
    assert done.err.count("\n") == 1 and done.err.startswith("error: "), done.err
    assert message in done.err
    assert not (tmp_path / "s.db").exists()


def test_without_the_package_the_error_names_the_extra(
    tmp_path: Path, registered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "agentdojo.task_suite.load_suites", None)
    done = invoke("suite", "build", "--adapter", "agentdojo", "--db", str(tmp_path / "s.db"))
    assert done.traceback is None and done.code == 1
    assert done.err == ("error: the agentdojo system needs the agentdojo package: install "
                        "agent-assay[agentdojo]\n")
    assert not (tmp_path / "s.db").exists()


def test_planted_benchmark_defects_turn_the_controls_red_naming_the_tasks(
    tmp_path: Path,
) -> None:
    """user_task_0's ground truth is wrong; user_task_1 and 2 pass whatever happens."""
    spec = source(tmp_path, "banking_planted", ["user_task_0", "user_task_1", "user_task_2"])
    store, system, run = certified(tmp_path, spec)
    # one context for the four controls, as a certification has: one agent process then
    # executes the environment for all of them
    ctx = control_context(store, system, run, 2)
    try:
        positive = judged(PositiveControl(), ctx)
        assert positive.status == "FAILED"
        assert "first item below ceiling: item user_task_0: agentdojo.utility 0.0" \
            in positive.summary, positive.summary
        for control in (NullAgentControl(), RandomAgentControl()):
            got = judged(control, ctx)
            assert got.status == "FAILED", (control.kind, got.summary)
        agreement = judged(HeadlineAgreement(), ctx)
        assert agreement.status == "FAILED"
        assert "do_nothing 2 (user_task_1, user_task_2)" in agreement.summary, \
            agreement.summary
    finally:
        ctx.environment().close()


def test_controls_run_through_the_cli_reach_a_verdict_and_show_the_benchmarks_choices(
    tmp_path: Path, registered: None
) -> None:
    spec = source(tmp_path, "banking", ["user_task_0", "user_task_5"])
    done = invoke("controls", "run", "--adapter", "agentdojo", "--source", str(spec),
                  "--config", "ground_truth", "--db", str(tmp_path / "cli.db"))
    assert done.traceback is None and done.code == 3, done.err
    flat = " ".join(done.out.split())
    assert "run INADMISSIBLE" in flat
    assert "positive_control PASSED oracle replay: agentdojo.utility 1.0" in flat
    assert "null_agent PASSED do_nothing: 0 tool calls; agentdojo.utility 0.5" in flat
    assert "headline metrics that are the system's own scorers: agentdojo.utility" in flat
    # banking's user_task_5 passes its check when nothing is done
    assert "do_nothing 1 (user_task_5)" in flat


def model(body: dict[str, Any]) -> Action:
    """Reads the balance, then answers: in plain text on one task, by the answer tool on
    the other."""
    turns = sum(m["role"] == "assistant" for m in body["messages"])
    asked = body["messages"][1]["content"]
    if turns == 0:
        return completion(calls=[call("get_balance")])
    if "bill" in asked:
        return completion(content="I paid nothing.")
    return completion(calls=[call(ANSWER, answer="1810.0")])


def test_the_model_agent_answers_in_text_or_by_the_answer_tool_and_the_check_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter = AgentDojoAdapter()
    suite = adapter.build_suite(source(tmp_path, "banking", ["user_task_0", "user_task_1"]))
    system = load_system(adapter)
    config = resolve_config(system, "smollm2-t0")
    with fake_server(model) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        done = [act(system, Task(item.public(), config, 7, 1)) for item in suite.items]
    scorer, ctx = UtilityCheck(), system.scoring_context()
    scores = [scorer.score(item.gold, t, ctx) for item, t in zip(suite.items, done, strict=True)]
    assert [t.steps[0].call.tool for t in done] == ["get_balance", "get_balance"]
    assert done[0].meta["final_answer"] == "I paid nothing."
    assert done[1].meta["final_answer"] == "1810.0"
    assert [s.detail["model_output"] for s in scores if s.detail] == ["I paid nothing.", "1810.0"]
    assert [s.value for s in scores] == [0.0, 0.0]


def test_mutating_tools_are_learned_from_the_suites_own_ground_truths(tmp_path: Path) -> None:
    system = load_system(AgentDojoAdapter())
    assert system.facts.mutating_tools == ()
    system.build_suite(source(tmp_path, "banking", ["user_task_0"]))
    assert system.facts.mutating_tools == ("schedule_transaction", "send_money",
                                           "update_password", "update_scheduled_transaction",
                                           "update_user_info")
    # a tool named like a read that changes the world: slack logs every page fetched
    system.build_suite(source(tmp_path, "slack", ["user_task_0"], "slack"))
    assert "get_webpage" in system.facts.mutating_tools
    assert "read_channel_messages" not in system.facts.mutating_tools


def test_a_check_that_raises_on_the_world_left_is_a_failed_task_with_the_exception_kept(
    tmp_path: Path,
) -> None:
    """Slack's user_task_1 check reads Alice's inbox; an agent that removed Alice leaves a
    world it cannot read (agentdojo's own benchmark would stop on the KeyError)."""
    adapter = AgentDojoAdapter()
    suite = adapter.build_suite(source(tmp_path, "slack", ["user_task_1"]))
    system = load_system(adapter)
    view = system.replay_view()
    assert view is not None
    [item] = suite.items
    left = view.replay(item.public(), [ToolCall("remove_user_from_slack", {"user": "Alice"})],
                       seed=0)
    got = UtilityCheck().score(item.gold, left, system.scoring_context())
    assert got.value == 0.0
    assert got.detail is not None and got.detail["raised"].startswith("KeyError: 'Alice' at ")
