"""Benchmark the harness's own cost: store + scoring per trajectory, and peak memory.

Writes reports/bench/core.json. Three measurements:
1. `harness`: 10,000 synthetic trajectories from a no-op agent through the real
   runner (all generic scorers, each trajectory committed with its scores), so
   the time is the harness's, not an agent's; the median of three trials.
2. `banking_mock`: the bundled banking suite with the deterministic mock agent,
   k=1, so the agent's own share is visible beside the harness cost.
3. peak RSS of this process.
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

from agent_assay import api
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
from agent_assay.runner import (
    execute_run,
)
from agent_assay.scoring.base import Scorer
from agent_assay.store import open_store
from agent_assay_bundled.banking import BankingAdapter
from tools.bench.output import write_figures

N_ITEMS = 100
N_REPEATS = 100
BENCH_TRIALS = 3


def synthetic_state(i: int) -> dict[str, Any]:
    return {
        "accounts": {
            f"A{j}": {"balance": 100 * j + (i if j == 0 else 0), "owner": f"C{j}"}
            for j in range(10)
        }
    }


class NoopAdapter:
    """Returns a pre-built, realistic trajectory per item: no agent work at all."""

    name = "noop"
    version = "1.0.0"

    def __init__(self) -> None:
        self.items = tuple(
            Item(
                item_id=f"item-{i:04d}",
                input={"request": f"request {i}"},
                gold=Gold(
                    path=(ToolCall("lookup", {"id": f"A{i % 10}"}), ToolCall("act", {"id": "A0"})),
                    outcome="resolved",
                    assertions=(StateAssertion("accounts.A0.balance", i),),
                ),
            )
            for i in range(N_ITEMS)
        )
        self.trajectories = {
            item.item_id: Trajectory(
                item_id=item.item_id,
                repetition=1,
                steps=(
                    Step(ToolCall("lookup", {"id": f"A{i % 10}"}), True, {"balance": 1}),
                    Step(ToolCall("act", {"id": "A0"}), True, {"ok": True}),
                    Step(ToolCall("lookup", {"id": "A1"}), True, {"balance": 2}),
                ),
                final_state=synthetic_state(i),
                outcome="resolved",
                cost=Cost(0.0, "no-op agent"),
            )
            for i, item in enumerate(self.items)
        }

    def build_suite(self, source: Path | None = None) -> Suite:
        return Suite(adapter=self.name, items=self.items)

    def prepare(self, suite: Suite) -> None:
        """Nothing to rebuild: every item carries what running it needs."""

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {"noop": {}}

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        stored = self.trajectories[item.item_id]
        return Trajectory(
            **{
                **{f: getattr(stored, f) for f in stored.__dataclass_fields__},
                "repetition": repetition,
            }
        )

    def null_agents(self) -> Mapping[str, Any]:
        return {}

    def deterministic(self, config: Config) -> bool:
        return True

    def arg_normalisers(self) -> Mapping[str, Mapping[str, tuple[str, ...]]]:
        return {"lookup": {"id": ("strip", "upper")}}

    def mutating_tools(self) -> tuple[str, ...]:
        return ("act",)

    def order_anchor_tool(self) -> str | None:
        return "lookup"

    def baseline_snapshot(self, seed: int | None = None) -> dict[str, Any]:
        return synthetic_state(0)

    def environment(self, config: Config) -> Mapping[str, Any]:
        return {"adapter": self.name}

    def affects_results(self) -> frozenset[str]:
        return frozenset()

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        raise NotImplementedError("the benchmark never replays")

    def extra_scorers(self) -> Sequence[Scorer]:
        return ()

    def headline_metrics(self) -> tuple[str, ...]:
        return ("trajectory.exact",)

    def tool_catalogue(self) -> Mapping[str, Mapping[str, Any]]:
        return {}

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        return {}

    def nondeterministic_fields(self) -> tuple[str, ...]:
        return ("latency_ms", "latency.total_ms")


def timed_run(adapter: Any, config_name: str, repeats: int, db: str) -> dict[str, Any]:
    store = open_store(db)
    run = api.start(adapter, config_name, store=store, repeats=repeats, seed=0)
    started = perf_counter()
    result = execute_run(store, adapter, run, progress=False)
    wall = perf_counter() - started
    agent_ms = sum(t.latency_ms for t in store.trajectories(run.run_id))
    n = result.written
    return {
        "trajectories": n,
        "wall_seconds": round(wall, 4),
        "ms_per_trajectory": round(wall * 1000 / n, 4),
        "trajectories_per_second": round(n / wall, 1),
        "agent_ms_per_trajectory": round(agent_ms / n, 4),
        "harness_ms_per_trajectory": round((wall * 1000 - agent_ms) / n, 4),
        "scores_per_trajectory": store.count_scores() / n,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("reports/bench/core.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # three fresh databases; the median damps a neighbour process on a 2-core machine
        trials = [
            timed_run(NoopAdapter(), "noop", N_REPEATS, str(Path(tmp) / f"noop{i}.db"))
            for i in range(BENCH_TRIALS)
        ]
        harness = sorted(trials, key=lambda t: t["ms_per_trajectory"])[BENCH_TRIALS // 2]
        harness = {**harness, "trials_ms_per_trajectory": [t["ms_per_trajectory"] for t in trials]}
        banking = timed_run(BankingAdapter(), "mock", 1, str(Path(tmp) / "bank.db"))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report = {
        "command": "make bench",
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.machine(),
        },
        "harness_noop_agent": harness,
        "banking_mock_whole_suite": banking,
        "peak_rss_mb": round(peak_mb, 1),
        # Absolute times move with the machine's other load; the hot path's budget is held
        # as a difference against a fixed commit instead (tools/bench/chain_cost.py).
        "targets": {"peak_rss_mb_max": 300},
        "meets_targets": {"peak_rss_mb": peak_mb <= 300},
    }
    write_figures(args.out, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
