"""`plan`: how many items and repetitions a paired comparison needs, from a stored run.

The run supplies the metric's spread: how much items differ from one another (between)
and how much one item's repetitions differ (within). A second agent is assumed to share
the items' difficulty with this one up to `correlation` (0.5 by default: stated, not
measured, since one run cannot show it). More repetitions shrink only the within part,
so past some k extra repetitions stop paying and only more items help.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.model import Run
from agent_assay.stats.power import items_for_paired_difference, variance_components
from agent_assay.store.store import Store

REPEATS = (1, 2, 3, 5, 10)


@dataclass(frozen=True)
class PlanRow:
    effect: float
    repeats: int
    items: int

    @property
    def episodes(self) -> int:
        return self.items * self.repeats


@dataclass(frozen=True)
class Plan:
    run: Run
    metric: str
    between: float
    within: float
    correlation: float
    power: float
    alpha: float
    rows: tuple[PlanRow, ...]

    def cheapest(self, effect: float) -> PlanRow:
        """The option with the fewest episodes (items x repetitions) for one effect."""
        return min((r for r in self.rows if r.effect == effect), key=lambda r: r.episodes)


def make_plan(
    store: Store,
    run: Run,
    *,
    metric: str,
    effects: Sequence[float],
    power: float,
    alpha: float,
    correlation: float,
) -> Plan:
    values: dict[str, list[float]] = defaultdict(list)
    for row in store.current_scores(run.run_id):
        if row.scorer == metric and row.value is not None:
            values[row.item_id].append(row.value)
    if not values:
        raise AssayError(f"run {run.run_id} has no values of metric {metric}")
    parts = variance_components(list(values.values()))
    if parts is None:
        raise AssayError(
            f"run {run.run_id} has k={run.repeats}: planning needs at least two repetitions "
            "per item to tell repetition noise from item differences; run it with --repeats 2"
        )
    between, within = parts
    rows = tuple(
        PlanRow(effect, k, items_for_paired_difference(
            effect, between=between, within=within, repeats=k, correlation=correlation,
            power=power, alpha=alpha))
        for effect in effects
        for k in REPEATS
    )
    return Plan(run, metric, between, within, correlation, power, alpha, rows)


def plan_text(plan: Plan) -> str:
    lines = [
        f"plan from run {plan.run.run_id} ({plan.run.adapter}/{plan.run.config_name}, "
        f"{len(plan.run.item_ids)} items, k={plan.run.repeats}), metric {plan.metric}",
        f"variance between items {plan.between:.4f}, within an item's repetitions "
        f"{plan.within:.4f}; agents assumed to share {plan.correlation:g} of the item effects",
        f"paired two-sided test at alpha {plan.alpha:g}, power {plan.power:g}",
        "",
        "effect   repeats   items   episodes",
    ]
    for row in plan.rows:
        mark = "  <- fewest episodes" if row == plan.cheapest(row.effect) else ""
        lines.append(
            f"{row.effect:<8g} {row.repeats:<9} {row.items:<7} {row.episodes}{mark}"
        )
    lines.append("")
    lines.append("items are per agent and shared by both; episodes = items x repeats per agent")
    return "\n".join(lines) + "\n"


def plan_json(plan: Plan) -> dict[str, Any]:
    return {
        "schema": "agent-assay/plan/1",
        "run_id": plan.run.run_id,
        "metric": plan.metric,
        "between_variance": plan.between,
        "within_variance": plan.within,
        "correlation": plan.correlation,
        "power": plan.power,
        "alpha": plan.alpha,
        "rows": [{"effect": r.effect, "repeats": r.repeats, "items": r.items,
                  "episodes": r.episodes} for r in plan.rows],
    }
