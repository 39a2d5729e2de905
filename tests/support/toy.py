"""A tiny system under test for harness tests: lamps that agents switch on and off.

It is small enough to hand-compute every score, and its configs plant the
defects the harness must catch (a crash, a wrong argument, nondeterminism).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from time import perf_counter
from typing import Any

from agent_assay.adapters.system import Facts
from agent_assay.model import (
    Config,
    Cost,
    Gold,
    Item,
    PublicItem,
    StateAssertion,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)

LAMPS = ("L1", "L2", "L3", "L4")
MUTATING = ("switch_on", "switch_off")


def baseline() -> dict[str, Any]:
    return {"lamps": {lamp: {"on": lamp == "L4"} for lamp in LAMPS}}


class ToyWorld:
    def __init__(self) -> None:
        self.state = baseline()
        self.steps: list[Step] = []

    def call(self, tool: str, args: Mapping[str, Any]) -> Step:
        lamp = args.get("lamp")
        if tool == "broken" or lamp not in LAMPS or tool not in ("look", *MUTATING):
            step = Step(ToolCall(tool, dict(args)), ok=False, error="bad call")
        elif tool == "look":
            step = Step(ToolCall(tool, dict(args)), ok=True, result=dict(self.state["lamps"][lamp]))
        else:
            self.state["lamps"][lamp]["on"] = tool == "switch_on"
            step = Step(ToolCall(tool, dict(args)), ok=True, result={"done": True})
        self.steps.append(step)
        return step

    def outcome(self) -> str:
        if any(s.ok and s.call.tool in MUTATING for s in self.steps):
            return "done"
        return "looked" if any(s.ok for s in self.steps) else "nothing"


def toy_items() -> tuple[Item, ...]:
    items = []
    for lamp in LAMPS[:3]:
        items.append(
            Item(
                item_id=f"on-{lamp}",
                input={"request": f"please switch on {lamp}"},
                gold=Gold(
                    path=(ToolCall("look", {"lamp": lamp}), ToolCall("switch_on", {"lamp": lamp})),
                    outcome="done",
                    assertions=(StateAssertion(f"lamps.{lamp}.on", True),),
                ),
                tags=("on",),
            )
        )
    items.append(
        Item(
            item_id="off-L4",
            input={"request": "please switch off L4"},
            gold=Gold(
                path=(ToolCall("look", {"lamp": "L4"}), ToolCall("switch_off", {"lamp": "L4"})),
                outcome="done",
                assertions=(StateAssertion("lamps.L4.on", False),),
            ),
            tags=("off",),
        )
    )
    return tuple(items)


class ToyAdapter:
    """Configs: good (always right), wrong_arg (switches the next lamp), crashy, noisy,
    chatty (looks twice when asked only to look: the same outcome by a longer path, and a
    config it does not declare deterministic although it is)."""

    name = "toy"
    version = "1.0.0"
    facts = Facts(
        headline_metrics=("trajectory.exact", "outcome.match", "state.assertions"),
        mutating_tools=MUTATING,
        order_anchors={"*": "look"},
        arg_normalisers={tool: {"lamp": ("strip", "upper")} for tool in ("look", *MUTATING)},
        affects_results=frozenset({"adapter_version", "world"}),
        deterministic_configs=frozenset({"good", "wrong_arg", "crashy"}),
    )

    def __init__(self, version: str = "1.0.0") -> None:
        self.version = version

    def build_suite(self, source: Path | None = None) -> Suite:
        return Suite(adapter=self.name, items=toy_items(), source=str(source or "builtin"))

    def prepare(self, suite: Suite) -> None:
        """Nothing to rebuild: every item carries what running it needs."""

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {
            "good": {"mode": "good"},
            "wrong_arg": {"mode": "wrong_arg"},
            "crashy": {"mode": "crashy"},
            "noisy": {"mode": "noisy"},
            "unseeded": {"mode": "unseeded"},
            "chatty": {"mode": "chatty"},
        }

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        started = perf_counter()
        mode = config.params["mode"]
        match = re.search(r"(switch on|switch off|look at) (L\d)", str(item.input["request"]))
        assert match is not None
        action, lamp = match.groups()
        if mode == "crashy" and lamp == "L2":
            raise RuntimeError("lamp L2 is haunted")
        if mode == "wrong_arg":
            lamp = LAMPS[(LAMPS.index(lamp) + 1) % len(LAMPS)]
        world = ToyWorld()
        world.call("look", {"lamp": lamp})
        if mode == "noisy" and random.Random(seed).random() < 0.5:
            world.call("look", {"lamp": lamp})
        if mode == "unseeded" and random.random() < 0.5:
            world.call("look", {"lamp": lamp})
        if mode == "chatty" and action == "look at":
            world.call("look", {"lamp": lamp})
        if action != "look at":
            world.call(action.replace(" ", "_"), {"lamp": lamp})
        return self._trajectory(item, repetition, world, started)

    def _trajectory(
        self, item: PublicItem, repetition: int, world: ToyWorld, started: float
    ) -> Trajectory:
        return Trajectory(
            item_id=item.item_id,
            repetition=repetition,
            steps=tuple(world.steps),
            final_state=world.state,
            outcome=world.outcome(),
            latency_ms=(perf_counter() - started) * 1000,
            cost=Cost(0.0, "toy agent runs locally"),
        )

    def null_agents(self) -> Mapping[str, Any]:
        def do_nothing(item: PublicItem, config: Config) -> Trajectory:
            return self._trajectory(item, 1, ToyWorld(), perf_counter())

        return {"do_nothing": do_nothing}

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        world = ToyWorld()
        for call in calls:
            world.call(call.tool, call.args)
        return self._trajectory(item, 1, world, perf_counter())

    def baseline_snapshot(self) -> dict[str, Any]:
        return baseline()

    def tool_catalogue(self) -> Mapping[str, Mapping[str, Any]]:
        lamp = {"type": "object", "properties": {"lamp": {"type": "string"}}, "required": ["lamp"]}
        return {tool: lamp for tool in ("look", *MUTATING)}

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        return {"lamp": LAMPS}

    def environment(self, config: Config) -> Mapping[str, Any]:
        return {"world": "lamps-1"}


def look_items() -> tuple[Item, ...]:
    return tuple(
        Item(
            item_id=f"look-{lamp}",
            input={"request": f"please look at {lamp}"},
            gold=Gold(path=(ToolCall("look", {"lamp": lamp}),), outcome="looked"),
            tags=("look",),
        )
        for lamp in LAMPS
    )


def reworded(items: tuple[Item, ...]) -> tuple[Item, ...]:
    """The same cases asked again in other words, so a suite has enough items to test on."""
    return tuple(
        Item(
            item_id=f"{item.item_id}-again",
            input={"request": "kindly " + str(item.input["request"]).removeprefix("please ")},
            gold=item.gold,
            tags=item.tags,
        )
        for item in items
    )


class RichToyAdapter(ToyAdapter):
    """The toy with look-only items and reworded repeats: outcomes differ across items, and
    there are enough switch items (8) for the mutation control's paired tests to reach
    significance, so every control can pass on a sound agent."""

    name = "richtoy"

    def build_suite(self, source: Path | None = None) -> Suite:
        items = toy_items() + reworded(toy_items()) + look_items()
        return Suite(adapter=self.name, items=items, source="builtin")


class KnobToy(ToyAdapter):
    """The toy with a setting of every type (`-M key=value`): `mode` reaches the agent, the
    others only the config hash."""

    name = "knobs"
    facts = replace(ToyAdapter.facts,
                    settings={"mode": str, "patience": int, "warmth": float, "loud": bool})

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {"good": {"mode": "good", "patience": 2, "warmth": 0.5, "loud": False,
                         "fixed": "not settable"}}
