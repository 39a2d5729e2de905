"""The adapter runs imported from Inspect logs are stored under (`inspect-log`).

agent-assay holds none of an Inspect task's solver, tools or model, so this adapter runs
nothing and replays nothing: `run_item` raises, and the controls that need execution are
declared NOT_RUN with the reason in its bands file. Its scorers are learned from the
stored suite (each item's input lists the log's scorers), one `InspectScore` each, and
they are its headline. Where every scorer of the log is one agent-assay can re-run
(`rules.RERUNNABLE`), it offers a do-nothing agent (an empty answer, no calls) and a
recording of the target as the answer for the scorer self-test; otherwise the bands file
it learns (`bands_opaque.yaml`) declares null_agent and shuffled_gold NOT_RUN, saying why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_assay.adapters.system import Facts, NullAgent
from agent_assay.errors import AssayError
from agent_assay.model import Config, Cost, PublicItem, PublicSuite, Suite, ToolCall, Trajectory
from agent_assay_bundled.inspect_log.parse import parse_log
from agent_assay_bundled.inspect_log.rules import ADAPTER, CANNOT_EXECUTE, rerunnable
from agent_assay_bundled.inspect_log.scorers import GOLD_ANSWER, InspectScore

HERE = Path(__file__).resolve().parent


def do_nothing(item: PublicItem, config: Config) -> Trajectory:
    """Calls nothing and answers nothing: the log's scorer is re-run on an empty answer."""
    return Trajectory(item_id=item.item_id, repetition=1,
                      cost=Cost(0.0, "null agent: no model calls"),
                      meta={"agent": "do_nothing", "answer": "", "executed": False})


class InspectLogAdapter:
    """No configs and no execution; an imported run carries its own Config (the importer)."""

    name = ADAPTER
    facts = Facts(
        bands=HERE / "bands.yaml",
        headline_metrics=(),
        # an Inspect sample's gold is its target answer: no call gold's path could hold
        gold_paths=False,
        # what makes two imported logs incomparable besides their suites: how they were
        # read; the model is the agent compared, and lives in the config
        affects_results=frozenset({"adapter_version", "benchmark", "task", "trajectories"}),
    )

    def __init__(self, version: str = "1.0.0") -> None:
        self.version = version
        self.specs: tuple[Mapping[str, Any], ...] = ()

    # ---- the suite, and the facts it teaches -------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        if source is None:
            raise AssayError("the inspect-log adapter has no bundled suite: import a log with "
                             "`agent-assay import inspect LOG`")
        suite = parse_log(Path(source)).suite
        self.specs = _specs(suite.items[0].input)
        return suite

    def prepare(self, suite: PublicSuite) -> None:
        self.specs = _specs(suite.items[0].input) if suite.items else ()

    def learned_facts(self, declared: Facts) -> Facts:
        scorers = tuple(InspectScore(s) for s in self.specs)
        bands = "bands.yaml" if self.all_rerunnable() else "bands_opaque.yaml"
        return replace(declared, scorers=scorers, headline_metrics=tuple(s.name for s in scorers),
                       bands=HERE / bands)

    def all_rerunnable(self) -> bool:
        return bool(self.specs) and all(rerunnable(s) for s in self.specs)

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        """None: there is no agent to configure, so `run` refuses before creating a run."""
        return {}

    # ---- running: impossible -------------------------------------------------------
    def run_item(self, item: PublicItem, config: Config, *, seed: int,
                 repetition: int) -> Trajectory:
        raise AssayError(CANNOT_EXECUTE.format(what=f"run an agent on item {item.item_id}"))

    def record_without_executing(self, item: PublicItem, calls: Sequence[ToolCall]) -> Trajectory:
        """The self-test's base: a trajectory recorded as answering the target itself."""
        return Trajectory(item_id=item.item_id, repetition=1,
                          cost=Cost(0.0, "not executed"),
                          meta={"agent": "recorded target", GOLD_ANSWER: True, "executed": False})

    def null_agents(self) -> Mapping[str, NullAgent]:
        return {"do_nothing": do_nothing} if self.all_rerunnable() else {}

    def environment(self, config: Config) -> Mapping[str, Any]:
        params = config.params
        return {
            "benchmark": "inspect",
            "task": params.get("task"),
            "model": params.get("model"),
            "source_sha256": params.get("source_sha256"),
            "log_status": params.get("log_status"),
            "trajectories": "imported from an Inspect eval log; agent-assay executed nothing "
            "and the inspect.* values under their own targets are the log's",
        }


def _specs(first_input: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    return tuple(first_input.get("inspect_scorers") or ())
