"""Baselines over 64 medium eval worlds: controls pin the scale, the mock lands inside it."""

from __future__ import annotations

from functools import cache
from statistics import mean
from typing import Any

import pytest

from govsim import AGENTS, Environment, generate_worlds, run_episode, validate
from govsim.agents.guided import choose_lapse
from govsim.task import Task


@cache
def _tasks() -> tuple[Task, ...]:
    return tuple(generate_worlds(0, "eval", 64, "medium"))


@cache
def _rewards(agent: str) -> tuple[float, ...]:
    return tuple(run_episode(t, agent).report.reward for t in _tasks())


def test_roles_mark_controls_and_hidden_state_readers() -> None:
    assert AGENTS["oracle_replay"].role == "positive_control"
    assert {a.name for a in AGENTS.values() if a.reads_hidden_state} == {"oracle_replay", "mock"}
    assert {a.name for a in AGENTS.values() if a.role == "negative_control"} == {
        "random",
        "search_only",
    }


@pytest.mark.parametrize("agent", ["random", "search_only"])
def test_negative_controls_score_zero_everywhere(agent: str) -> None:
    assert set(_rewards(agent)) == {0.0}


def test_oracle_replay_scores_one_everywhere() -> None:
    assert set(_rewards("oracle_replay")) == {1.0}


def test_mock_lands_strictly_between_the_controls() -> None:
    score = mean(_rewards("mock"))
    assert mean(_rewards("search_only")) < score < mean(_rewards("oracle_replay"))
    assert 0.5 <= score <= 0.8
    assert {choose_lapse(t.task_id, 0, 0) for t in _tasks()} >= {
        None,
        "skip_consent",
        "redundant_approval",
        "wrong_signatory",
    }


@pytest.mark.parametrize("agent", ["naive_max_approval", "keyword_heuristic"])
def test_heuristics_are_imperfect(agent: str) -> None:
    assert 0.0 < mean(_rewards(agent)) < mean(_rewards("mock"))


def test_mock_is_reproducible_and_repetitions_differ() -> None:
    task = _tasks()[0]
    assert run_episode(task, "mock", seed=3).snapshot == run_episode(task, "mock", seed=3).snapshot
    lapses = {choose_lapse(task.task_id, 0, rep) for rep in range(40)}
    assert len(lapses) == 4


class CallOnly:
    """Exposes nothing but ``call``: public-view agents must work through it alone."""

    def __init__(self, env: Environment) -> None:
        self._call = env.call

    def call(self, tool: object, args: object = None) -> dict[str, Any]:
        return self._call(tool, args)


@pytest.mark.parametrize("agent", [a.name for a in AGENTS.values() if not a.reads_hidden_state])
def test_public_agents_use_only_the_public_view(agent: str) -> None:
    for task in _tasks()[:9]:
        env = Environment(task)
        AGENTS[agent].run(task.public(), CallOnly(env), seed=0, repetition=0)  # type: ignore[arg-type]
        assert validate(task, env.snapshot()).reward == run_episode(task, agent).report.reward
