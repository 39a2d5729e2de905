"""A toy whose failures can be fixed between a run and its resume, for `--retry` tests.

Until the environment variable AA_TEST_FIXED names them fixed, its agent raises on lamp
L2 (the agent's crash, a measured failure) and its environment fails on lamp L3 (the
harness's crash, never measured). `AA_TEST_FIXED=harness`, `agent` or `agent,harness`
fixes one or both: the agent processes a resume starts read the variable, as an agent
redeployed between the two would behave. A `--source` file lists the item ids to keep.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_assay.errors import EnvironmentFailed
from agent_assay.model import Config, PublicItem, Suite, Trajectory
from tests.support.dists import write_dist
from tests.support.toy import ToyAdapter, toy_items

FIXED_ENV = "AA_TEST_FIXED"


class FixableToy(ToyAdapter):
    name = "fixable"

    def build_suite(self, source: Path | None = None) -> Suite:
        kept = source.read_text().split() if source is not None else None
        items = tuple(i for i in toy_items() if kept is None or i.item_id in kept)
        return Suite(adapter=self.name, items=items, source=str(source or "builtin"))

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        fixed = set(os.environ.get(FIXED_ENV, "").split(","))
        request = str(item.input["request"])
        if "L2" in request and "agent" not in fixed:
            raise RuntimeError("lamp L2 is haunted")
        if "L3" in request and "harness" not in fixed:
            raise EnvironmentFailed("lamp L3's socket is dead")
        return super().run_item(item, config, seed=seed, repetition=repetition)


def write_fixable_dist(directory: Path) -> Path:
    """A fake installed distribution registering the fixable toy, installing nothing."""
    return write_dist(directory, "fixable", {"fixable": "tests.support.fixable:FixableToy"})
