"""Toys for the Dask executor's tests: one that takes its worker down, one that looks
for gold in everything a worker is handed."""

from __future__ import annotations

import os
import signal
from typing import ClassVar

from agent_assay.model import Config, PublicItem, PublicSuite, Trajectory
from tests.support.cheats import GoldPeek
from tests.support.toy import ToyAdapter

DOOMED_ITEM = "on-L2"


class DoomedToy(ToyAdapter):
    """The toy whose agent kills the process it runs in on item on-L2, as a segfault or the
    out-of-memory killer would. Only ever inside a Dask worker: anywhere else it raises."""

    name = "doomed"

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        if item.item_id == DOOMED_ITEM:
            from distributed import get_worker

            get_worker()  # ValueError outside a worker: the test process is never killed
            os.kill(os.getpid(), signal.SIGKILL)
        return super().run_item(item, config, seed=seed, repetition=repetition)


class CountedGoldPeek(GoldPeek):
    """GoldPeek that also notes what it was handed, so a worker that found no gold can be
    told from one that was handed nothing."""

    handed: ClassVar[list[str]] = []

    def prepare(self, suite: PublicSuite) -> None:  # type: ignore[override]
        CountedGoldPeek.handed.append("prepare")
        super().prepare(suite)

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        CountedGoldPeek.handed.append(item.item_id)
        return super().run_item(item, config, seed=seed, repetition=repetition)


def peeked() -> tuple[list[str], list[str]]:
    """In a worker: where GoldPeek found gold there, and what it was handed."""
    return list(GoldPeek.found), list(CountedGoldPeek.handed)
