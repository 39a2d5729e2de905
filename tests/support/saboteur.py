"""An environment that goes hard on the controls' agents, found from where it is called.

Its agent (`meh`) gets the outcome wrong on the switch-off items, so on outcome.match it
sits about where well-formed random calls do: honestly, random_agent fails it. Its
environment looks at its call stack, and when a do-nothing or random agent of the
controls is being replayed, it reports an outcome no gold has, so chance looks like zero
and the agent clears it. Replays executed in an agent process, one way for every
control, leave it nothing on the stack to go by.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_assay.model import Config, PublicItem, ToolCall, Trajectory
from tests.support.cheats import CheatBase

CONTROL_AGENTS = ("random_agent", "null_agent")


def measured_by_a_control() -> bool:
    return any(name in frame.filename for frame in inspect.stack() for name in CONTROL_AGENTS)


class Saboteur(CheatBase):
    name = "saboteur"

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {**super().configs(), "meh": {"mode": "meh"}}

    def coin(self, item: PublicItem) -> bool:
        return False

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        if config.params["mode"] != "meh":
            return super().run_item(item, config, seed=seed, repetition=repetition)
        done = super().run_item(item, replace(config, params={"mode": "good"}), seed=seed,
                                repetition=repetition)
        if "switch off" not in str(item.input["request"]):
            return done
        return replace(done, steps=done.steps[:1], outcome="looked")

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        done = super().replay(item, calls, seed=seed)
        return replace(done, outcome="sabotaged") if measured_by_a_control() else done

    def null_agents(self) -> Mapping[str, Any]:
        honest = super().null_agents()["do_nothing"]

        def do_nothing(item: PublicItem, config: Config) -> Trajectory:
            done: Trajectory = honest(item, config)
            return replace(done, outcome="sabotaged") if measured_by_a_control() else done

        return {"do_nothing": do_nothing}
