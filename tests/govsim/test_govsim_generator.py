"""Generation is pure, split-disjoint, difficulty-aware and always solvable."""

from __future__ import annotations

import json
import time

import pytest

from govsim import DIFFICULTIES, generate_worlds, solve
from govsim.families import FAMILIES
from govsim.graph import walk
from govsim.task import Task
from govsim.templates import TEMPLATES
from govsim.toolspecs import RECORD_TYPES


def _ids(task: Task) -> set[str]:
    w = task.world
    out = {task.task_id, task.action_id}
    out |= {e.entity_id for e in w.entities} | {p.person_id for p in w.people}
    out |= {b.body_id for b in w.bodies} | {p.party_id for p in w.parties}
    out |= {c.class_id for c in w.classes} | {p.pool_id for p in w.pools}
    out |= {g.grant_id for g in w.grants} | {r.record_id for r in w.records}
    out |= {n.node_id for n in walk(task.graph)}
    return out


def test_generation_is_a_pure_function_of_its_arguments() -> None:
    first = generate_worlds(11, "train", 12, "medium")
    again = generate_worlds(11, "train", 12, "medium")
    assert first == again
    assert [t.task_id for t in first] != [
        t.task_id for t in generate_worlds(12, "train", 12, "medium")
    ]


def test_train_and_eval_from_one_seed_share_no_identifier() -> None:
    train = set().union(*(_ids(t) for t in generate_worlds(0, "train", 27, "medium")))
    evals = set().union(*(_ids(t) for t in generate_worlds(0, "eval", 27, "medium")))
    assert not train & evals


def test_instances_within_a_split_are_disjoint() -> None:
    tasks = generate_worlds(3, "eval", 18, "hard")
    seen: set[str] = set()
    for task in tasks:
        ids = _ids(task)
        assert not ids & seen
        seen |= ids


def test_templates_cover_all_six_families() -> None:
    assert len(TEMPLATES) >= 9
    assert {t.family for t in TEMPLATES} == set(FAMILIES)
    tasks = generate_worlds(5, "train", len(TEMPLATES), "easy")
    assert {t.template_id for t in tasks} == {t.template_id for t in TEMPLATES}


def test_record_types_are_searchable_types() -> None:
    for task in generate_worlds(6, "train", 18, "hard"):
        assert {r.record_type for r in task.world.records} <= set(RECORD_TYPES)


@pytest.mark.parametrize("difficulty", sorted(DIFFICULTIES))
def test_difficulty_sets_turns_and_distractors(difficulty: str) -> None:
    level = DIFFICULTIES[difficulty]
    for task in generate_worlds(2, "eval", 9, difficulty):
        assert task.max_turns == level.max_turns
        assert sum(r.distractor for r in task.world.records) == level.distractors


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError):
        generate_worlds(0, "test", 1, "easy")
    with pytest.raises(ValueError):
        generate_worlds(0, "train", 1, "brutal")
    with pytest.raises(ValueError):
        generate_worlds(0, "train", -1, "easy")


def test_public_view_holds_no_hidden_rules() -> None:
    for task in generate_worlds(4, "eval", 9, "hard"):
        public = json.dumps(task.public().as_dict())
        hidden = {n.node_id for n in walk(task.graph)} | {g.grant_id for g in task.world.grants}
        assert not any(h in public for h in hidden)
        assert task.secret not in public
        assert "rule_" not in public
        assert task.public().request == task.request.payload


def test_every_world_is_solvable_within_its_turn_budget() -> None:
    for split in ("train", "eval"):
        for difficulty in DIFFICULTIES:
            for task in generate_worlds(7, split, 18, difficulty):
                solution = solve(task)
                assert 1 <= solution.cost == len(solution.steps)
                assert solution.cost + 2 <= task.max_turns


def test_generation_and_oracle_are_fast() -> None:
    start = time.perf_counter()
    tasks = generate_worlds(9, "train", 90, "hard")
    for task in tasks:
        solve(task)
    assert (time.perf_counter() - start) / len(tasks) < 0.05
