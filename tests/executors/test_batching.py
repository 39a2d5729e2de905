"""Batch sizes learned from the last batch's pace: a cheap agent's tasks go out by the
dozen, a slow agent's one at a time."""

from __future__ import annotations

from agent_assay.executors.batching import FIRST_BATCH, next_size


def _sizes(per_task: float, rounds: int, *, target: float = 0.1, most: int = 64) -> list[int]:
    size, seen = FIRST_BATCH, []
    for _ in range(rounds):
        size = next_size(size, per_task * size, size, target_seconds=target, most=most)
        seen.append(size)
    return seen


def test_a_cheap_agents_batches_double_up_to_the_largest() -> None:
    assert FIRST_BATCH == 1
    assert _sizes(0.0001, 8) == [2, 4, 8, 16, 32, 64, 64, 64]


def test_a_batch_holds_about_the_target_duration_of_work() -> None:
    assert _sizes(0.004, 8)[-1] == 25  # 0.1 s at 4 ms a task
    assert _sizes(0.004, 8, target=0.2)[-1] == 50


def test_a_slow_agents_tasks_go_out_one_at_a_time() -> None:
    assert _sizes(0.5, 4) == [1, 1, 1, 1]
    assert next_size(64, 64 * 2.0, 64, target_seconds=0.1, most=64) == 1  # it slowed down


def test_a_batch_measured_at_no_time_at_all_still_grows_only_by_doubling() -> None:
    assert next_size(4, 0.0, 4, target_seconds=0.1, most=64) == 8
