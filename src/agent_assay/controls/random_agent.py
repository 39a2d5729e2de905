"""random_agent: the real agent must clear chance, measured over many seeds.

A random agent makes well-formed calls (tools from the adapter's catalogue,
arguments drawn from its pools of valid values or from the schema's type) and
they are replayed through the real environment. The chance level is the mean
over N seeds, with its standard deviation; a band set from a single seed would
be set by luck.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.aggregates import improvement, score_means
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.hashing import stable_seed
from agent_assay.model import ToolCall

MAX_CALLS = 6


def random_value(
    name: str, schema: Mapping[str, Any], pools: Mapping[str, Sequence[Any]], rng: random.Random
) -> Any:
    if pools.get(name):
        return rng.choice(list(pools[name]))
    if "enum" in schema:
        return rng.choice(list(schema["enum"]))
    kind = schema.get("type", "string")
    if kind == "integer":
        return rng.randint(1, 10_000)
    if kind == "number":
        return round(rng.uniform(0, 10_000), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8))


def random_calls(
    catalogue: Mapping[str, Mapping[str, Any]],
    pools: Mapping[str, Sequence[Any]],
    rng: random.Random,
) -> list[ToolCall]:
    tools = sorted(catalogue)
    calls = []
    for _ in range(rng.randint(1, MAX_CALLS)):
        tool = rng.choice(tools)
        properties: Mapping[str, Any] = catalogue[tool].get("properties", {})
        required = catalogue[tool].get("required", list(properties))
        calls.append(
            ToolCall(
                tool,
                {arg: random_value(arg, properties.get(arg, {}), pools, rng) for arg in required},
            )
        )
    return calls


class RandomAgentControl:
    kind = "random_agent"
    version = "1"
    requires: Requirement | None = "replay"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        view = ctx.adapter.replay_view()
        assert view is not None, "run_controls checks the replay capability first"
        catalogue = view.tool_catalogue()
        if not catalogue:
            return outcome(self, False, "the adapter declares no tool catalogue", {}, band)
        pools = view.argument_pools()
        per_seed: list[dict[str, float | None]] = []
        for s in range(ctx.random_seeds):
            trajectories = []
            for item in ctx.items:
                rng = random.Random(stable_seed(ctx.seed, "random_agent", s, item.item_id))
                calls = random_calls(catalogue, pools, rng)
                trajectories.append(
                    view.replay(item.public(), calls, seed=rng.randrange(2**31))
                )
            per_seed.append(score_means(ctx.scorers, ctx.gold_of(), trajectories, ctx.scoring))
        min_margin, sd_factor = float(band["min_margin"]), float(band["sd_factor"])
        rows: dict[str, Any] = {}
        failing: list[str] = []
        for metric in ctx.headline:
            values = [v for m in per_seed if (v := m.get(metric)) is not None]
            real = ctx.real_means.get(metric)
            if not values or real is None:
                rows[metric] = {"chance_mean": None, "real": real}
                failing.append(metric)
                continue
            mean = statistics.fmean(values)
            sd = statistics.stdev(values) if len(values) > 1 else 0.0
            need = max(min_margin, sd_factor * sd)
            margin = improvement(ctx.kind_of(metric), real, mean)
            rows[metric] = {
                "chance_mean": mean,
                "chance_sd": sd,
                "real": real,
                "margin": margin,
                "required_margin": need,
            }
            if margin < need:
                failing.append(metric)
        summary = f"chance over {ctx.random_seeds} seeds: " + ", ".join(
            f"{m} {r['chance_mean']!r} (sd {r.get('chance_sd')!r})" for m, r in rows.items()
        )
        if failing:
            summary += f"; real run does not clear chance on: {', '.join(failing)}"
        return outcome(
            self, not failing, summary, {"seeds": ctx.random_seeds, "metrics": rows}, band
        )
