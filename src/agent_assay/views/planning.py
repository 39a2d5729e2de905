"""`plan`: how many items and repetitions a paired comparison needs, from a stored run.

The run supplies the metric's spread: how much items differ from one another (between)
and how much one item's repetitions differ (within). The sizes are for the test `compare`
runs (the paired t-test, `stats.power`). A second agent is assumed to share the items'
difficulty with this one up to `correlation` (0.5 by default: stated, not measured, since
one run cannot show it). Because that and the spread may be wrong, the plan also prints
what each effect's cheapest design keeps of its power when they are. More repetitions
shrink only the within part, so past some k extra repetitions stop paying.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from agent_assay.errors import AssayError
from agent_assay.model import Run
from agent_assay.stats.power import (
    MAX_ITEMS,
    PILOT_QUANTILE,
    Pilot,
    Spread,
    difference_variance,
    items_for_paired_difference,
    paired_t_power,
    pilot_of,
    sizing_variance,
)

REPEATS = (1, 2, 3, 5, 10)
WORSE = 1.5
"""The factor the what-if lines put on a variance component the pilot measured."""
TEST = "paired t-test on per-item mean differences (df = items - 1), two-sided"

if TYPE_CHECKING:
    from agent_assay.store import ScoreRecord


@dataclass(frozen=True)
class PlanRow:
    effect: float
    repeats: int
    items: int
    power: float
    """The test's power at these items if the pilot's spread and the correlation hold."""

    @property
    def episodes(self) -> int:
        return self.items * self.repeats


@dataclass(frozen=True)
class WhatIf:
    """Power of one design when an assumption behind it is wrong."""

    row: PlanRow
    uncorrelated: float
    """If the agents shared none of the item effects."""
    within: float
    """If one repetition's variance were `WORSE` times the pilot's."""
    between: float
    """If the items' variance were `WORSE` times the pilot's."""


@dataclass(frozen=True)
class Sizing:
    """A plan apart from the run it came from: what `plan` computes from a pilot."""

    pilot: Pilot
    correlation: float
    power: float
    alpha: float
    rows: tuple[PlanRow, ...]

    @property
    def spread(self) -> Spread:
        return self.pilot.spread

    def cheapest(self, effect: float) -> PlanRow:
        """The option with the fewest episodes (items x repetitions) for one effect."""
        return min((r for r in self.rows if r.effect == effect), key=lambda r: r.episodes)

    def what_if(self) -> tuple[WhatIf, ...]:
        """Each effect's cheapest design under a wrong correlation or spread."""
        effects = dict.fromkeys(r.effect for r in self.rows)
        return tuple(self.what_if_for(self.cheapest(e)) for e in effects)

    def what_if_for(self, row: PlanRow) -> WhatIf:
        """One design's power under each wrong assumption, by the same power function."""
        def power(spread: Spread, correlation: float) -> float:
            variance = difference_variance(spread, row.effect, repeats=row.repeats,
                                           correlation=correlation)
            return paired_t_power(row.items, row.effect, variance, alpha=self.alpha)

        s = self.spread
        return WhatIf(row, power(s, 0.0),
                      power(replace(s, within=WORSE * s.within), self.correlation),
                      power(replace(s, between=WORSE * s.between), self.correlation))


def size_from(per_item: Sequence[Sequence[float]], *, effects: Sequence[float],
              power: float, alpha: float, correlation: float) -> Sizing | None:
    """Items for each effect at each of `REPEATS`, from one metric's values per item of a
    pilot run; None when fewer than two items have two repetitions. On a metric in [0, 1],
    an effect that no mean in that range can reach from the pilot's is refused: no number
    of items detects it."""
    pilot = pilot_of(per_item)
    if pilot is None:
        return None
    m = pilot.spread.mean
    for effect in effects:
        if pilot.spread.coin_share is not None and m + effect > 1 and m - effect < 0:
            raise AssayError(f"--effect {effect:g} cannot be reached from a mean of {m:.4f} "
                             "on a metric whose values lie in [0, 1]")
    rows = []
    for effect in effects:
        for k in REPEATS:
            sized = sizing_variance(pilot, effect, repeats=k, correlation=correlation)
            items = items_for_paired_difference(effect, variance=sized, power=power,
                                                alpha=alpha)
            if items is None:
                raise AssayError(
                    f"--effect {effect:g} needs more than {MAX_ITEMS} items per agent at "
                    f"--alpha {alpha:g} and --power {power:g} (with {k} repetition(s) an "
                    "item): no suite is that large; plan for a larger effect, or a larger "
                    "--alpha or a smaller --power")
            variance = difference_variance(pilot.spread, effect, repeats=k,
                                           correlation=correlation)
            rows.append(PlanRow(effect, k, items,
                                paired_t_power(items, effect, variance, alpha=alpha)))
    return Sizing(pilot, correlation, power, alpha, tuple(rows))


@dataclass(frozen=True)
class Plan:
    run: Run
    metric: str
    sizing: Sizing


def plan_of(
    run: Run,
    rows: Iterable[ScoreRecord],
    *,
    metric: str,
    effects: Sequence[float],
    power: float,
    alpha: float,
    correlation: float,
) -> Plan:
    values: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        if row.scorer == metric and row.value is not None:
            values[row.item_id].append(row.value)
    if not values:
        raise AssayError(f"run {run.run_id} has no values of metric {metric}")
    sizing = size_from(list(values.values()), effects=effects, power=power, alpha=alpha,
                       correlation=correlation)
    if sizing is None:
        raise AssayError(
            f"run {run.run_id} has k={run.repeats}: planning needs at least two repetitions "
            "per item to tell repetition noise from item differences; run it with --repeats 2"
        )
    return Plan(run, metric, sizing)


def _noise_note(spread: Spread) -> str:
    if spread.coin_share is None:
        return "the other agent's repetition noise equal to the pilot's"
    return ("the other agent's repetition noise at its own mean (p(1-p), in the direction "
            "that raises it)")


def plan_text(plan: Plan) -> str:
    s = plan.sizing
    lines = [
        f"plan from run {plan.run.run_id} ({plan.run.adapter}/{plan.run.config_name}, "
        f"{len(plan.run.item_ids)} items, k={plan.run.repeats}), metric {plan.metric}",
        f"test: compare's paired t on per-item mean differences, two-sided, alpha "
        f"{s.alpha:g}, power {s.power:g}",
        f"pilot: mean {s.spread.mean:.4f}, variance between items {s.spread.between:.4f}, "
        f"within an item's repetitions {s.spread.within:.4f}",
        f"assumed: the agents share {s.correlation:g} of the item effects (one run cannot "
        "show it; --correlation sets it)",
        f"sized for the pilot's spread at its {PILOT_QUANTILE * 100:g}th percentile over "
        f"{len(s.pilot.resampled)} resamples of its items,",
        f"and for {_noise_note(s.spread)}",
        "",
        "effect   repeats   items   episodes",
    ]
    for row in s.rows:
        mark = "  <- fewest episodes" if row == s.cheapest(row.effect) else ""
        lines.append(
            f"{row.effect:<8g} {row.repeats:<9} {row.items:<7} {row.episodes}{mark}"
        )
    lines += [
        "",
        "power of each effect's cheapest design as assumed, and with one assumption wrong:",
        f"effect   repeats   items   as assumed   correlation 0   within x{WORSE:g}   "
        f"between x{WORSE:g}",
    ]
    for w in s.what_if():
        lines.append(f"{w.row.effect:<8g} {w.row.repeats:<9} {w.row.items:<7} "
                     f"{w.row.power:<12.2f} {w.uncorrelated:<15.2f} {w.within:<13.2f} "
                     f"{w.between:.2f}")
    lines.append("")
    lines.append("items are per agent and shared by both; episodes = items x repeats per agent")
    return "\n".join(lines) + "\n"


def plan_json(plan: Plan) -> dict[str, Any]:
    s = plan.sizing
    return {
        "schema": "agent-assay/plan/1",
        "run_id": plan.run.run_id,
        "metric": plan.metric,
        "test": TEST,
        "pilot_mean": s.spread.mean,
        "between_variance": s.spread.between,
        "within_variance": s.spread.within,
        "coin_share": s.spread.coin_share,
        "sized_for_quantile": PILOT_QUANTILE,
        "resamples": len(s.pilot.resampled),
        "correlation": s.correlation,
        "power": s.power,
        "alpha": s.alpha,
        "rows": [{"effect": r.effect, "repeats": r.repeats, "items": r.items,
                  "episodes": r.episodes, "power": r.power} for r in s.rows],
        "what_if": [{"effect": w.row.effect, "repeats": w.row.repeats, "items": w.row.items,
                     "as_assumed": w.row.power, "correlation_0": w.uncorrelated,
                     "within_worse": w.within, "between_worse": w.between,
                     "worse_factor": WORSE} for w in s.what_if()],
    }
