"""The verifiers adapter: a verifiers environment as a system under test, every agent
driven through the environment's own rollout path.

`--source` names the environment (see `source`). Its evaluation rows become items: the
public input is the prompt the model is shown; gold is the oracle plan a bridge supplies
(see `bridge`) and, in `truth`, the digest of everything else the task carries (answers,
hidden worlds, `info`), which never leaves the environment. The run side loads the
environment again from the suite's source line and finds each task by its example id,
checking that the prompt is the item's.

Agents are configs: `silent` answers at once without a call (the cheapest rollout that
still runs the environment's setup, stops and rubric), and `model` sends every request to
an OpenAI-compatible server (`AA_MODEL_BASE_URL`, `AA_MODEL`; the local llama.cpp server by
default). Replays (gold's plan, mutated plans, random calls, the null agent) go through the
same path with a scripted policy in the model's place. A trajectory's steps are the calls
the rollout made, each marked failed when its tool was not offered with that request or
raised in the harness; the rubric's reward, metrics and stop condition are kept in its meta
(the environment's own state is not exposed, so there is no final state to assert on).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from time import perf_counter
from typing import Any

from agent_assay.adapters.system import Facts
from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay.model import (
    Config,
    Cost,
    Gold,
    Item,
    PublicItem,
    PublicSuite,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay_bundled.bands import BANDS
from agent_assay_bundled.verifiers_env.scoring import RUBRIC, TASK_DIGEST, EnvironmentReward

ADAPTER = "verifiers"
OFFLINE_ADAPTER = "verifiers-offline"
HEADLINE = ("env.reward", "tools.recall")
REPLAYED = Cost(0.0, "scripted policy in the model's place: nothing billed")


def task_digest(gold_part: Mapping[str, Any]) -> str:
    """The digest of a task's hidden part, binding a rollout's reward to its gold."""
    return hashlib.sha256(canonical_json(_plain(gold_part)).encode("utf-8")).hexdigest()


def _plain(value: Any) -> Any:
    """verifiers freezes task values in its own mapping and sequence types."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def item_id_of(example_id: str) -> str:
    """Zero-padded so items sort in dataset order."""
    return f"task-{int(example_id):05d}" if example_id.isdigit() else f"task-{example_id}"


class VerifiersAdapter:
    """See the module docstring."""

    name = ADAPTER
    facts = Facts(
        headline_metrics=HEADLINE,
        bands=BANDS / "verifiers.yaml",
        affects_results=frozenset({"adapter_version", "environment", "environment_args",
                                   "verifiers", "model_endpoint"}),
        scorers=(EnvironmentReward(),),
    )

    def __init__(self, version: str = "0.1.0") -> None:
        self.version = version
        self._loaded: Any = None
        self._tasks: dict[str, Any] = {}
        self._catalogue: dict[str, Mapping[str, Any]] | None = None
        self._pools: Mapping[str, Sequence[Any]] | None = None

    # ---- the environment -----------------------------------------------------------
    def _load(self, where: Any) -> Any:
        from agent_assay_bundled.verifiers_env.bridge import bridge_for
        from agent_assay_bundled.verifiers_env.rollout import (
            environment_module,
            load_environment,
            tasks,
        )

        module_source = where.module_source()
        env = load_environment(module_source, where.args)
        self._loaded = (where, env, bridge_for(where.env_id, environment_module(module_source)))
        self._tasks = {item_id_of(t.example_id): t for t in tasks(env)}
        self._catalogue = self._pools = None
        return self._loaded

    def _ready(self) -> tuple[Any, Any, Any]:
        if self._loaded is None:
            raise AssayError("verifiers adapter: no environment loaded (build the suite with "
                             "--source, or run a stored suite)")
        where, env, bridge = self._loaded
        return where, env, bridge

    def task_of(self, item: PublicItem) -> Any:
        """The environment's task behind `item`, checked against its stored prompt."""
        self._ready()
        task = self._tasks.get(item.item_id)
        if task is None:
            raise AssayError(f"verifiers item {item.item_id}: no such task in the environment")
        if _plain(task.prompt) != _plain(item.input.get("prompt")):
            raise AssayError(f"verifiers item {item.item_id}: the environment's prompt for it "
                             "is not the stored one (another environment or other arguments?)")
        return task

    # ---- suite and configs ---------------------------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        from agent_assay_bundled.verifiers_env.source import resolve

        where, _, bridge = self._load(resolve(source))
        items = []
        for item_id, task in self._tasks.items():
            hidden = task.gold_of()
            path = tuple(ToolCall(c.tool, _plain(dict(c.arguments)))
                         for c in (bridge.oracle_plan(task) if bridge else ()))
            items.append(Item(
                item_id=item_id,
                input={"prompt": _plain(task.prompt), "example_id": task.example_id},
                gold=Gold(path=path, truth={TASK_DIGEST: task_digest(hidden),
                                            "ceiling": bridge.ceiling if bridge else 1.0}),
                tags=bridge.tags(task) if bridge else (),
            ))
        return Suite(adapter=self.name, items=tuple(items), source=where.describe())

    def prepare(self, suite: PublicSuite) -> None:
        """Load the environment the suite names, with the same arguments."""
        from agent_assay_bundled.verifiers_env.source import EnvironmentSource

        where = EnvironmentSource.described_in(suite.source)
        if where is None:
            raise AssayError(f"verifiers suite {suite.suite_hash[:12]}: its source "
                             f"{suite.source!r} names no verifiers environment")
        if self._loaded is None or self._loaded[0] != where:
            self._load(where)
        missing = [i.item_id for i in suite.items if i.item_id not in self._tasks]
        if missing:
            raise AssayError(f"verifiers suite {suite.suite_hash[:12]}: task {missing[0]} is "
                             f"not among the environment's ({where.env_id})")

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {
            "silent": {"agent": "silent"},
            "model": {"agent": "verifiers_model", "model": None, "base_url": None,
                      "temperature": 0.0},
            "oracle": {"agent": "oracle_plan",
                       "note": "reads each task's hidden part through the bridge: the "
                               "positive control's plan as a run, never a system under test"},
        }

    def environment(self, config: Config) -> Mapping[str, Any]:
        from importlib.metadata import version

        from agent_assay.llm.endpoint import resolve_endpoint

        where = self._loaded[0] if self._loaded is not None else None
        facts: dict[str, Any] = {
            "environment": where.env_id if where else None,
            "environment_args": dict(where.args) if where else {},
            "verifiers": version("verifiers"),
        }
        if config.params.get("agent") == "verifiers_model":
            facts["model_endpoint"] = resolve_endpoint(config.params).public()
        return facts

    # ---- running -------------------------------------------------------------------
    def run_item(self, item: PublicItem, config: Config, *, seed: int,
                 repetition: int) -> Trajectory:
        agent = config.params.get("agent")
        if agent == "silent":
            return self._play(item, (), repetition)
        if agent == "verifiers_model":
            return self._model_rollout(item, config, repetition)
        if agent == "oracle_plan":
            return self._play(item, self._oracle_plan(item), repetition)
        raise AssayError(f"verifiers config {config.name}: unknown agent {agent!r}")

    def _model_rollout(self, item: PublicItem, config: Config, repetition: int) -> Trajectory:
        from openai import AsyncOpenAI

        from agent_assay.llm.endpoint import resolve_endpoint
        from agent_assay_bundled.verifiers_env.scripted import RecordedServer

        endpoint = resolve_endpoint(config.params)
        client = AsyncOpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key)
        cost = Cost(0.0, "local model") if endpoint.loopback else Cost(
            0.0, "not reported by the endpoint")
        done = self._rollout(item, RecordedServer(client), repetition, cost,
                             model=endpoint.model)
        if done.error is None:
            return done
        return replace(done, error=f"model server {endpoint.base_url} ({endpoint.model}): "
                                   f"{done.error}")

    def _oracle_plan(self, item: PublicItem) -> list[Any]:
        bridge = self._ready()[2]
        if bridge is None:
            raise AssayError(f"verifiers environment {self._ready()[0].env_id}: no bridge "
                             "gives its oracle plan, so the oracle config cannot run")
        return list(bridge.oracle_plan(self.task_of(item)))

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        from agent_assay_bundled.verifiers_env.scripted import Call

        return self._play(item, [Call(c.tool, dict(c.args)) for c in calls], 1)

    def _play(self, item: PublicItem, plan: Sequence[Any], repetition: int) -> Trajectory:
        """`plan` made by a scripted policy in the model's place, through the rollout path."""
        from agent_assay_bundled.verifiers_env.scripted import Scripted, ScriptedModel

        return self._rollout(item, ScriptedModel(Scripted(plan)), repetition, REPLAYED)

    def _rollout(self, item: PublicItem, stand_in: Any, repetition: int, cost: Cost, *,
                 model: str = "scripted") -> Trajectory:
        from agent_assay_bundled.verifiers_env.rollout import drive

        task = self.task_of(item)
        started = perf_counter()
        done = drive(self._ready()[1], task, stand_in, model=model)
        steps = tuple(_step(call, done.turns) for call in done.calls)
        return Trajectory(
            item_id=item.item_id,
            repetition=repetition,
            steps=steps,
            final_state=None,
            outcome=done.stop,
            latency_ms=(perf_counter() - started) * 1000.0,
            cost=cost,
            crashed=done.error is not None,
            error=done.error,
            meta={TASK_DIGEST: task_digest(task.gold_of()),
                  RUBRIC: {"reward": done.reward, "metrics": dict(done.metrics),
                           "stop": done.stop},
                  "offered": [list(turn.offered) for turn in done.turns]},
        )

    def _offline_path(self) -> Any:
        from agent_assay_bundled.verifiers_env.bridge import OfflinePath

        where, _, bridge = self._ready()
        if not isinstance(bridge, OfflinePath):
            raise AssayError(f"verifiers environment {where.env_id}: its bridge has no "
                             "offline path (offline_reward)")
        return bridge

    # ---- what replays and random calls draw on ---------------------------------------
    def baseline_snapshot(self) -> dict[str, Any]:
        """Empty: the environment's state lives inside its rollout and is not exposed; what
        the rubric made of it is in each trajectory's meta."""
        return {}

    def tool_catalogue(self) -> Mapping[str, Mapping[str, Any]]:
        """Every tool offered with any task's first request, with its parameters, found by
        a silent rollout of each task (offered tools are the environment's to decide)."""
        if self._catalogue is None:
            from agent_assay_bundled.verifiers_env.rollout import drive
            from agent_assay_bundled.verifiers_env.scripted import Scripted, ScriptedModel

            _, env, _ = self._ready()
            found: dict[str, Mapping[str, Any]] = {}
            for task in self._tasks.values():
                stand_in = ScriptedModel(Scripted(()))
                drive(env, task, stand_in, model="scripted")
                for name, parameters in stand_in.specs.items():
                    found.setdefault(name, parameters)
            self._catalogue = dict(sorted(found.items()))
        return self._catalogue

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        """The bridge's pools when it has them; otherwise none, and random and mutated
        arguments are drawn from each parameter's JSON type."""
        from agent_assay_bundled.verifiers_env.bridge import ArgumentPools

        if self._pools is None:
            bridge = self._ready()[2]
            self._pools = (bridge.argument_pools(list(self._tasks.values()))
                           if isinstance(bridge, ArgumentPools) else {})
        return self._pools


def _step(call: Any, turns: Sequence[Any]) -> Step:
    """A made call as a step: failed when its tool was not offered with its request, when
    it raised in the harness, or when no tool message came back."""
    tool_call = ToolCall(call.tool, _plain(dict(call.arguments)))
    if not call.offered:
        offered = turns[call.turn].offered if call.turn < len(turns) else ()
        return Step(tool_call, False, call.result,
                    f"not offered with request {call.turn + 1} (offered: "
                    f"{', '.join(offered) or 'no tool'})")
    if call.raised is not None:
        return Step(tool_call, False, call.result, f"raised {call.raised}: {call.result}")
    if call.result is None:
        return Step(tool_call, False, None, "no tool message came back")
    return Step(tool_call, True, call.result)


class OfflineVerifiersAdapter(VerifiersAdapter):
    """The same environment, suite and scorers, with every plan run through the
    environment's core functions directly (its bridge's offline path), as its authors'
    own scripts measure it: no framework between the calls and the tools. Its numbers are
    what an environment's offline tests claim; the `verifiers` adapter's are what the
    rollout path delivers."""

    name = OFFLINE_ADAPTER

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {name: params for name, params in super().configs().items()
                if params.get("agent") != "verifiers_model"}

    def _play(self, item: PublicItem, plan: Sequence[Any], repetition: int) -> Trajectory:
        task = self.task_of(item)
        started = perf_counter()
        done = self._offline_path().offline_reward(task, plan)
        steps = tuple(Step(ToolCall(call.tool, _plain(dict(call.arguments))), made.ok,
                           made.result, made.error)
                      for call, made in zip(plan, done.calls, strict=True))
        return Trajectory(
            item_id=item.item_id, repetition=repetition, steps=steps, final_state=None,
            outcome="offline", latency_ms=(perf_counter() - started) * 1000.0,
            cost=Cost(0.0, "the environment's core functions, called directly"),
            meta={TASK_DIGEST: task_digest(task.gold_of()),
                  RUBRIC: {"reward": done.reward, "metrics": dict(done.metrics),
                           "stop": "offline"}},
        )
