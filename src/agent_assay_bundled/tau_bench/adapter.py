"""Adapter for suites imported from published tau-bench results (airline domain).

agent-assay does not contain tau-bench's airline environment, so this adapter
cannot run an agent or replay calls: `run_item` and `replay` raise an
AssayError, and it declares no replay capability, so the controls that need
execution report NOT_RUN with that reason. What it can do is state the facts the scorers and the
remaining controls need: which airline tools change the database, the
do-nothing agent, and `tau.reward`.

`tau.reward` is one binary scorer with two sources, never mixed silently:

* an imported trajectory judged against the gold it was published with
  carries tau-bench's own reward (stored with ``imported`` set); the harness
  computed nothing;
* any other trajectory (the do-nothing agent, or an imported one judged
  against another item's gold) gets tau-bench's reward rule where the stored
  data decides it. The reward is 1 iff the final database equals the one
  gold's actions produce and every gold output appears in one of the agent's
  replies. Without a database that is decidable when no state-changing call
  succeeded (the database is the initial one: it equals gold's iff gold
  changes nothing), when one succeeded but gold changes nothing (it differs),
  and when the succeeded state-changing calls are exactly gold's, in order
  (it equals). Anything else would need the database and scores n/a.

The rule assumes a succeeded state-changing call changes the database and a
failed one (a result starting "Error") does not. On gpt-4o-airline.json it
decides 136 of the 200 published rewards and agrees with 134; the 2 it
contradicts carry no reward_info (tau-bench computed no reward for them and
published 0), so it agrees with every reward tau-bench computed (see the tests).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_assay.adapters.system import Facts, NullAgent
from agent_assay.errors import AssayError
from agent_assay.model import (
    Config,
    Cost,
    Gold,
    PublicItem,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay_bundled.bands import BANDS
from agent_assay_bundled.tau_bench.parse import parse_results
from agent_assay_bundled.tau_bench.rules import (
    ADAPTER,
    CANNOT_EXECUTE,
    DOMAIN,
    PUBLISHED,
    WRITE_TOOLS,
    gold_digest,
    reward_rule,
)


class TauReward:
    """tau-bench's reward: published where it applies, the rule elsewhere (see module doc)."""

    name = "tau.reward"
    version = "1"
    definition = (
        "tau-bench reward (1 = final database equals gold's and every gold output was said): "
        "the published value for an imported trajectory under the gold it was published with; "
        "otherwise tau-bench's rule where stored data decides it (no state-changing call "
        "succeeded, or gold changes nothing, or the succeeded ones are gold's); else n/a"
    )
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        published = trajectory.meta.get("published_reward")
        if published is not None and trajectory.meta.get("gold_sha256") == gold_digest(gold):
            return ScoreValue(float(published), {"source": PUBLISHED}, imported=True)
        value, reason = reward_rule(gold, trajectory)
        return ScoreValue(value, {"source": "reward rule", "reason": reason})

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        """No longer the published trajectory, and the database no longer gold's."""
        meta = {k: v for k, v in t.meta.items() if k not in ("published_reward", "gold_sha256")}
        if any(c.tool in WRITE_TOOLS for c in gold.path):
            steps = tuple(s for s in t.steps if s.call.tool not in WRITE_TOOLS)
        else:
            planted = Step(ToolCall("cancel_reservation", {"reservation_id": "PLANTED"}), ok=True)
            steps = (*t.steps, planted)
        return replace(t, steps=steps, meta=meta)


def do_nothing(item: PublicItem, config: Config) -> Trajectory:
    """Says nothing and calls nothing: tau-bench would leave the database as it found it."""
    return Trajectory(
        item_id=item.item_id,
        repetition=1,
        cost=Cost(0.0, "null agent: no model calls"),
        meta={"agent": "do_nothing", "messages": [], "executed": False},
    )


class TauBenchAdapter:
    """No configs and no execution; imported runs carry their own Config (see the importer)."""

    name = ADAPTER
    facts = Facts(
        bands=BANDS / "tau_bench.yaml",
        headline_metrics=("tau.reward", "tools.recall"),
        mutating_tools=tuple(sorted(WRITE_TOOLS)),
        # tau-bench compares databases, so arguments count exactly as given: no normalisers
        nondeterministic_fields=(),
        # What makes two imported runs incomparable: how they were read, not which agent.
        # The file hash and the model are recorded but are not listed: two different files
        # always differ in hash, and a different model is a different agent (it is in the
        # Config, and so in the config hash), which is what a comparison compares.
        affects_results=frozenset({"adapter_version", "benchmark", "domain", "trajectories"}),
        scorers=(TauReward(),),
    )

    def __init__(self, version: str = "1.0.0") -> None:
        self.version = version

    # ---- suite and configs -------------------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        if source is None:
            raise AssayError(
                "the tau-bench adapter has no bundled suite: build it from a results file "
                "with `agent-assay import tau-bench FILE` (or --source FILE)"
            )
        return parse_results(Path(source)).suite

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        """None: there is no agent to configure, so `run` refuses before creating a run."""
        return {}

    # ---- running: impossible -------------------------------------------------
    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        raise AssayError(CANNOT_EXECUTE.format(what=f"run an agent on item {item.item_id}"))

    def record_without_executing(self, item: PublicItem, calls: Sequence[ToolCall]) -> Trajectory:
        """`calls` recorded as proposals that never ran (every step ok=False, saying so):
        the base the scorer self-test plants defects in, since nothing here can replay."""
        return Trajectory(
            item_id=item.item_id,
            repetition=1,
            steps=tuple(
                Step(call, ok=False, error="not executed: no tau-bench environment")
                for call in calls
            ),
            cost=Cost(0.0, "not executed"),
            meta={"agent": "recorded gold", "messages": [], "executed": False},
        )

    def null_agents(self) -> Mapping[str, NullAgent]:
        return {"do_nothing": do_nothing}

    def environment(self, config: Config) -> Mapping[str, Any]:
        params = config.params
        env: dict[str, Any] = {
            "benchmark": "tau-bench",
            "domain": params.get("domain", DOMAIN),
            "source_sha256": params.get("source_sha256"),
            "source_file": params.get("source_file"),
            "trajectories": "imported from a published results file; agent-assay executed "
            "nothing and the tau.reward values are tau-bench's",
        }
        if params.get("model") is not None:
            env["model"] = params["model"]
        return env
