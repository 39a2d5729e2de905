"""valid-action, the environment itself: its own baselines script reproduces its published
figures and agent-assay's offline path reproduces the script; through the rollout path the
create tool each oracle plan starts with is never offered, so the positive control fails
there, naming that step, and passes on the environment's core functions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers", reason="verifiers is not installed (make install adds it)")
pytest.importorskip("valid_action", reason="valid-action is not installed: make install "
                    "installs it from ../shared/data/valid-action when that folder is there")

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.bands import load_bands
from agent_assay.controls.execute import control_context
from agent_assay.controls.positive_control import PositiveControl
from agent_assay_bundled.verifiers_env import valid_action_bridge as bridge
from agent_assay_bundled.verifiers_env.rollout import load_environment, run_rollout, tasks
from agent_assay_bundled.verifiers_env.scripted import Scripted
from agent_assay_bundled.verifiers_env.system import OfflineVerifiersAdapter, VerifiersAdapter

FOLDER = Path(__file__).resolve().parents[3] / "shared" / "data" / "valid-action"
needs_folder = pytest.mark.skipif(not FOLDER.is_dir(), reason=f"{FOLDER} is absent")


@needs_folder
def test_its_baselines_script_reproduces_the_published_figures() -> None:
    rows = {r["baseline"]: r["mean_reward"] for r in bridge.published_baselines(FOLDER, {})}
    assert rows == {"random": 0.0, "naive_max_approval": 0.1875, "keyword_heuristic": 0.1875,
                    "oracle_replay": 1.0, "search_only": 0.0}


@needs_folder
def test_the_offline_path_reproduces_the_script_on_the_scripts_own_worlds() -> None:
    published = {r["baseline"]: r["mean_reward"]
                 for r in bridge.published_baselines(FOLDER, {"num_eval": 6})}
    va = bridge.ValidActionBridge()
    got: dict[str, list[float]] = {}
    for task in bridge.script_tasks(6, 17, "medium"):
        for name, plan in bridge.baseline_plans(FOLDER, task, 17).items():
            got.setdefault(name, []).append(va.offline_reward(task, plan).reward)
    assert {name: sum(v) / len(v) for name, v in got.items()} == published


def test_the_create_tool_each_oracle_plan_starts_with_is_never_offered() -> None:
    env = load_environment("valid_action", {"num_eval": 2})
    va = bridge.ValidActionBridge()
    for task in tasks(env):
        plan = va.oracle_plan(task)
        assert plan[0].tool == task.task["toolsets"]["action_create"]["show"][0]
        assert va.offline_reward(task, plan).reward == 1.0
        done = run_rollout(env, task, Scripted(plan))
        assert done.reward == 0.0
        assert not any(name.startswith("create_") for name in done.offered_ever())
        assert done.calls[0].tool == plan[0].tool and done.calls[0].offered is False


def _positive(tmp_path: Path, adapter: Any) -> Any:
    source = tmp_path / "va.yaml"
    source.write_text(f"environment: {FOLDER}\nargs: {{num_eval: 2}}\n")
    store = api.open_db(str(tmp_path / f"{adapter.name}.db"))
    system = load_system(adapter)
    run = api.run_to_certify(store, system, run=None, config="oracle", source=source)
    control = PositiveControl()
    return control.run(control_context(store, system, run, 2),
                       load_bands(system.facts.bands).get(control.kind))


@needs_folder
def test_the_positive_control_fails_through_the_framework_and_names_the_step(
    tmp_path: Path,
) -> None:
    got = _positive(tmp_path, VerifiersAdapter())
    assert got.status == "FAILED"
    assert got.measured["scores"]["env.reward"] == 0.0
    cause = got.measured["first_failing_step"]
    assert cause.startswith("item task-00000, step 1 (create_") and "not offered" in cause


@needs_folder
def test_the_positive_control_passes_on_the_core_functions(tmp_path: Path) -> None:
    got = _positive(tmp_path, OfflineVerifiersAdapter())
    assert got.status == "PASSED", got.summary
    assert got.measured["scores"] == {"env.reward": 1.0, "tools.recall": 1.0}


def test_a_world_held_as_the_rollout_stores_it_makes_the_create_tool_raise() -> None:
    env = load_environment("valid_action", {"num_eval": 1})
    task = tasks(env)[0]
    va = bridge.ValidActionBridge()
    stored = va.offline_reward(task, va.oracle_plan(task), as_stored=True)
    assert stored.reward == 0.0
    assert stored.calls[0].error is not None and stored.calls[0].error.startswith(
        "raised NameError")
