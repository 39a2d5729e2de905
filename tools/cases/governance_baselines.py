"""The governance baseline table: every govsim agent through the harness, k=1, all worlds.

Each config of the governance adapter is run once over the whole suite (default: the
64 medium eval worlds) through the harness API against a temporary database, scored by
the adapter's scorers like any run. Per config the table gives the mean reward with its
95% interval over worlds, the valid-execution rate and the full-reward rate (reward
1.0), each with its interval. Every interval comes from agent_assay.stats: a reward is a
fraction in [0, 1] (min(1, oracle cost / attempts) on a valid execution) and a rate a
count, so all get the exact binomial interval on the worlds' sum, and the table names
the method.

Usage: python -m tools.cases.governance_baselines [--out reports/governance] [--source FILE]
Writes OUT/baselines.json and OUT/baselines.txt.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_assay import api
from agent_assay.stats.intervals import EXACT, exact_interval, interval_on_mean
from agent_assay.store import open_store
from agent_assay_bundled.governance import GovernanceAdapter
from govsim import AGENTS

REWARD, VALID = "governance.reward", "governance.execution_valid"
RUN_SEED = 0




def _rate(flags: Sequence[bool]) -> dict[str, Any]:
    hits = sum(flags)
    return {
        "count": hits,
        "rate": hits / len(flags) if flags else None,
        "interval": exact_interval(hits, len(flags)),
    }


def baselines(db: Path, source: Path | None = None) -> dict[str, Any]:
    """Run every config k=1 over every world in a fresh store at `db`; return the table."""
    store = open_store(str(db))
    adapter = GovernanceAdapter()
    suite = api.build_suite(adapter, store=store, source=source)
    rows: dict[str, Any] = {}
    for name in AGENTS:  # the scripted baselines; the model configs need a server
        run = api.evaluate(adapter, name, store=store, source=source, repeats=1,
                           seed=RUN_SEED).run
        config = store.get_config(run.config_hash)
        per_item: dict[str, dict[str, float]] = {}
        for row in store.current_scores(run.run_id):
            if row.scorer in (REWARD, VALID) and row.value is not None:
                per_item.setdefault(row.item_id, {})[row.scorer] = row.value
        rewards = [per_item[i][REWARD] for i in run.item_ids]
        valid = [per_item[i][VALID] == 1.0 for i in run.item_ids]
        interval = interval_on_mean(rewards, "fraction")
        rows[name] = {
            "role": config.params["role"],
            "reads_hidden_state": config.params["reads_hidden_state"],
            "config_hash": config.config_hash,
            "worlds": len(rewards),
            "mean_reward": sum(rewards) / len(rewards),
            "reward_interval": interval.ci,
            "reward_interval_method": "exact" if interval.method == EXACT else interval.method,
            "valid_execution": _rate(valid),
            "full_reward": _rate([r == 1.0 for r in rewards]),
            "rewards": dict(zip(run.item_ids, rewards, strict=True)),
        }
    return {
        "suite_hash": suite.suite_hash,
        "suite_source": suite.source,
        "worlds": len(suite.items),
        "repeats": 1,
        "run_seed": RUN_SEED,
        "configs": rows,
    }


def _pair(interval: Any) -> str:
    return "n/a" if interval is None else f"[{interval[0]:.4f}, {interval[1]:.4f}]"


def table(result: Mapping[str, Any]) -> str:
    """The fixed-width text form of `baselines`' result."""
    lines = [
        f"governance baselines: {result['suite_source']}; k={result['repeats']}, "
        f"run seed {result['run_seed']}",
        f"suite {result['suite_hash']}",
        "",
        f"{'config':<20}{'role':<18}{'mean reward':>12}  {'95% CI':<18}{'method':<11}"
        f"{'valid rate':>10}  {'95% CI':<18}{'reward=1':>9}  {'95% CI':<18}",
        "─" * 136,
    ]
    for name, row in result["configs"].items():
        valid, full = row["valid_execution"], row["full_reward"]
        lines.append(
            f"{name:<20}{row['role']:<18}{row['mean_reward']:>12.4f}  "
            f"{_pair(row['reward_interval']):<18}{row['reward_interval_method']:<11}"
            f"{valid['rate']:>10.4f}  {_pair(valid['interval']):<18}"
            f"{full['rate']:>9.4f}  {_pair(full['interval']):<18}"
        )
    lines += [
        "",
        f"n = {result['worlds']} worlds per config. Every interval is the exact binomial",
        "(Clopper-Pearson) on the worlds' sum: rewards are fractions in [0, 1], rates counts.",
        "oracle_replay and mock read hidden state: oracle_replay is the positive control,",
        "mock an oracle-guided agent with seeded lapses; neither is a system under test.",
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("reports/governance"))
    parser.add_argument("--source", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = baselines(Path(tmp) / "baselines.db", args.source)
    args.out.mkdir(parents=True, exist_ok=True)
    text = table(result)
    (args.out / "baselines.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    (args.out / "baselines.txt").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
