"""A deterministic-looking system whose episode goes wrong once in RATE: for measuring how
often identical_config misses a rare fault (tools/studies/rare_slip.py). Its own module, so that a
fresh process can rebuild it by class."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_assay.adapters.system import Facts
from agent_assay.model import Config, Gold, Item, PublicItem, Suite, ToolCall, Trajectory
from tests.support.toy import LAMPS, RichToyAdapter

RATE = 500
ITEMS = 100


class RareSlip(RichToyAdapter):
    name = "rareslip"
    facts = Facts(
        headline_metrics=("trajectory.exact", "outcome.match"),
        deterministic_configs=frozenset({"rare"}),
    )

    def build_suite(self, source: Path | None = None) -> Suite:
        items = tuple(
            Item(
                item_id=f"look-{n:03d}",
                input={"request": f"please look at {LAMPS[n % len(LAMPS)]}"},
                gold=Gold(path=(ToolCall("look", {"lamp": LAMPS[n % len(LAMPS)]}),),
                          outcome="looked"),
                tags=("look",),
            )
            for n in range(ITEMS)
        )
        return Suite(adapter=self.name, items=items, source="builtin")

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {"rare": {"mode": "good"}}

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        done = super().run_item(item, config, seed=seed, repetition=repetition)
        if random.random() < 1 / RATE:  # unseeded on purpose: the fault is the point
            return replace(done, steps=(done.steps[0], *done.steps))
        return done
