"""random_agent: the real agent must clear chance, measured over many seeds.

A random agent makes well-formed calls (tools from the adapter's catalogue,
arguments drawn from its pools of valid values or from the schema's type) and
they are replayed through the real environment, over N seeds; a band set from a
single seed would be set by luck.

How far above chance the real run must be depends on the metric:
* a binary metric pools every seed's items into one count of chance passes and
  takes its exact (Clopper-Pearson) one-sided upper bound at `chance_confidence`;
  the real run must exceed that bound by `min_margin`. On a small suite the
  standard deviation of ten per-seed means is itself too noisy to set a band
  with (a 0/1 mean over 11 items moves in steps of 0.09), and a verdict that
  flips with the seed, or with the ids, certifies nothing;
* any other metric must exceed the mean over seeds by max(`min_margin`,
  `sd_factor` x the standard deviation across seeds).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.aggregates import improvement, score_table
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.hashing import stable_seed
from agent_assay.hosting.jobs import Replay
from agent_assay.model import ToolCall
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.intervals import exact_upper

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


def seed_mean(table: Mapping[str, list[float]]) -> float | None:
    """One seed's mean over items (each item's mean over its values)."""
    per_item = [statistics.fmean(v) for v in table.values() if v]
    return statistics.fmean(per_item) if per_item else None


def judge(
    kind: ScoreKind,
    tables: Sequence[Mapping[str, list[float]]],
    real: float | None,
    band: Mapping[str, Any],
) -> dict[str, Any]:
    """Whether the real mean clears chance on one metric, with what it was judged by."""
    means = [m for t in tables if (m := seed_mean(t)) is not None]
    if not means or real is None:
        return {"chance_mean": None, "real": real, "cleared": False}
    mean = statistics.fmean(means)
    sd = statistics.stdev(means) if len(means) > 1 else 0.0
    row: dict[str, Any] = {"chance_mean": mean, "chance_sd": sd, "real": real}
    min_margin = float(band["min_margin"])
    if kind == "binary":
        trials = [v for t in tables for values in t.values() for v in values]
        passes = int(sum(trials))
        confidence = float(band["chance_confidence"])
        upper = exact_upper(passes, len(trials), confidence)
        margin = real - upper
        row |= {
            "rule": f"exact binomial upper bound ({confidence}) of pooled chance passes",
            "chance_passes": passes,
            "chance_trials": len(trials),
            "chance_upper": upper,
            "margin": margin,
            "required_margin": min_margin,
        }
        return row | {"cleared": margin >= min_margin}
    need = max(min_margin, float(band["sd_factor"]) * sd)
    margin = improvement(kind, real, mean)
    row |= {"rule": "mean over seeds + max(min_margin, sd_factor x sd)",
            "margin": margin, "required_margin": need}
    return row | {"cleared": margin >= need}


class RandomAgentControl:
    kind = "random_agent"
    version = "2"
    requires: Requirement | None = "replay"

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        view = ctx.adapter.replay_view()
        assert view is not None, "run_controls checks the replay capability first"
        catalogue = view.tool_catalogue()
        if not catalogue:
            return outcome(self, False, "the adapter declares no tool catalogue", {}, band)
        pools = view.argument_pools()
        gold = ctx.gold_of()
        scorers = ctx.headline_scorers()  # the only metrics judged
        per_seed = []
        for s in range(ctx.random_seeds):  # a seed's replays at a time: one seed's held
            jobs: list[Replay] = []
            for item in ctx.items:
                rng = random.Random(stable_seed(ctx.seed, "random_agent", s, item.item_id))
                calls = random_calls(catalogue, pools, rng)
                jobs.append(Replay(item.public(), tuple(calls), rng.randrange(2**31)))
            replayed = ctx.environment().run_all(jobs)
            per_seed.append(score_table(scorers, gold, replayed, ctx.scoring))
        rows: dict[str, Any] = {}
        failing: list[str] = []
        for metric in ctx.headline:
            tables = [t.get(metric, {}) for t in per_seed]
            real = ctx.real_means.get(metric)
            row = judge(ctx.kind_of(metric), tables, real, band)
            rows[metric] = row
            if not row["cleared"]:
                failing.append(metric)
        summary = f"chance over {ctx.random_seeds} seeds: " + ", ".join(
            f"{m} {r['chance_mean']!r} (sd {r.get('chance_sd')!r}"
            + (f", upper bound {r['chance_upper']:.4f}" if "chance_upper" in r else "") + ")"
            for m, r in rows.items()
        )
        if failing:
            summary += f"; real run does not clear chance on: {', '.join(failing)}"
        return outcome(
            self, not failing, summary, {"seeds": ctx.random_seeds, "metrics": rows}, band
        )
