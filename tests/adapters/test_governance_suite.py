"""The governance suite: public inputs, gold, the suite file, configs and the adapter's facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_assay.adapters.registry import load_adapter
from agent_assay.adapters.system import System
from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay.model import Config, PublicItem, Suite
from agent_assay.runner import resolve_config
from agent_assay_bundled import governance
from agent_assay_bundled.governance import DEFAULT_SPEC, GovernanceAdapter, load_spec
from agent_assay_bundled.governance_scoring import world_of
from govsim import AGENTS, TOOL_SPECS, generate_worlds, run_episode
from tests.support.invoke import invoke


def config(adapter: GovernanceAdapter, name: str) -> Config:
    return resolve_config(adapter, name)


# ---- the suite --------------------------------------------------------------------------------
def test_registered_and_implements_the_protocol() -> None:
    loaded = load_adapter("governance")
    assert isinstance(loaded.raw, GovernanceAdapter)
    assert isinstance(loaded.raw, System)


def test_default_suite_is_the_64_medium_eval_worlds(suite: Suite) -> None:
    tasks = generate_worlds(0, "eval", 64, "medium")
    assert governance.WorldSpec(0, "eval", 64, "medium") == DEFAULT_SPEC
    assert [i.item_id for i in suite.items] == [t.task_id for t in tasks]
    assert {t for i in suite.items for t in i.tags} >= {"difficulty:medium"}
    assert len({i.item_id for i in suite.items}) == 64


def test_suite_hash_is_a_pure_function_of_the_spec(suite: Suite) -> None:
    governance._SUITES.clear()
    again = GovernanceAdapter().build_suite(None)
    assert again.suite_hash == suite.suite_hash
    assert [i.to_json() for i in again.items] == [i.to_json() for i in suite.items]


def test_public_input_is_the_public_view_and_json_safe(suite: Suite) -> None:
    for item, task in zip(suite.items, generate_worlds(0, "eval", 64, "medium"), strict=True):
        assert dict(item.input) == task.public().as_dict()
        assert json.loads(json.dumps(item.input)) == dict(item.input)
        text = canonical_json(item.input)
        assert task.secret not in text and task.template_id not in text
        assert not {"seed", "index", "template_id", "graph", "secret"} & set(item.input)


def test_gold_is_the_oracle_path_and_truth_regenerates_the_world(
    adapter: GovernanceAdapter, suite: Suite
) -> None:
    oracle = config(adapter, "oracle_replay")
    for item in suite.items[:16]:
        task = world_of(item.gold.truth)
        assert task.task_id == item.item_id
        assert item.gold.outcome == "executed_valid"
        assert item.gold.path[0].tool == task.public().create_tool
        assert item.gold.path[-1].tool == "execute_action"
        assert len(item.gold.path) == item.gold.truth["oracle"]["cost"] + 2
        ran = adapter.run_item(item.public(), oracle, seed=0, repetition=1)
        assert ran.calls == item.gold.path
        assert ran.final_state is not None
        for assertion in item.gold.assertions:
            node = ran.final_state
            for part in assertion.path.split("."):
                node = node[part]
            assert node == assertion.equals
    assert [a.path for a in suite.items[0].gold.assertions] == list(governance.ASSERTED)
    assert suite.items[0].gold.truth["requirements"]["type"] in ("AllOf", "AnyOf")


# ---- the suite file ---------------------------------------------------------------------------
def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "worlds.yaml"
    path.write_text(text)
    return path


def test_a_suite_file_names_other_worlds(tmp_path: Path) -> None:
    path = write(tmp_path, "seed: 7\nsplit: train\nn: 5\ndifficulty: hard\n")
    built = GovernanceAdapter().build_suite(path)
    assert len(built.items) == 5
    assert {i.input["difficulty"] for i in built.items} == {"hard"}
    assert built.source.startswith(str(path))
    assert built.items[0].gold.truth["world"] == {
        "seed": 7,
        "split": "train",
        "difficulty": "hard",
        "index": 0,
        "template_id": world_of(built.items[0].gold.truth).template_id,
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("seed: 1\nsplit: eval\nn: 3: 4\ndifficulty: medium\n", ":3: malformed YAML: mapping"),
        ("- seed\n- n\n", ":1: expected a mapping with fields seed, split, n, difficulty"),
        ("", ":1: expected a mapping"),
        ("seed: 1\nsplit: eval\nn: 3\n", ":1: missing field(s): difficulty"),
        ("seed: 1\nsplit: eval\nn: 3\ndifficulty: medium\nworlds: 4\n", ":5: unknown field"),
        ("seed: 1\nsplit: eval\nn: 3\nn: 4\ndifficulty: medium\n", ":4: duplicate key 'n'"),
        ("seed: -1\nsplit: eval\nn: 3\ndifficulty: medium\n", ":1: field 'seed' must be a non"),
        ("seed: true\nsplit: eval\nn: 3\ndifficulty: medium\n", ":1: field 'seed' must be"),
        ("seed: 1\nsplit: test\nn: 3\ndifficulty: medium\n", ":2: field 'split' must be one of"),
        ("seed: 1\nsplit: eval\nn: 0\ndifficulty: medium\n", ":3: field 'n' must be an integer"),
        ("seed: 1\nsplit: eval\nn: '3'\ndifficulty: medium\n", ":3: field 'n' must be"),
        ("seed: 1\nsplit: eval\nn: 3\ndifficulty: brutal\n", ":4: field 'difficulty' must be"),
    ],
)
def test_a_malformed_suite_file_names_file_and_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(AssayError) as caught:
        load_spec(path)
    assert str(caught.value).startswith(str(path) + ":")
    assert message in str(caught.value)


def test_missing_file_and_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(AssayError, match="suite file not found"):
        GovernanceAdapter().build_suite(tmp_path / "nope.yaml")
    with pytest.raises(AssayError, match="is a directory, not a file"):
        GovernanceAdapter().build_suite(tmp_path)


def test_cli_reports_a_malformed_file_in_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "seed: 1\nsplit: eval\nn: 3\ndifficulty: brutal\n")
    done = invoke("suite", "build", "--adapter", "governance", "--source", str(path),
                  "--db", str(tmp_path / "a.db"))
    assert done.code == 1 and done.traceback is None
    assert done.err.strip().splitlines() == [
        f"error: {path}:4: field 'difficulty' must be one of easy, medium, hard, got 'brutal'"
    ]


# ---- configs and facts ------------------------------------------------------------------------
def test_one_config_per_agent_and_the_positive_control_says_so(adapter: GovernanceAdapter) -> None:
    everything = adapter.configs()
    assert set(everything) - set(AGENTS) == {"smollm2-t0", "smollm2-t07"}  # model configs
    configs = {name: everything[name] for name in AGENTS}
    for name, params in configs.items():
        assert params["role"] == AGENTS[name].role
        assert params["reads_hidden_state"] == AGENTS[name].reads_hidden_state
        assert adapter.deterministic(config(adapter, name))
    assert [n for n, p in configs.items() if p["positive_control"]] == ["oracle_replay"]
    env = adapter.environment(config(adapter, "oracle_replay"))
    assert env["positive_control"] is True and env["reads_hidden_state"] is True
    assert adapter.environment(config(adapter, "mock"))["positive_control"] is False
    # "model" is recorded only for model configs; a run keeps the keys its environment has
    assert adapter.affects_results() - {"model"} <= set(env)


def test_null_agent_makes_no_calls_and_search_only_is_not_one(
    adapter: GovernanceAdapter, suite: Suite
) -> None:
    nulls = adapter.null_agents()
    assert set(nulls) == {"do_nothing"}
    mock = config(adapter, "mock")
    for item in suite.items[:8]:
        t = nulls["do_nothing"](item.public(), mock)
        assert t.steps == () and t.outcome == "not_executed"
        only = config(adapter, "search_only")
        searched = adapter.run_item(item.public(), only, seed=0, repetition=1)
        assert searched.steps, "search_only makes calls, so it cannot be a null agent"
        assert not set(adapter.facts.mutating_tools) & {s.call.tool for s in searched.steps}


def test_facts_for_scorers_and_controls(adapter: GovernanceAdapter, suite: Suite) -> None:
    assert set(adapter.replay_view().tool_catalogue()) == {s.name for s in TOOL_SPECS}
    assert set(adapter.facts.mutating_tools) == {s.name for s in TOOL_SPECS if s.mutating}
    assert "record_authorization" in adapter.facts.mutating_tools
    assert "execute_action" in adapter.facts.mutating_tools
    assert adapter.facts.order_anchors == {}
    assert adapter.facts.arg_normalisers == {}
    base = adapter.replay_view().baseline_snapshot()
    assert base["task_id"] is None and base["authorizations"] == [] and base["execution"] is None
    pools = adapter.replay_view().argument_pools()
    task = world_of(suite.items[0].gold.truth)
    assert task.request.entity_id in pools["entity_id"]
    assert {p.person_id for p in task.world.people} <= set(pools["signatory_person_id"])
    blob = canonical_json(dict(pools))
    assert task.secret not in blob and task.template_id not in blob


def test_a_fresh_process_regenerates_the_default_worlds(suite: Suite) -> None:
    governance._WORLDS.clear()
    fresh = GovernanceAdapter()
    t = fresh.run_item(
        suite.items[3].public(), config(fresh, "oracle_replay"), seed=0, repetition=1
    )
    assert t.outcome == "executed_valid"


def test_unknown_or_tampered_worlds_are_refused(adapter: GovernanceAdapter, suite: Suite) -> None:
    mock = config(adapter, "mock")
    stranger = PublicItem("task_000000000000", {"task_id": "task_000000000000"})
    with pytest.raises(AssayError, match="not known in this process"):
        adapter.run_item(stranger, mock, seed=0, repetition=1)
    item = suite.items[0]
    tampered = PublicItem(item.item_id, {**item.input, "max_turns": 99})
    with pytest.raises(AssayError, match="public input does not match"):
        adapter.run_item(tampered, mock, seed=0, repetition=1)


def test_repetitions_map_to_govsim_and_differ_for_mock(
    adapter: GovernanceAdapter, suite: Suite
) -> None:
    """Harness repetition r is govsim repetition r - 1; the harness item seed is not used."""
    mock = config(adapter, "mock")
    differ = 0
    for item in suite.items[:24]:
        task = world_of(item.gold.truth)
        first = adapter.run_item(item.public(), mock, seed=123, repetition=1)
        assert first.final_state == run_episode(task, "mock", seed=0, repetition=0).snapshot
        other_seed = adapter.run_item(item.public(), mock, seed=999, repetition=1)
        assert other_seed.path_key() == first.path_key()
        assert other_seed.final_state == first.final_state
        second = adapter.run_item(item.public(), mock, seed=123, repetition=2)
        assert second.final_state == run_episode(task, "mock", seed=0, repetition=1).snapshot
        differ += second.path_key() != first.path_key()
    assert differ > 0
