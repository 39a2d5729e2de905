"""The `bfcl` system: BFCL multi-turn entries as items, BFCL's environment classes as the
world, BFCL's checker as a scorer.

`--source` chooses the category and release (see `source`). An item is one entry, its id
the entry's; its public input is the user's first turn, and the later turns come from the
episode when the agent stops calling tools (`episode`). Gold is the entry's possible
answer, replayed (`gold`). Agents: `silent` answers every turn without a call; `oracle`
replays the possible answer (the run the controls certify the benchmark on); the model
configs run the harness's model agent through the episodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_assay.adapters.system import Facts, ModelPrompt, ToolSpec
from agent_assay.errors import AssayError
from agent_assay.llm.configs import model_params
from agent_assay.model import (
    Config,
    Item,
    PublicItem,
    PublicSuite,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay_bundled.bands import BANDS
from agent_assay_bundled.bfcl.entries import Entry, entries, ground_truth
from agent_assay_bundled.bfcl.scoring import VALID, BfclValid
from agent_assay_bundled.bfcl.source import Benchmark, resolve

ADAPTER = "bfcl"
HEADLINE = (VALID, "state.assertions", "tools.recall")
PROMPT = ModelPrompt(
    "You are an assistant that completes the user's requests by calling the functions "
    "offered. Call them with the arguments the request gives; when a request cannot be "
    "completed with the functions offered, say so instead of calling one.",
    "{request}",
)
MODEL_CONFIGS: dict[str, dict[str, Any]] = {
    "smollm2-t0": {**model_params("SmolLM2-135M-Instruct.Q4_1", 0.0, prompt=PROMPT,
                                  terminal_tools=()), "max_turns": 60},
}
"""The harness's model agent; its request budget covers a whole conversation (BFCL allows
20 steps per turn, and entries have up to 8 turns), so it is raised from the default."""


class BfclSystem:
    """See the module docstring."""

    name = ADAPTER
    version = "1.0.0"
    model_prompt = PROMPT
    facts = Facts(
        headline_metrics=HEADLINE,
        scorers=(BfclValid(),),
        bands=BANDS / "bfcl.yaml",
        affects_results=frozenset({"adapter_version", "bfcl_eval", "category"}),
        deterministic_configs=frozenset({"silent", "oracle"}),
    )

    def __init__(self) -> None:
        self.benchmark: Benchmark | None = None
        self.ids: tuple[str, ...] = ()

    # ---- the benchmark ---------------------------------------------------------------
    def _load(self, benchmark: Benchmark) -> dict[str, Entry]:
        self.benchmark = benchmark
        return self.entries()

    def entries(self) -> dict[str, Entry]:
        if self.benchmark is None:
            raise AssayError("bfcl adapter: no category loaded (build the suite, or run a "
                             "stored one)")
        return entries(self.benchmark.category)

    def entry(self, item_id: str) -> Entry:
        found = self.entries().get(item_id)
        if found is None:
            raise AssayError(f"bfcl item {item_id}: no such entry in "
                             f"{self.benchmark.category if self.benchmark else 'bfcl'}")
        return found

    def truth(self) -> dict[str, list[list[str]]]:
        assert self.benchmark is not None
        return ground_truth(self.benchmark.category)

    # ---- suite and configs -----------------------------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        return self.build_suite_for(resolve(source))

    def build_suite_for(self, benchmark: Benchmark) -> Suite:
        """The suite of `benchmark` (what `--source` names, already read)."""
        from agent_assay_bundled.bfcl.episode import user_message
        from agent_assay_bundled.bfcl.gold import replay_gold

        loaded = self._load(benchmark)
        truth = self.truth()
        self.ids = tuple(benchmark.kept(list(loaded)))
        items = []
        for entry_id in self.ids:
            entry = loaded[entry_id]
            items.append(Item(
                item_id=entry_id,
                input={"request": user_message(entry, 0)},
                gold=replay_gold(entry, truth[entry_id]).gold,
                tags=(benchmark.category, *sorted(entry["involved_classes"])),
            ))
        return Suite(adapter=self.name, items=tuple(items), source=benchmark.describe())

    def prepare(self, suite: PublicSuite) -> None:
        benchmark = Benchmark.described_in(suite.source)
        if benchmark is None:
            raise AssayError(f"bfcl suite {suite.suite_hash[:12]}: its source "
                             f"{suite.source!r} names no BFCL category")
        loaded = self._load(benchmark)
        missing = [i.item_id for i in suite.items if i.item_id not in loaded]
        if missing:
            raise AssayError(f"bfcl suite {suite.suite_hash[:12]}: entry {missing[0]} is not "
                             f"in {benchmark.category} of bfcl-eval {benchmark.version}")
        self.ids = tuple(i.item_id for i in suite.items)

    def learned_facts(self, declared: Facts) -> Facts:
        """The mutating tools of the loaded suite, learned by replaying its gold."""
        from agent_assay_bundled.bfcl.facts import learned

        if self.benchmark is None:
            return declared
        return learned(declared, self.benchmark.category, self.ids)

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {
            "silent": {"agent": "silent"},
            "oracle": {"agent": "oracle",
                       "note": "replays each entry's possible answer, read from the package: "
                               "the positive control's plan as a run, never a system under "
                               "test"},
            **MODEL_CONFIGS,
        }

    def environment(self, config: Config) -> Mapping[str, Any]:
        from agent_assay_bundled.bfcl.source import installed_version

        return {"bfcl_eval": installed_version(),
                "category": self.benchmark.category if self.benchmark else None}

    # ---- running ---------------------------------------------------------------------
    def run_item(self, item: PublicItem, config: Config, *, seed: int,
                 repetition: int) -> Trajectory:
        from agent_assay.adapters.loaded import run_calls
        from agent_assay_bundled.bfcl.gold import replay_gold

        agent = config.params.get("agent")
        if agent == "silent":
            plan: tuple[ToolCall, ...] = ()
        elif agent == "oracle":
            plan = replay_gold(self.entry(item.item_id), self.truth()[item.item_id]).gold.path
        else:
            raise AssayError(f"bfcl config {config.name}: unknown agent {agent!r}")
        return run_calls(self, item, config, plan, seed=seed, repetition=repetition)

    def open_episode(self, item: PublicItem, config: Config | None, *, seed: int) -> Any:
        from agent_assay_bundled.bfcl.episode import BfclEpisode

        return BfclEpisode(self.entry(item.item_id))

    def tools(self, item: PublicItem | None) -> Sequence[ToolSpec]:
        """The docs offered at the first turn of `item`; None: every doc any loaded entry
        offers at any turn."""
        from agent_assay_bundled.bfcl.tools import docs_at_turn, tool_specs

        if item is not None:
            return tool_specs(docs_at_turn(self.entry(item.item_id), 0))
        docs: dict[str, Any] = {}
        for entry_id in self.ids or tuple(self.entries()):
            for doc in docs_at_turn(self.entry(entry_id), 10**6):
                docs.setdefault(doc["name"], doc)
        return tool_specs([docs[name] for name in sorted(docs)])

    def baseline_snapshot(self) -> dict[str, Any]:
        """Empty: every entry brings its own initial config, so there is no one world
        before the agent acts; gold asserts on whole instances (see `gold`)."""
        return {}

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        """Every value the loaded entries' ground truth passes, by argument name."""
        from agent_assay.hashing import canonical_json
        from agent_assay_bundled.bfcl.entries import gold_turns

        pools: dict[str, dict[str, Any]] = {}
        truth = self.truth()
        for entry_id in self.ids or tuple(self.entries()):
            entry = self.entry(entry_id)
            for turn in gold_turns(entry_id, truth[entry_id], entry["involved_classes"]):
                for call in turn:
                    for key, value in call.args.items():
                        pools.setdefault(key, {}).setdefault(canonical_json(value), value)
        return {key: list(values.values()) for key, values in sorted(pools.items())}
