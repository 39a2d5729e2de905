"""Adapter for synthbank, the bundled retail-banking support system.

This module is the only part of agent-assay that imports synthbank. It turns
golden scripts into Items, runs synthbank's agents against a fresh seeded bank
per item, and states the bank's facts the scorers need: which tools mutate the
world, that identifiers compare case-blind, that identity verification
(get_customer) must precede any action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

import synthbank
from agent_assay.adapters.system import Ending, Facts, ModelPrompt, ToolOutcome, ToolSpec
from agent_assay.errors import AssayError
from agent_assay.infiles import read_utf8
from agent_assay.llm.configs import model_params
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
from agent_assay.yamlfile import parse_located
from synthbank.agents import run_mock
from synthbank.scripts import PublicRequest, Script, ScriptError, load_scripts
from synthbank.tools import TOOL_SPECS, Environment
from synthbank.world import DEFAULT_SEED, build_world

FREE = Cost(0.0, "scripted agent: no model calls, nothing billed")

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


PROMPT = ModelPrompt(MODEL_INSTRUCTIONS, MODEL_REQUEST)


def model_config(model: str, temperature: float) -> dict[str, Any]:
    """A banking model config: the shared model parameters plus the bank's seed."""
    params = model_params(model, temperature, prompt=PROMPT, terminal_tools=TERMINAL_TOOLS)
    return {**params, "bank_seed": DEFAULT_SEED}


MODEL_CONFIGS: dict[str, dict[str, Any]] = {
    "smollm2-t0": model_config(SMOLLM2, 0.0),
    "smollm2-t07": model_config(SMOLLM2, 0.7),
}


def checked_script(path: Path) -> str:
    """A golden script given with --source: read as the harness reads every file it is
    given (a regular file of bounded size, UTF-8) and held to its YAML rules (no key given
    twice, no lone surrogate, no alias bomb) before synthbank validates its fields."""
    text = read_utf8(path, "golden script")
    parse_located(path, text, "golden script")
    return text


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


class BankEpisode:
    """One fresh bank for one caller; each result is the copy the bank's log keeps."""

    def __init__(self, caller: str, bank_seed: int) -> None:
        self.env = Environment(build_world(bank_seed), caller)

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolOutcome:
        self.env.call(tool, args)
        step = self.env.log[-1]
        return ToolOutcome(step.ok, step.data, step.error)

    def finish(self) -> Ending:
        return Ending(self.env.snapshot(), self.env.outcome())


class BankingAdapter:
    """Configs: `mock` (deterministic scripted agent), `mock-noisy` (defects vary by repeat),
    and model configs (`smollm2-t0`, `smollm2-t07`) run by the harness's model agent against
    an OpenAI-compatible endpoint (AA_MODEL_BASE_URL, default the local server)."""

    name = "banking"
    facts = Facts(
        mutating_tools=tuple(sorted(name for name, spec in TOOL_SPECS.items() if spec.mutating)),
        order_anchors={"*": "get_customer"},
        # identifiers are case-blind and whitespace-tolerant; free text is compared as is
        arg_normalisers={
            tool: {
                arg: ("strip", "upper")
                for arg in spec.parameters.get("properties", {})
                if arg.endswith("_id")
            }
            for tool, spec in TOOL_SPECS.items()
        },
        # wall-clock latency, and `meta`: the mock leaves it empty, and a model run keeps its
        # per-request records there (latencies, token counts, the final answer's text)
        nondeterministic_fields=("latency_ms", "latency.total_ms", "meta"),
        affects_results=frozenset({"adapter_version", "system_version", "bank_seed"}),
        deterministic_configs=frozenset({"mock"}),
        # which defects the deterministic mock plants. Not bank_seed: gold is written for
        # the default bank, so another world would make the golden set wrong; not noisy:
        # mock-noisy is that agent, and mock is claimed deterministic by name
        settings={"defect_seed": int},
    )
    model_prompt = PROMPT

    def __init__(self, version: str = "1.0.0") -> None:
        self.version = version

    # ---- suite and configs -------------------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        try:
            scripts = load_scripts(source) if source is None else load_scripts(
                source, read=checked_script)
        except ScriptError as exc:
            raise AssayError(str(exc)) from exc
        except FileNotFoundError as exc:
            raise AssayError(f"golden-script directory not found: {exc.filename}") from exc
        where = str(source) if source else "synthbank bundled scripts"
        return Suite(adapter=self.name, items=tuple(map(item_from_script, scripts)), source=where)

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        common = {"agent": "mock", "bank_seed": DEFAULT_SEED, "defect_seed": 0}
        return {
            "mock": {**common, "noisy": False},
            "mock-noisy": {**common, "noisy": True},
            **MODEL_CONFIGS,
        }

    # ---- the scripted agents ------------------------------------------------------
    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        noisy = bool(config.params["noisy"])
        # The deterministic mock's defects are fixed by the config's defect_seed, so every
        # repetition is the same agent; the noisy mock draws them from the per-item seed.
        agent_seed = seed if noisy else int(config.params["defect_seed"])
        started = perf_counter()
        request = PublicRequest(
            id=item.item_id, caller=str(item.input["caller"]), request=str(item.input["request"])
        )
        env = Environment(build_world(int(config.params["bank_seed"])), request.caller)
        run_mock(request, env, seed=agent_seed, repetition=repetition, noisy=noisy)
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

    # ---- the bank as an environment the harness drives ------------------------------
    def open_episode(self, item: PublicItem, config: Config | None, *, seed: int) -> BankEpisode:
        bank_seed = DEFAULT_SEED if config is None else int(config.params["bank_seed"])
        return BankEpisode(str(item.input["caller"]), bank_seed)

    def tools(self, item: PublicItem | None) -> Sequence[ToolSpec]:
        return [
            ToolSpec(spec.name, spec.description, spec.parameters)
            for _, spec in sorted(TOOL_SPECS.items())
        ]

    def baseline_snapshot(self) -> dict[str, Any]:
        return build_world(DEFAULT_SEED).snapshot()

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        """Every argument ending in _id draws from the bank's ids of that kind."""
        return build_world(DEFAULT_SEED).identifiers()

    def environment(self, config: Config) -> Mapping[str, Any]:
        return {
            "system": "synthbank",
            "system_version": synthbank.__version__,
            "bank_seed": config.params["bank_seed"],
        }
