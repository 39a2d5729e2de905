"""Toy adapters that break the harness's expectations, one way each, for lifecycle tests.

`write_misbehaving_dist` registers them (and the plain toy) as entry points, so a
subprocess `agent-assay` can load them by name.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from agent_assay.errors import AgentUnreachable
from agent_assay.model import Config, PublicItem, Suite, Trajectory
from tests.support.dists import write_dist
from tests.support.toy import ToyAdapter

SLOW_SECONDS_ENV = "TOY_SLOW_SECONDS"


class SlowToy(ToyAdapter):
    """The toy, taking TOY_SLOW_SECONDS (default 0.5) per item: long enough to be killed."""

    name = "slowtoy"

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        time.sleep(float(os.environ.get(SLOW_SECONDS_ENV, "0.5")))
        return super().run_item(item, config, seed=seed, repetition=repetition)


class MisnumberingToy(ToyAdapter):
    """Returns every trajectory labelled one repetition later than asked."""

    name = "misnumbering"

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        done = super().run_item(item, config, seed=seed, repetition=repetition)
        return replace(done, repetition=repetition + 1)


CTRL_C_PID_ENV = "AA_TEST_CTRL_C_PID"
CTRL_C_ON_ENV = "AA_TEST_CTRL_C_ON"


def press_ctrl_c_on(monkeypatch: Any, item: int, pid: int | None = None) -> None:
    """Make the interrupting toy press Ctrl-C on the harness (this process, unless `pid`)
    when an agent process is asked for its `item`-th item."""
    monkeypatch.setenv(CTRL_C_PID_ENV, str(os.getpid() if pid is None else pid))
    monkeypatch.setenv(CTRL_C_ON_ENV, str(item))


class InterruptingToy(ToyAdapter):
    """Presses Ctrl-C on the harness, as a user would: asked for its AA_TEST_CTRL_C_ON-th
    item (default 3) in its process, it waits until what it answered before is stored,
    sends SIGINT to the process AA_TEST_CTRL_C_PID names, and waits to be stopped. Without
    that variable it is the toy. Named like the toy, so the toy can resume its run."""

    asked: ClassVar[int] = 0

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        InterruptingToy.asked += 1
        harness = os.environ.get(CTRL_C_PID_ENV)
        if harness and InterruptingToy.asked == int(os.environ.get(CTRL_C_ON_ENV, "3")):
            time.sleep(1.0)
            os.kill(int(harness), signal.SIGINT)
            time.sleep(60.0)
        return super().run_item(item, config, seed=seed, repetition=repetition)


class InterruptedToy(InterruptingToy):
    """The interrupting toy under its own adapter name, for the command line."""

    name = "interrupted"


class UnreadableSourceToy(ToyAdapter):
    """Its golden-set reader fails on any --source the way a careless adapter's would."""

    name = "unreadable"

    def build_suite(self, source: Path | None = None) -> Suite:
        if source is not None:
            int(source.read_text())  # ValueError on anything but a number
        return super().build_suite(source)


class UnreachableToy(ToyAdapter):
    """Its agent cannot be reached on item off-L4 (a model server that is down): the harness
    stores the slot as crashed and `run` exits 1 once everything else is stored."""

    name = "unreachable"

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        if item.item_id == "off-L4":
            raise AgentUnreachable("http://127.0.0.1:9/v1: no answer after 1 attempt(s)")
        return super().run_item(item, config, seed=seed, repetition=repetition)


class LingeringToy(ToyAdapter):
    """Answers the first item its agent process is given at once, then takes ten minutes
    over every other: a run with several workers stores something, then has every agent
    busy for far longer than any test waits (an agent that outlives its run shows)."""

    name = "lingering"
    answered: ClassVar[int] = 0

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        LingeringToy.answered += 1
        if LingeringToy.answered > 1:
            time.sleep(600.0)
        return super().run_item(item, config, seed=seed, repetition=repetition)


ADAPTERS = {
    "toy": "tests.support.toy:ToyAdapter",
    "slowtoy": "tests.support.misbehaving:SlowToy",
    "misnumbering": "tests.support.misbehaving:MisnumberingToy",
    "interrupted": "tests.support.misbehaving:InterruptedToy",
    "unreadable": "tests.support.misbehaving:UnreadableSourceToy",
    "unreachable": "tests.support.misbehaving:UnreachableToy",
    "lingering": "tests.support.misbehaving:LingeringToy",
}


def write_misbehaving_dist(directory: Path) -> Path:
    """A fake installed distribution registering these adapters, installing nothing."""
    return write_dist(directory, "misbehaving", ADAPTERS)
