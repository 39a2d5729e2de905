"""Toy adapters that break the harness's expectations, one way each, for lifecycle tests.

`write_misbehaving_dist` registers them (and the plain toy) as entry points, so a
subprocess `agent-assay` can load them by name.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

from agent_assay.errors import AgentUnreachable
from agent_assay.model import Config, PublicItem, Suite, Trajectory
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


class InterruptingToy(ToyAdapter):
    """Raises KeyboardInterrupt (as Ctrl-C would) on its `interrupt_on`-th item; `calls`
    records the slots it was asked for. Named like the toy, so the toy can resume its run."""

    def __init__(self, interrupt_on: int | None = 3) -> None:
        super().__init__()
        self.interrupt_on = interrupt_on
        self.calls: list[tuple[str, int]] = []

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        self.calls.append((item.item_id, repetition))
        if len(self.calls) == self.interrupt_on:
            raise KeyboardInterrupt
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


ADAPTERS = {
    "toy": "tests.support.toy:ToyAdapter",
    "slowtoy": "tests.support.misbehaving:SlowToy",
    "misnumbering": "tests.support.misbehaving:MisnumberingToy",
    "interrupted": "tests.support.misbehaving:InterruptedToy",
    "unreadable": "tests.support.misbehaving:UnreadableSourceToy",
    "unreachable": "tests.support.misbehaving:UnreachableToy",
}


def write_misbehaving_dist(directory: Path) -> Path:
    """A fake installed distribution registering these adapters, installing nothing."""
    dist = directory / "misbehaving-0.1.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: misbehaving\nVersion: 0.1\n")
    lines = "".join(f"{name} = {target}\n" for name, target in ADAPTERS.items())
    (dist / "entry_points.txt").write_text(f"[agent_assay.adapters]\n{lines}")
    return directory
