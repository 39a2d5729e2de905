"""Adapter for synthbank, the bundled retail-banking support system.

This module is the only part of agent-assay that imports synthbank. It turns
golden scripts into Items, runs synthbank's agents against a fresh seeded bank
per item, and states the bank's facts the scorers need: which tools mutate the
world, that identifiers compare case-blind, that identity verification
(get_customer) must precede any action.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

import synthbank
from agent_assay.adapters.protocol import NullAgent
from agent_assay.errors import AssayError
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
from agent_assay.scoring.base import Scorer
from synthbank.agents import run_mock, run_null
from synthbank.scripts import PublicRequest, Script, ScriptError, load_scripts
from synthbank.tools import TOOL_SPECS, Environment
from synthbank.world import DEFAULT_SEED, build_world

FREE = Cost(0.0, "scripted agent: no model calls, nothing billed")
Agent = Callable[[PublicRequest, Environment], None]


def item_from_script(script: Script) -> Item:
    return Item(
        item_id=script.id,
        input={"caller": script.caller, "request": script.request},
        gold=Gold(
            path=tuple(ToolCall(c.tool, dict(c.args)) for c in script.expected_path),
            outcome=script.expected_outcome,
            assertions=tuple(StateAssertion(a.path, a.equals) for a in script.state_assertions),
        ),
        tags=(script.tag,),
    )


class BankingAdapter:
    """Configs: `mock` (deterministic scripted agent) and `mock-noisy` (defects vary by repeat)."""

    name = "banking"

    def __init__(self, version: str = "1.0.0") -> None:
        self.version = version

    # ---- suite and configs -------------------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        try:
            scripts = load_scripts(source)
        except ScriptError as exc:
            raise AssayError(str(exc)) from exc
        except FileNotFoundError as exc:
            raise AssayError(f"golden-script directory not found: {exc.filename}") from exc
        where = str(source) if source else "synthbank bundled scripts"
        return Suite(adapter=self.name, items=tuple(map(item_from_script, scripts)), source=where)

    def prepare(self, suite: Suite) -> None:
        """Nothing to rebuild: every item carries what running it needs."""

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        common = {"agent": "mock", "bank_seed": DEFAULT_SEED, "defect_seed": 0}
        return {"mock": {**common, "noisy": False}, "mock-noisy": {**common, "noisy": True}}

    def deterministic(self, config: Config) -> bool:
        return not bool(config.params.get("noisy"))

    # ---- running ---------------------------------------------------------------
    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        noisy = bool(config.params["noisy"])
        # The deterministic mock's defects are fixed by the config's defect_seed, so every
        # repetition is the same agent; the noisy mock draws them from the per-item seed.
        agent_seed = seed if noisy else int(config.params["defect_seed"])

        def agent(request: PublicRequest, env: Environment) -> None:
            run_mock(request, env, seed=agent_seed, repetition=repetition, noisy=noisy)

        return self._episode(item, agent, int(config.params["bank_seed"]), repetition)

    def null_agents(self) -> Mapping[str, NullAgent]:
        def do_nothing(item: PublicItem, config: Config) -> Trajectory:
            return self._episode(item, run_null, int(config.params["bank_seed"]), 1)

        return {"do_nothing": do_nothing}

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        def replayer(request: PublicRequest, env: Environment) -> None:
            for call in calls:
                env.call(call.tool, call.args)

        return self._episode(item, replayer, DEFAULT_SEED, 1)

    def _episode(
        self, item: PublicItem, agent: Agent, bank_seed: int, repetition: int
    ) -> Trajectory:
        started = perf_counter()
        request = PublicRequest(
            id=item.item_id, caller=str(item.input["caller"]), request=str(item.input["request"])
        )
        env = Environment(build_world(bank_seed), request.caller)
        agent(request, env)
        return Trajectory(
            item_id=item.item_id,
            repetition=repetition,
            steps=tuple(
                Step(ToolCall(s.tool, dict(s.args)), ok=s.ok, result=s.data, error=s.error)
                for s in env.log
            ),
            final_state=env.snapshot(),
            outcome=env.outcome(),
            latency_ms=(perf_counter() - started) * 1000.0,
            cost=FREE,
        )

    # ---- facts for scorers and controls ---------------------------------------
    def arg_normalisers(self) -> Mapping[str, Mapping[str, tuple[str, ...]]]:
        """Identifiers are case-blind and whitespace-tolerant; free text is compared as is."""
        return {
            tool: {
                arg: ("strip", "upper")
                for arg in spec.parameters.get("properties", {})
                if arg.endswith("_id")
            }
            for tool, spec in TOOL_SPECS.items()
        }

    def mutating_tools(self) -> tuple[str, ...]:
        return tuple(sorted(name for name, spec in TOOL_SPECS.items() if spec.mutating))

    def order_anchor_tool(self) -> str | None:
        return "get_customer"

    def baseline_snapshot(self, seed: int | None = None) -> dict[str, Any]:
        return build_world(DEFAULT_SEED if seed is None else seed).snapshot()

    def environment(self, config: Config) -> Mapping[str, Any]:
        return {
            "adapter": self.name,
            "adapter_version": self.version,
            "system": "synthbank",
            "system_version": synthbank.__version__,
            "bank_seed": config.params["bank_seed"],
        }

    def affects_results(self) -> frozenset[str]:
        return frozenset({"adapter_version", "system_version", "bank_seed"})

    def extra_scorers(self) -> Sequence[Scorer]:
        return ()

    def headline_metrics(self) -> tuple[str, ...]:
        return ("trajectory.exact", "tools.recall", "state.assertions", "outcome.match")

    def tool_catalogue(self) -> Mapping[str, Mapping[str, Any]]:
        return {name: spec.parameters for name, spec in sorted(TOOL_SPECS.items())}

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        """Every argument ending in _id draws from the bank's ids of that kind."""
        return build_world(DEFAULT_SEED).identifiers()

    def nondeterministic_fields(self) -> tuple[str, ...]:
        return ("latency_ms", "latency.total_ms")
