"""The Inspect adapter: one task of the installed inspect_ai as a system under test.

Items are the task's samples (`items`); ``--source`` names the task and its arguments
(`source`). The system has episodes (`episode`): each runs one sample in Inspect with the
harness deciding what the model says, so replay, the do-nothing agent, the random tool
caller and the harness's model agent all go through the task's own solver and tools. The
headline is the task's own scorers (`checks`), learned once a task is loaded.

Configs: ``mock`` (Inspect's mockllm with a scripted list of outputs, ``-M script=JSON``;
`scripted`), ``oracle`` (gold's calls, then the sample's target as the answer: a positive
control that reads the hidden sample, never a system under test) and ``smollm2-t0`` (the
harness's model agent on a model server, ``AA_MODEL_BASE_URL``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from time import perf_counter
from typing import Any

from agent_assay.adapters.system import Facts, ModelPrompt, ToolSpec
from agent_assay.errors import AssayError
from agent_assay.llm.configs import model_params
from agent_assay.model import (
    Config,
    Cost,
    PublicItem,
    PublicSuite,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay_bundled.inspect_task import door
from agent_assay_bundled.inspect_task.checks import TaskScorer, scorer_names
from agent_assay_bundled.inspect_task.episode import InspectEpisode
from agent_assay_bundled.inspect_task.items import (
    gold_calls,
    gold_path,
    items,
    sample_named,
    samples,
)
from agent_assay_bundled.inspect_task.learned import mutating_tools
from agent_assay_bundled.inspect_task.loading import load_task
from agent_assay_bundled.inspect_task.scripted import parse_script, script_for
from agent_assay_bundled.inspect_task.source import TaskSource, load_source, names_task
from agent_assay_bundled.inspect_task.tools import ANSWER

FREE = Cost(0.0, "Inspect's mockllm played a script or gold: no model calls, nothing billed")
INSTRUCTIONS = """\
You are an assistant with tools. Do what the user asks using the tools, then call \
submit_answer with your final answer (or reply with it as plain text)."""
PROMPT = ModelPrompt(INSTRUCTIONS, "{prompt}")
MOCK, ORACLE = "mock", "oracle"
MODEL_CONFIGS: dict[str, dict[str, Any]] = {
    "smollm2-t0": model_params("SmolLM2-135M-Instruct.Q4_1", 0.0, prompt=PROMPT,
                               terminal_tools=(ANSWER,)),
}


class InspectTaskSystem:
    """An Inspect task; configs mock (scripted mockllm), oracle and a model config."""

    name = "inspect"
    version = "1.0.0"
    facts = Facts(
        deterministic_configs=frozenset({MOCK, ORACLE}),
        affects_results=frozenset({"adapter_version", "inspect_version"}),
        settings={"script": str},
    )
    model_prompt = PROMPT

    def __init__(self) -> None:
        self._source: TaskSource | None = None
        self._task: Any = None
        self._tools: dict[str, tuple[ToolSpec, ...]] = {}
        self._baseline: dict[str, Any] | None = None

    # ---- the suite ---------------------------------------------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        if source is None:
            raise AssayError("the inspect system needs --source: a task file (FILE.py) or a "
                             "YAML file naming the task (see docs/inspect.md)")
        spec = load_source(Path(source))
        task = self._load(spec)
        return Suite(adapter=self.name, items=tuple(items(spec, task)), source=spec.describe())

    def names_source(self, text: str) -> bool:
        """`--source FILE.py@NAME` and `--source package/name` name a task directly."""
        return names_task(text)

    def prepare(self, suite: PublicSuite) -> None:
        spec = TaskSource.described_in(suite.source)
        if spec is None:
            raise AssayError(f"inspect suite {suite.suite_hash[:12]}: its source "
                             f"{suite.source!r} names no Inspect task")
        self._load(spec)

    def learned_facts(self, declared: Facts) -> Facts:
        """The task's scorers, as the headline, and the tools gold's calls change the store
        with (`learned`)."""
        spec, task = self._loaded()
        learned = replace(declared, mutating_tools=mutating_tools(spec, task))
        scorers = tuple(TaskScorer(name, key) for name, key in scorer_names(task))
        if not scorers:
            return learned
        return replace(learned, scorers=scorers, headline_metrics=tuple(s.name for s in scorers))

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        scripted: dict[str, dict[str, Any]] = {
            MOCK: {"agent": MOCK, "model": "mockllm/model", "script": "[]"},
            ORACLE: {"agent": ORACLE, "positive_control": True, "reads_hidden_state": True}}
        return {**scripted, **MODEL_CONFIGS}

    def run_item(self, item: PublicItem, config: Config, *, seed: int, repetition: int
                 ) -> Trajectory:
        started = perf_counter()
        agent = config.params.get("agent")
        if agent == MOCK:
            calls = script_for(str(config.params.get("script", "[]")), item.item_id)
        elif agent == ORACLE:
            spec, task = self._loaded()
            calls = list(gold_path(spec, sample_named(spec, task, item.item_id)))
        else:
            raise AssayError(f"config {config.name} is not an inspect scripted agent")
        episode = self.open_episode(item, config, seed=seed)
        steps = []
        for call in calls:
            outcome = episode.call(call.tool, call.args)
            steps.append(Step(ToolCall(call.tool, dict(call.args)), outcome.ok, outcome.result,
                              outcome.error))
        ending = episode.finish()
        return Trajectory(item_id=item.item_id, repetition=repetition, steps=tuple(steps),
                          final_state=None if ending.final_state is None
                          else dict(ending.final_state),
                          outcome=ending.outcome, latency_ms=(perf_counter() - started) * 1000.0,
                          cost=FREE, meta={"agent": agent, **ending.meta})

    # ---- episodes ----------------------------------------------------------------------------
    def open_episode(self, item: PublicItem, config: Config | None, *, seed: int
                     ) -> InspectEpisode:
        """The sample run by Inspect; the tools its first turn offers are kept for `tools`
        (which the model agent asks with the episode open, and Inspect runs one evaluation
        at a time)."""
        spec, task = self._loaded()
        episode = InspectEpisode(task, sample_named(spec, task, item.item_id).id)
        self._tools.setdefault(item.item_id, episode.offered)
        return episode

    def tools(self, item: PublicItem | None) -> Sequence[ToolSpec]:
        """What the solver offers its model at its first turn on `item` (None: the first
        sample), as an episode of it saw them, or learned by running the sample once with
        no call; once per process."""
        spec, task = self._loaded()
        sample = (sample_named(spec, task, item.item_id) if item is not None
                  else samples(spec, task)[0])
        key = str(sample.id)
        if key not in self._tools:
            episode = InspectEpisode(task, sample.id)
            self._tools[key] = episode.offered
            ending = episode.finish()
            if item is None and self._baseline is None:
                self._baseline = dict(ending.final_state or {})
        return self._tools[key]

    def baseline_snapshot(self) -> dict[str, Any]:
        """The first sample's state when no call is made (its store as the setup left it)."""
        if self._baseline is None:
            self._tools.pop(str(self._first_id()), None)
            self.tools(None)
        assert self._baseline is not None
        return dict(self._baseline)

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        """argument -> every distinct value gold's calls pass for it."""
        spec, task = self._loaded()
        pools: dict[str, dict[str, Any]] = {}
        for sample in samples(spec, task):
            for call in gold_calls(spec, sample):
                for name, value in call.args.items():
                    pools.setdefault(name, {})[repr(value)] = value
        return {name: [values[k] for k in sorted(values)] for name, values in pools.items()}

    def environment(self, config: Config) -> Mapping[str, Any]:
        """What a run records; a mock config's script is checked here, before anything is
        written."""
        spec, task = self._loaded()
        if config.params.get("agent") == MOCK:
            parse_script(str(config.params.get("script", "[]")))
        return {"system": "inspect", "inspect_version": door.installed_version(),
                "task": spec.label, "task_name": str(task.name), "task_args": spec.args,
                "agent": config.params.get("agent")}

    # ---- the loaded task ---------------------------------------------------------------------
    def _load(self, spec: TaskSource) -> Any:
        if self._source is None or spec.describe() != self._source.describe():
            self._tools.clear()
            self._baseline = None
        self._source, self._task = spec, load_task(spec)
        return self._task

    def _loaded(self) -> tuple[TaskSource, Any]:
        if self._source is None:
            raise AssayError("the inspect system has no task loaded: give --source")
        return self._source, self._task

    def _first_id(self) -> Any:
        spec, task = self._loaded()
        return samples(spec, task)[0].id
