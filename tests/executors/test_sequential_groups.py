"""Group commit in this process: the sequential executor hands a fast agent's trajectories
over together (one transaction for the group, each its own block) and a slow agent's one
by one, as they finish."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest

from agent_assay import executors
from agent_assay.model import Config, PublicItem, Trajectory
from agent_assay.runner import execute_run
from agent_assay.store import Store
from agent_assay.store.chain_check import check_run_chain
from tests.support.misbehaving import SLOW_SECONDS_ENV, InterruptingToy, SlowToy
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run


def _group_sizes(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every group the runner writes to `store`, as it writes them."""
    sizes: list[int] = []
    write = store.write_trajectories

    def spy(run_id: str, scored: Sequence[Any]) -> list[int]:
        sizes.append(len(scored))
        return write(run_id, scored)

    monkeypatch.setattr(store, "write_trajectories", spy)
    return sizes


def test_a_fast_agent_shares_commits_and_each_trajectory_keeps_its_block(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "GROUP_WAIT_S", 60.0)  # however loaded the machine
    toy = ToyAdapter()
    run = new_toy_run(store, toy, "good", repeats=10)
    sizes = _group_sizes(store, monkeypatch)
    result = execute_run(store, toy, run, progress=False)
    assert result.written == 40
    assert sizes == [executors.GROUP_MAX, executors.GROUP_MAX, 40 - 2 * executors.GROUP_MAX]
    check = check_run_chain(store, run.run_id)
    assert check.intact
    blocks = [e for e in store.ledger(run.run_id) if e.kind == "trajectory"]
    assert len(blocks) == 40


def test_a_slow_agents_trajectories_are_written_as_they_finish(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "GROUP_WAIT_S", 0.001)
    monkeypatch.setenv(SLOW_SECONDS_ENV, "0.005")  # slower than the group's wait
    slow = SlowToy()
    run = new_toy_run(store, slow, "good", repeats=2)
    sizes = _group_sizes(store, monkeypatch)
    assert execute_run(store, slow, run, progress=False).written == 8
    assert sizes == [1] * 8


def test_ctrl_c_in_a_group_stores_what_finished_before_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "GROUP_WAIT_S", 60.0)
    stopping = InterruptingToy(interrupt_on=10)
    run = new_toy_run(store, stopping, "good", repeats=4)
    with pytest.raises(KeyboardInterrupt):
        execute_run(store, stopping, run, progress=False)
    assert len(store.stored_slots(run.run_id)) == 9
    assert store.events(run.run_id)[-1].detail["written"] == 9


class SometimesSlowToy(ToyAdapter):
    """Every other item takes a few milliseconds (a model behind a cache, say)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def run_item(self, item: PublicItem, config: Config, *, seed: int, repetition: int
                 ) -> Trajectory:
        self.asked += 1
        if self.asked % 2 == 0:
            time.sleep(0.005)
        return super().run_item(item, config, seed=seed, repetition=repetition)


def test_once_an_agent_has_been_slow_its_quick_trajectories_do_not_wait_for_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "GROUP_WAIT_S", 0.001)
    uneven = SometimesSlowToy()
    run = new_toy_run(store, uneven, "good", repeats=3)
    sizes = _group_sizes(store, monkeypatch)
    assert execute_run(store, uneven, run, progress=False).written == 12
    assert sizes == [2] + [1] * 10  # the first quick one waited: nothing was known yet
