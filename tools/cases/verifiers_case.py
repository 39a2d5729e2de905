"""The valid-action case study's tables: what the environment's own scripts claim beside
what the rollout path delivers, and what its reward sees of mutated oracle plans.

Three columns per baseline of the environment's `scripts/baselines.py`:
- *published*: the script run as shipped (its own worlds; its printed JSON);
- *offline*: the same policies on the environment's evaluation tasks, their calls run
  through its core functions directly (the `verifiers-offline` adapter);
- *framework*: the same calls made by a scripted policy through `Env.rollout`, the path a
  model takes (the `verifiers` adapter).
The script's policies are run on the script's worlds through agent-assay's offline path as
well, which must reproduce the published column exactly: that is what makes the offline
column the environment's own measure, not agent-assay's.

The mutation table runs the harness's mutation pass (its default operators) over an oracle
run on each path and reports the environment's reward under each operator, and which
orders of calls the reward ignored in the swap mutants.

Usage: python -m tools.cases.verifiers_case [--source ../shared/data/valid-action]
       [--out reports/verifiers]
Writes OUT/valid_action.json and OUT/valid_action.txt.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_assay import api
from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.model import ToolCall
from agent_assay.mutation.config import DEFAULT
from agent_assay.mutation.engine import run_pass
from agent_assay.mutation.orders import merged
from agent_assay.stats.intervals import mean_interval
from agent_assay.store import open_store
from agent_assay_bundled.verifiers_env import valid_action_bridge as bridge
from agent_assay_bundled.verifiers_env.scoring import REWARD
from agent_assay_bundled.verifiers_env.system import OfflineVerifiersAdapter, VerifiersAdapter

SCRIPT_DEFAULTS = {"num_eval": 32, "seed": 17, "difficulty": "medium"}
PATHS = {"offline": OfflineVerifiersAdapter, "framework": VerifiersAdapter}


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _rewards(system: LoadedSystem, suite: Any, plans: Mapping[str, Any],
             tools: dict[str, dict[str, Any]]) -> list[float]:
    """Each item's env.reward for its plan, replayed and scored by the harness; each call's
    outcome is counted into `tools` by tool name."""
    scorer = next(s for s in system.scorers() if s.name == REWARD)
    context = system.scoring_context()
    view = system.replay_view()
    assert view is not None
    found = []
    for item in suite.items:
        trajectory = view.replay(item.public(), plans[item.item_id], seed=0)
        value = scorer.score(item.gold, trajectory, context).value
        found.append(0.0 if value is None else float(value))
        for step in trajectory.steps:
            seen = tools.setdefault(step.call.tool, {"calls": 0, "failed": {}})
            seen["calls"] += 1
            if not step.ok:
                why = (step.error or "failed").split(" (offered:")[0]
                seen["failed"][why] = seen["failed"].get(why, 0) + 1
    return found


def _count(tools: dict[str, dict[str, Any]], plan: Sequence[Any], made: Sequence[Any]) -> None:
    for call, outcome in zip(plan, made, strict=True):
        seen = tools.setdefault(call.tool, {"calls": 0, "failed": {}})
        seen["calls"] += 1
        if not outcome.ok:
            seen["failed"][outcome.error] = seen["failed"].get(outcome.error, 0) + 1


def _column(rewards: Sequence[float]) -> dict[str, Any]:
    return {"mean_reward": _mean(rewards), "interval": mean_interval(rewards, "fraction"),
            "full_reward": sum(r == 1.0 for r in rewards), "tasks": len(rewards)}


def baselines(folder: Path, db: Path) -> dict[str, Any]:
    """The three columns for every baseline the script defines."""
    published = {row["baseline"]: row for row in bridge.published_baselines(folder, {})}
    seed = SCRIPT_DEFAULTS["seed"]
    script_tasks = bridge.script_tasks(SCRIPT_DEFAULTS["num_eval"], seed,
                                       SCRIPT_DEFAULTS["difficulty"])
    va = bridge.ValidActionBridge()
    reproduced: dict[str, list[float]] = {}
    as_stored: dict[str, list[float]] = {}
    tools: dict[str, dict[str, dict[str, Any]]] = {}
    for task in script_tasks:
        for name, plan in bridge.baseline_plans(folder, task, seed).items():
            reproduced.setdefault(name, []).append(va.offline_reward(task, plan).reward)
    columns: dict[str, dict[str, Any]] = {}
    suites: dict[str, str] = {}
    evaluated: set[str] = set()
    store = open_store(str(db))
    systems = {path: load_system(adapter()) for path, adapter in PATHS.items()}
    built = {path: api.build_suite(system, store=store, source=folder)
             for path, system in systems.items()}
    # the plans are the script's on each evaluation task, whichever path then runs them
    by_item: dict[str, dict[str, list[ToolCall]]] = {}
    raw: Any = systems["offline"].raw
    for item in built["offline"].items:
        task = raw.task_of(item.public())
        evaluated.add(task.task["info"]["fingerprint"])
        for name, plan in bridge.baseline_plans(folder, task, seed).items():
            by_item.setdefault(name, {})[item.item_id] = [
                ToolCall(c.tool, dict(c.arguments)) for c in plan]
            stored = va.offline_reward(task, plan, as_stored=True)
            as_stored.setdefault(name, []).append(stored.reward)
            _count(tools.setdefault("offline_world_as_stored", {}), plan, stored.calls)
    for path, system in systems.items():
        suites[path] = built[path].suite_hash
        outcomes = tools.setdefault(path, {})
        for name, plans in by_item.items():
            columns.setdefault(name, {})[path] = _column(
                _rewards(system, built[path], plans, outcomes))
    shared = sum(t.task["info"]["fingerprint"] in evaluated for t in script_tasks)
    rows = {}
    for name, row in published.items():
        rows[name] = {
            "published": {"mean_reward": row["mean_reward"], "valid_rate": row["valid_rate"],
                          "tasks": row["num_examples"]},
            "reproduced": _column(reproduced[name]),
            "offline_world_as_stored": _column(as_stored[name]),
            **columns[name],
        }
    return {"suites": suites, "seed": seed, "rows": rows,
            "tool_outcomes": {path: dict(sorted(found.items()))
                              for path, found in tools.items()},
            "script_worlds_in_eval_split": {"script_worlds": len(script_tasks),
                                            "eval_tasks": len(evaluated), "shared": shared}}


def probes(folder: Path, db: Path) -> dict[str, Any]:
    """Each tool the framework offers, called once on the first task with well-formed
    arguments (drawn as the random agent draws them), through the rollout path."""
    import random

    from agent_assay.controls.random_agent import random_value

    store = open_store(str(db))
    system = load_system(VerifiersAdapter())
    suite = api.build_suite(system, store=store, source=folder)
    view = system.replay_view()
    assert view is not None
    pools, rng = view.argument_pools(), random.Random(0)
    item = suite.items[0]
    found: dict[str, Any] = {}
    for tool, schema in view.tool_catalogue().items():
        properties = schema.get("properties", {})
        args = {name: random_value(name, properties.get(name, {}), pools, rng)
                for name in schema.get("required", list(properties))}
        step = view.replay(item.public(), [ToolCall(tool, args)], seed=0).steps[0]
        found[tool] = {"ok": step.ok, "error": step.error,
                       "result": None if step.result is None else str(step.result)[:80]}
    return {"item": item.item_id, "tools": found}


def mutation(folder: Path, db: Path) -> dict[str, Any]:
    """The default mutation pass over an oracle run on each path: env.reward per operator."""
    store = open_store(str(db))
    table: dict[str, Any] = {}
    for path, adapter in PATHS.items():
        system = load_system(adapter())
        run = api.evaluate(system, "oracle", store=store, source=folder, repeats=1, seed=0).run
        done = run_pass(store, system, run, DEFAULT)
        table[path] = {
            "run_id": run.run_id,
            "oracle_reward": done.baseline_means.get(REWARD),
            "operators": {r.operator: {"status": r.status, "altered": r.altered,
                                       "reward": r.means.get(REWARD),
                                       "killed_by": r.killed_by_test}
                          for r in done.results},
            "reward_orders_ignored": merged(r.orders for r in done.results).get(REWARD, []),
            "swaps": sum(s["swapped"] for r in done.results for s in r.orders.get("swaps", [])),
            "reward_could_fall": sum(p["swapped"] for r in done.results
                                     for p in r.orders.get("swap_tally", {}).get(REWARD, [])),
        }
    return table


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def text(result: Mapping[str, Any]) -> str:
    base = result["baselines"]
    lines = [
        "valid-action: the environment's own baselines, offline and through the framework",
        f"suites: offline {base['suites']['offline'][:12]}, framework "
        f"{base['suites']['framework'][:12]}; script seed {base['seed']}",
        "",
        f"{'baseline':<20}{'published':>10}{'reproduced':>11}{'offline':>9}"
        f"{'as stored':>10}{'framework':>10}  {'framework 95% CI':<18}",
        "─" * 90,
    ]
    for name, row in base["rows"].items():
        ci = row["framework"]["interval"]
        lines.append(
            f"{name:<20}{row['published']['mean_reward']:>10.4f}"
            f"{row['reproduced']['mean_reward']:>11.4f}{row['offline']['mean_reward']:>9.4f}"
            f"{row['offline_world_as_stored']['mean_reward']:>10.4f}"
            f"{row['framework']['mean_reward']:>10.4f}  [{ci[0]:.4f}, {ci[1]:.4f}]")
    overlap = base["script_worlds_in_eval_split"]
    lines += [
        "",
        "published: scripts/baselines.py as shipped, on its own "
        f"{overlap['script_worlds']} worlds;",
        "reproduced: the same policies on those worlds through agent-assay's offline path;",
        f"offline / framework: the same policies on the environment's {overlap['eval_tasks']} "
        "evaluation tasks,",
        "  called directly / made through Env.rollout by a scripted policy;",
        "as stored: offline, with the world held as the rollout's setup stores it (JSON).",
        f"{overlap['shared']} of the script's worlds are among the evaluation tasks.",
    ]
    for path, title in (("framework", "through the framework"),
                        ("offline_world_as_stored", "offline, world as stored")):
        lines += [
            "",
            f"every baseline call {title}, by tool: calls, and why any failed",
            f"{'tool':<36}{'calls':>6}  failed",
            "─" * 90,
        ]
        for tool, seen in base["tool_outcomes"][path].items():
            failed = "; ".join(f"{n} {why}" for why, n in sorted(seen["failed"].items()))
            lines.append(f"{tool:<36}{seen['calls']:>6}  {failed or 'none'}")
    probe = result["probes"]
    lines += [
        "",
        f"each offered tool called once through the framework ({probe['item']}, arguments "
        "drawn as the random agent draws them)",
        f"{'tool':<36}outcome",
        "─" * 90,
    ]
    for tool, seen in probe["tools"].items():
        lines.append(f"{tool:<36}{'returned, no exception' if seen['ok'] else seen['error']}")
    lines += [
        "",
        "mutation pass over the oracle run (default operators): env.reward per operator",
        f"{'operator':<18}{'offline':>9}  {'status':<11}{'framework':>10}  {'status':<11}",
        "─" * 62,
    ]
    muts = result["mutation"]
    lines.append(f"{'(oracle)':<18}{_f(muts['offline']['oracle_reward']):>9}  {'':<11}"
                 f"{_f(muts['framework']['oracle_reward']):>10}")
    for op, off in muts["offline"]["operators"].items():
        fw = muts["framework"]["operators"][op]
        lines.append(f"{op:<18}{_f(off['reward']):>9}  {off['status']:<11}"
                     f"{_f(fw['reward']):>10}  {fw['status']:<11}")
    for path in ("offline", "framework"):
        done, ignored = muts[path], muts[path]["reward_orders_ignored"]
        lines += ["", f"{path}: orders env.reward ignored in the {done['swaps']} swap mutants, "
                      f"{done['reward_could_fall']} of them where it could fall (earlier tool "
                      "-> later tool: not worse / could have been worse)"]
        if not done["reward_could_fall"]:
            lines.append("  none counted: the reward is at its floor on every baseline")
        else:
            lines += [f"  {p['earlier']} -> {p['later']} {p['ignored']}/{p['swapped']}"
                      for p in ignored] or ["  none: the reward fell on every swap it could"]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=Path("../shared/data/valid-action"))
    parser.add_argument("--out", type=Path, default=Path("reports/verifiers"))
    args = parser.parse_args()
    folder = args.source.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        result = {"baselines": baselines(folder, Path(tmp) / "b.db"),
                  "probes": probes(folder, Path(tmp) / "p.db"),
                  "mutation": mutation(folder, Path(tmp) / "m.db")}
    args.out.mkdir(parents=True, exist_ok=True)
    rendered = text(result)
    (args.out / "valid_action.json").write_text(json.dumps(result, indent=2, sort_keys=True)
                                                + "\n")
    (args.out / "valid_action.txt").write_text(rendered)
    print(rendered, end="")


if __name__ == "__main__":
    main()
