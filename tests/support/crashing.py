"""Simulated agents whose failures take one form each, for the crash rule's tests.

Every item has a known chance of success, and every (item, repetition) draws from the
slot's seed whether the agent succeeds and, independently, whether the harness fails
under it. The draws depend on the seed alone, so runs of different configs with one seed
meet the same successes: they differ only in what a failure looks like.

- `scored`: a failure is answered, with the wrong outcome (scored 0);
- `raises`: a failure raises (a crash by the agent);
- `flaky`: a failure raises, and on a slot the harness fails the environment raises
  `EnvironmentFailed` before the agent acts (a crash by the harness; about one in six);
- `unreachable`: as `flaky`, with `AgentUnreachable` for the harness's failure.

The system's own scorer, `coin.pass`, is n/a on a crashed trajectory: with the old rule
(leave out what has no value) the crashes left the denominator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_assay.adapters.system import Facts
from agent_assay.errors import AgentUnreachable, EnvironmentFailed
from agent_assay.model import Config, Gold, Item, PublicItem, Suite, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext

ITEMS = 24
HARNESS_FAILS = 1 / 6


def chance(item_id: str) -> float:
    """The item's chance of success: spread from hard to easy over the suite."""
    return (int(item_id[1:]) % 8 + 0.5) / 8


def draws(item_id: str, seed: int) -> tuple[bool, bool]:
    """(the agent succeeds, the harness fails) on the slot seeded `seed`."""
    rng = random.Random(seed)
    return rng.random() < chance(item_id), rng.random() < HARNESS_FAILS


class CoinPass:
    name = "coin.pass"
    version = "1"
    definition = "1 if the agent answered heads, 0 for any other answer; n/a on a crash"
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if trajectory.crashed:
            return ScoreValue(None, {"reason": "the agent crashed: nothing to score"})
        return ScoreValue(1.0 if trajectory.outcome == "heads" else 0.0)


class CoinSystem:
    name = "coins"
    version = "1.0.0"
    facts = Facts(headline_metrics=("coin.pass", "outcome.match"), scorers=(CoinPass(),))

    def build_suite(self, source: Path | None = None) -> Suite:
        items = tuple(Item(f"c{n:02d}", {"flip": n}, Gold(outcome="heads"))
                      for n in range(ITEMS))
        return Suite(adapter=self.name, items=items, source="builtin")

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {mode: {"mode": mode} for mode in ("scored", "raises", "flaky", "unreachable")}

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        mode = config.params["mode"]
        succeeds, harness_fails = draws(item.item_id, seed)
        if harness_fails and mode == "flaky":
            raise EnvironmentFailed("the coin could not be set up")
        if harness_fails and mode == "unreachable":
            raise AgentUnreachable("the coin-flipper did not answer")
        if not succeeds and mode != "scored":
            raise RuntimeError("the agent dropped the coin")
        return Trajectory(item.item_id, repetition, outcome="heads" if succeeds else "tails")
