"""The verifiers adapter: an environment's tasks as a suite, agents driven through its
rollout path, and the positive control naming the environment as the cause when its own
oracle plan cannot reach the ceiling there."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers", reason="verifiers is not installed (make install adds it)")

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.bands import load_bands
from agent_assay.controls.execute import control_context
from agent_assay.controls.positive_control import PositiveControl
from agent_assay.controls.shuffled_gold import ShuffledGold
from agent_assay.errors import AssayError
from agent_assay.model import Run
from agent_assay.store import Store
from agent_assay_bundled.verifiers_env.scoring import EnvironmentReward
from agent_assay_bundled.verifiers_env.system import VerifiersAdapter

TINY = Path(__file__).resolve().parents[1] / "support" / "tiny_verifiers.py"


def _source(tmp_path: Path, flaw: str) -> Path:
    spec = tmp_path / f"{flaw}.yaml"
    spec.write_text(f"environment: {TINY}\nargs: {{flaw: {flaw}}}\n")
    return spec


def _oracle_run(tmp_path: Path, flaw: str, config: str = "oracle",
                adapter: VerifiersAdapter | None = None) -> tuple[Store, Any, Run]:
    store = api.open_db(str(tmp_path / f"{flaw}.db"))
    system = load_system(adapter or VerifiersAdapter())
    run = api.run_to_certify(store, system, run=None, config=config,
                             source=_source(tmp_path, flaw))
    return store, system, run


def _control(control: Any, store: Store, system: Any, run: Run) -> Any:
    bands = load_bands(system.facts.bands)
    return control.run(control_context(store, system, run, 2), bands.get(control.kind))


@pytest.fixture(scope="module")
def sound_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Any, Run]:
    """One oracle run of the sound environment, for the tests that only read it (each run
    starts an agent process that imports verifiers)."""
    return _oracle_run(tmp_path_factory.mktemp("sound"), "none")


def test_a_correct_environment_passes_the_positive_control(sound_run: tuple[Store, Any, Run]
                                                           ) -> None:
    store, system, run = sound_run
    got = _control(PositiveControl(), store, system, run)
    assert got.status == "PASSED", got.summary
    assert got.measured["scores"] == {"env.reward": 1.0, "tools.recall": 1.0}


@pytest.mark.parametrize(("flaw", "cause"), [
    ("never_offered", "step 2 (submit): not offered with request 2 (offered: lookup)"),
    ("stingy", None),
])
def test_a_broken_environment_fails_it_with_the_environment_named(
    tmp_path: Path, flaw: str, cause: str | None
) -> None:
    store, system, run = _oracle_run(tmp_path, flaw)
    got = _control(PositiveControl(), store, system, run)
    assert got.status == "FAILED"
    assert "no agent ran, so the environment, the adapter or a scorer is at fault" in got.summary
    if cause is None:
        assert "every step of gold's path succeeded" in got.summary
        assert got.measured["first_failing_step"] is None
    else:
        assert got.measured["first_failing_step"] == f"item task-00000, {cause}"


def test_items_show_the_prompt_and_keep_the_hidden_part_as_a_digest(tmp_path: Path) -> None:
    store = api.open_db(str(tmp_path / "s.db"))
    suite = api.build_suite(VerifiersAdapter(), store=store, source=_source(tmp_path, "none"))
    first = suite.items[0]
    assert first.item_id == "task-00000" and first.tags == ("length:3",)
    assert set(first.input) == {"prompt", "example_id"}
    assert "cba" not in str(first.input)  # the answer is hidden
    assert [c.tool for c in first.gold.path] == ["lookup", "submit"]
    assert len(first.gold.truth["task_sha256"]) == 64


def test_the_reward_is_imported_and_bound_to_the_rollouts_gold(sound_run: tuple[Store, Any, Run]
                                                              ) -> None:
    store, system, run = sound_run
    gold = {i.item_id: i for i in store.get_suite(run.suite_hash).items}
    trajectories = list(store.trajectories(run.run_id))
    reward = next(s for s in system.scorers() if s.name == "env.reward")
    context = system.scoring_context()
    own = reward.score(gold[trajectories[0].item_id].gold, trajectories[0], context)
    other = reward.score(gold[trajectories[1].item_id].gold, trajectories[0], context)
    assert (own.value, own.imported) == (1.0, True)
    assert other.value is None
    shuffled = _control(ShuffledGold(), store, system, run)
    assert shuffled.status == "PASSED", shuffled.summary
    assert shuffled.measured["metrics"]["env.reward"]["bound_to_gold"] is True
    assert shuffled.measured["metrics"]["tools.recall"]["after"] == 0.0


def test_a_run_side_process_refuses_an_environment_whose_prompts_differ(tmp_path: Path) -> None:
    store = api.open_db(str(tmp_path / "s.db"))
    suite = api.build_suite(VerifiersAdapter(), store=store, source=_source(tmp_path, "none"))
    public = suite.public()
    fresh = VerifiersAdapter()
    fresh.prepare(public)  # the suite's own source line: accepted
    item = public.items[0]
    forged = type(item)(item.item_id, {**item.input, "prompt": [{"role": "user",
                                                                  "content": "other"}]})
    with pytest.raises(AssayError, match="is not the stored one"):
        fresh.replay(forged, (), seed=0)
    stranger = type(public)(public.adapter, public.suite_hash, public.items, "not a line")
    with pytest.raises(AssayError, match="names no verifiers environment"):
        VerifiersAdapter().prepare(stranger)


@pytest.mark.parametrize(("text", "message"), [
    ("environment: [1]\n", "'environment' must name a folder"),
    ("environment: x.py\nextra: 1\n", "unknown key 'extra'"),
    ("environment: ./absent.py\n", "no such file or folder"),
    ("environment: x\nargs: [1]\n", "'args' must be a mapping"),
])
def test_a_bad_source_file_is_one_line_naming_it(tmp_path: Path, text: str, message: str) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(text)
    with pytest.raises(AssayError, match=message) as caught:
        VerifiersAdapter().build_suite(spec)
    assert str(spec) in str(caught.value) and "\n" not in str(caught.value)


def test_no_source_and_no_project_are_refused(tmp_path: Path) -> None:
    with pytest.raises(AssayError, match="needs --source"):
        VerifiersAdapter().build_suite(None)
    with pytest.raises(AssayError, match=r"no pyproject\.toml"):
        VerifiersAdapter().build_suite(tmp_path)


def test_controls_run_through_the_cli_names_what_it_found(tmp_path: Path) -> None:
    from tests.support.invoke import invoke

    done = invoke("controls", "run", "--adapter", "verifiers", "--source",
                  str(_source(tmp_path, "raises")), "--config", "oracle",
                  "--allow-not-run", "state_check_bites", "--db", str(tmp_path / "cli.db"))
    assert done.traceback is None and done.code == 3, done.err
    flat = " ".join(done.out.split())
    assert "positive_control FAILED" in flat
    # the environment that raises is the third broken environment above: checked here,
    # through the command line, so its agent process is started once
    assert ("no agent ran, so the environment, the adapter or a scorer is at fault; first "
            "failing step: item task-00000, step 2 (submit): raised RuntimeError: the "
            "ledger is read-only") in flat
    assert "never probed, no item where the oracle scores well for the defect to lower: " \
           "env.reward" in flat


class _RewardOnly(VerifiersAdapter):
    facts = replace(VerifiersAdapter.facts, headline_metrics=("env.reward",))


class _UnboundReward(EnvironmentReward):
    """Says it is bound to its gold, yet scores under any gold."""

    name = "env.reward_unbound"

    def score(self, gold: Any, trajectory: Any, ctx: Any) -> Any:
        own = type(gold)(truth={**gold.truth, "task_sha256": trajectory.meta["task_sha256"]})
        return super().score(own, trajectory, ctx)


class _Unbound(VerifiersAdapter):
    facts = replace(VerifiersAdapter.facts, headline_metrics=("env.reward_unbound",),
                     scorers=(EnvironmentReward(), _UnboundReward()))


def test_shuffled_gold_fails_a_headline_of_bound_metrics_only(tmp_path: Path) -> None:
    store, system, run = _oracle_run(tmp_path, "none", adapter=_RewardOnly())
    got = _control(ShuffledGold(), store, system, run)
    assert got.status == "FAILED" and "nothing left to judge" in got.summary


def test_a_metric_declared_bound_that_scores_under_other_gold_is_judged(tmp_path: Path) -> None:
    store, system, run = _oracle_run(tmp_path, "none", adapter=_Unbound())
    got = _control(ShuffledGold(), store, system, run)
    row = got.measured["metrics"]["env.reward_unbound"]
    assert got.status == "FAILED" and row["after"] == 1.0 and "bound_to_gold" not in row


def test_a_reward_from_an_environment_changed_after_the_suite_is_not_credited(
    tmp_path: Path,
) -> None:
    """The prompt is the same, the hidden answer is not: the rollout's task digest no longer
    matches gold's, so its reward scores n/a rather than counting for the stored item."""
    copy = tmp_path / "tiny_copy.py"
    copy.write_text(TINY.read_text())
    spec = tmp_path / "copy.yaml"
    spec.write_text(f"environment: {copy}\n")
    store = api.open_db(str(tmp_path / "c.db"))
    suite = api.build_suite(VerifiersAdapter(), store=store, source=spec)
    copy.write_text(TINY.read_text().replace('"answer": word[::-1]', '"answer": word'))
    sys.modules.pop("_assay_env_tiny_copy", None)  # a fresh process would import it anew
    fresh = VerifiersAdapter()
    fresh.prepare(suite.public())
    item = suite.items[0]
    trajectory = fresh.replay(item.public(), item.gold.path, seed=0)
    reward = EnvironmentReward().score(item.gold, trajectory,
                                       load_system(fresh).scoring_context())
    assert trajectory.meta["task_sha256"] != item.gold.truth["task_sha256"]
    assert reward.value is None
