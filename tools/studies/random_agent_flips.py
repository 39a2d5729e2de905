"""How often random_agent's verdict flips with the control seed, under the old and new rules.

Usage: python -m tools.studies.random_agent_flips [--adapter synthworld-agentic] [--config auditor]
                                         [--control-seeds 20] [--out FILE]

Runs the config once (k=1) into a temporary store, then the random_agent control
alone under N control seeds (the seed the control's random agent draws from; renaming
ids moves it the same way). Each seed's random trajectories are judged by the rule in
use (an exact binomial bound on pooled chance passes for 0/1 metrics) and, from the
same per-seed means, by the rule it replaced (mean over seeds + max(min_margin,
sd_factor x sd) on every metric). Prints a table; writes the counts as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_assay import api
from agent_assay.adapters.registry import load_adapter
from agent_assay.aggregates import improvement
from agent_assay.controls.bands import load_bands
from agent_assay.controls.execute import control_context
from agent_assay.controls.random_agent import RandomAgentControl
from agent_assay.store import open_store

ROOT = Path(__file__).resolve().parents[2]


def old_rule(rows: dict[str, Any], kinds: dict[str, Any], band: dict[str, Any]) -> bool:
    """The verdict the mean + max(min_margin, sd_factor x sd) rule gives on these rows."""
    for metric, row in rows.items():
        if row.get("chance_mean") is None:
            return False
        need = max(float(band["min_margin"]), float(band["sd_factor"]) * row["chance_sd"])
        if improvement(kinds[metric], row["real"], row["chance_mean"]) < need:
            return False
    return True


def flip_rate(verdicts: list[bool]) -> float:
    """The share of seeds whose verdict differs from the most common one."""
    passed = sum(verdicts)
    return min(passed, len(verdicts) - passed) / len(verdicts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="synthworld-agentic")
    parser.add_argument("--config", default="auditor")
    parser.add_argument("--control-seeds", type=int, default=20)
    parser.add_argument("--out", type=Path,
                        default=ROOT / "reports/synthworld/random_agent_flips.json")
    args = parser.parse_args()
    system = load_adapter(args.adapter)
    band = dict(load_bands(system.facts.bands, None).get("random_agent"))
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "flips.db"))
        run = api.evaluate(system, args.config, store=store, repeats=1, seed=0).run
        base = control_context(store, system, run, int(band["seeds"]))
        kinds = {m: base.kind_of(m) for m in base.headline}
        new, old = [], []
        for seed in range(args.control_seeds):
            done = RandomAgentControl().run(replace(base, seed=seed), band)
            new.append(done.status == "PASSED")
            old.append(old_rule(done.measured["metrics"], kinds, band))
        store.close()
    result = {
        "command": "make random-agent-flips",
        "adapter": args.adapter,
        "config": args.config,
        "items": len(run.item_ids),
        "random_seeds_per_control": int(band["seeds"]),
        "control_seeds": args.control_seeds,
        "before": {"rule": "mean + max(min_margin, sd_factor x sd)", "passed": sum(old),
                   "failed": len(old) - sum(old), "flip_rate": flip_rate(old)},
        "after": {"rule": "exact binomial upper bound on pooled passes (0/1 metrics)",
                  "passed": sum(new), "failed": len(new) - sum(new), "flip_rate": flip_rate(new)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, sort_keys=True, indent=2) + "\n")
    for side in ("before", "after"):
        r = result[side]
        print(f"{side}\t{r['rule']}\tpassed {r['passed']}\tfailed {r['failed']}\t"
              f"flip rate {r['flip_rate']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
