"""A toy for the Dask executor's tests: one that takes its process down."""

from __future__ import annotations

import os
import signal

from agent_assay.model import Config, PublicItem, Trajectory
from tests.support.toy import ToyAdapter

DOOMED_ITEM = "on-L2"


class DoomedToy(ToyAdapter):
    """The toy whose agent kills the process it runs in on item on-L2, as a segfault or the
    out-of-memory killer would (an agent process: never the test's own)."""

    name = "doomed"

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        if item.item_id == DOOMED_ITEM:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().run_item(item, config, seed=seed, repetition=repetition)


def set_env(name: str, value: str) -> None:
    """On a Dask worker: set a variable its agent processes will inherit."""
    os.environ[name] = value
