"""Acceptance: every govsim agent through the harness, k=1, on all 64 worlds.

The baseline table comes from tools/cases/governance_baselines.py (the function the tool
calls), run against a temporary database; its per-world rewards must agree exactly
with govsim's own ``run_episode`` for every agent.
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean
from types import ModuleType
from typing import Any

import pytest

from agent_assay.store import open_store
from govsim import generate_worlds, run_episode
from tests.support.invoke import invoke
from tools.cases import governance_baselines

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return governance_baselines


@pytest.fixture(scope="module")
def table(tool: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    result: dict[str, Any] = tool.baselines(tmp_path_factory.mktemp("gov") / "b.db")
    return result


def rewards(table: dict[str, Any], config: str) -> list[float]:
    return list(table["configs"][config]["rewards"].values())


def test_every_config_runs_on_all_64_worlds(table: dict[str, Any]) -> None:
    assert table["worlds"] == 64
    assert set(table["configs"]) == {
        "random",
        "search_only",
        "naive_max_approval",
        "keyword_heuristic",
        "oracle_replay",
        "mock",
    }
    assert all(row["worlds"] == 64 for row in table["configs"].values())


def test_oracle_replay_scores_one_on_every_world(table: dict[str, Any]) -> None:
    assert set(rewards(table, "oracle_replay")) == {1.0}
    assert table["configs"]["oracle_replay"]["valid_execution"]["rate"] == 1.0


@pytest.mark.parametrize("config", ["random", "search_only"])
def test_negative_controls_score_zero_on_every_world(table: dict[str, Any], config: str) -> None:
    assert set(rewards(table, config)) == {0.0}
    assert table["configs"][config]["valid_execution"]["count"] == 0


def test_mock_lands_strictly_between(table: dict[str, Any]) -> None:
    mock = table["configs"]["mock"]["mean_reward"]
    assert 0.0 < mock < 1.0
    assert max(map(mean, (rewards(table, "random"), rewards(table, "search_only")))) < mock
    for heuristic in ("naive_max_approval", "keyword_heuristic"):
        assert 0.0 < table["configs"][heuristic]["mean_reward"] < mock


def test_harness_rewards_equal_govsims_own_episodes(table: dict[str, Any]) -> None:
    tasks = {t.task_id: t for t in generate_worlds(0, "eval", 64, "medium")}
    for config, row in table["configs"].items():
        for task_id, reward in row["rewards"].items():
            assert run_episode(tasks[task_id], config).report.reward == reward, (config, task_id)


def test_intervals_name_their_method(table: dict[str, Any], tool: ModuleType) -> None:
    for row in table["configs"].values():
        low, high = row["reward_interval"]
        assert low <= row["mean_reward"] <= high
        assert row["reward_interval_method"] == "exact"  # rewards are fractions in [0, 1]
        low, high = row["valid_execution"]["interval"]
        assert low <= row["valid_execution"]["rate"] <= high
    text = tool.table(table)
    assert all(name in text for name in table["configs"])
    assert "Clopper-Pearson" in text


def test_cli_run_of_oracle_replay_scores_one_everywhere(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    done = invoke("run", "--adapter", "governance", "--config", "oracle_replay", "--db", str(db))
    assert done.code == 0 and done.traceback is None, done.err
    run_id = done.out.strip()
    store = open_store(str(db))
    values = {
        row.item_id: row.value
        for row in store.current_scores(run_id)
        if row.scorer == "governance.reward"
    }
    assert len(values) == 64 and set(values.values()) == {1.0}
