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
from agent_assay.llm import (
    AgentLoop,
    ToolOutcome,
    ToolSpec,
    resolve_endpoint,
    trajectory_of,
)
from agent_assay.llm.configs import loop_settings, model_params
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

MODEL_INSTRUCTIONS = """\
You are the customer-support agent of a retail bank. The caller is already authenticated; \
their customer id comes with their message, and you may act only on that customer's own \
accounts and cards.
First call get_customer with the caller's customer id, then use the other tools to do \
what the caller asks, with ids taken from the tool results.
If the caller asks about another person's accounts, cards or data, call refuse_request. \
If the caller needs a human colleague (a complaint, closing an account, a bereavement, a \
credit request, a power of attorney), call escalate_to_human.
When you are done, reply to the caller in one or two sentences."""
"""The system prompt of every model config; its hash is a config parameter. It is the
same for every item (the caller's id is in the user message), so a server that caches the
prompt prefix evaluates it once."""
MODEL_REQUEST = "[authenticated caller: customer {caller}]\n{request}"

SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1"
"""The model name the local server is started with (its --model_alias)."""
TERMINAL_TOOLS = ("escalate_to_human", "refuse_request")


def model_config(model: str, temperature: float) -> dict[str, Any]:
    """A banking model config: the shared model parameters plus the bank's seed."""
    params = model_params(
        model,
        temperature,
        prompt=MODEL_INSTRUCTIONS + MODEL_REQUEST,
        terminal_tools=TERMINAL_TOOLS,
    )
    return {**params, "bank_seed": DEFAULT_SEED}


MODEL_CONFIGS: dict[str, dict[str, Any]] = {
    "smollm2-t0": model_config(SMOLLM2, 0.0),
    "smollm2-t07": model_config(SMOLLM2, 0.7),
}


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
    """Configs: `mock` (deterministic scripted agent), `mock-noisy` (defects vary by repeat),
    and model configs (`smollm2-t0`, `smollm2-t07`) that run agent_assay.llm's loop against
    an OpenAI-compatible endpoint (AA_MODEL_BASE_URL, default the local server)."""

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
        return {
            "mock": {**common, "noisy": False},
            "mock-noisy": {**common, "noisy": True},
            **MODEL_CONFIGS,
        }

    def deterministic(self, config: Config) -> bool:
        """Only the noise-free mock; no model config claims repeats are identical."""
        if config.params.get("agent") == "model":
            return False
        return not bool(config.params.get("noisy"))

    # ---- running ---------------------------------------------------------------
    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        if config.params.get("agent") == "model":
            return self._model_episode(item, config, seed, repetition)
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

    def _model_episode(
        self, item: PublicItem, config: Config, seed: int, repetition: int
    ) -> Trajectory:
        """One episode of agent_assay.llm's loop; synthbank's Environment executes each call."""
        started = perf_counter()
        params = config.params
        caller = str(item.input["caller"])
        env = Environment(build_world(int(params["bank_seed"])), caller)

        def execute(tool: str, args: dict[str, Any]) -> ToolOutcome:
            result = env.call(tool, args)
            return ToolOutcome(result.ok, result.data, result.error)

        settings = loop_settings(params, seed)
        loop = AgentLoop(resolve_endpoint(params), settings)
        tools = [
            ToolSpec(spec.name, spec.description, spec.parameters)
            for _, spec in sorted(TOOL_SPECS.items())
        ]
        request = MODEL_REQUEST.format(caller=caller, request=item.input["request"])
        result = loop.run(MODEL_INSTRUCTIONS, request, tools, execute)
        return trajectory_of(
            result,
            item_id=item.item_id,
            repetition=repetition,
            final_state=env.snapshot(),
            outcome=env.outcome(),
            latency_ms=(perf_counter() - started) * 1000.0,
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
        facts = {
            "adapter": self.name,
            "adapter_version": self.version,
            "system": "synthbank",
            "system_version": synthbank.__version__,
            "bank_seed": config.params["bank_seed"],
        }
        if config.params.get("agent") == "model":
            endpoint = resolve_endpoint(config.params)
            facts |= {
                "model": endpoint.model,
                "model_base_url": endpoint.base_url,
                "model_loopback": endpoint.loopback,
            }
        return facts

    def affects_results(self) -> frozenset[str]:
        """Model facts count only for model runs: the set is intersected with a run's env."""
        return frozenset({"adapter_version", "system_version", "bank_seed", "model"})

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
        """Wall-clock latency, and `meta`: the mock leaves it empty, and a model run keeps its
        per-request records there (latencies, token counts, the final answer's text)."""
        return ("latency_ms", "latency.total_ms", "meta")
