"""One mutation pass over a stored run: mutate, replay, score, decide, store.

The baseline is the run's stored trajectories. Each operator is first checked
for equivalence (would it alter any proposal at all?), then applied to every
baseline trajectory; altered proposals are replayed through the adapter's
environment from the baseline world, so state and outcome are consequences,
not guesses. Unaltered trajectories stay as they were, so each operator's
column describes the whole suite with that defect planted wherever it fits.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_assay.adapters.loaded import NO_REPLAY, LoadedSystem, ReplayView, load_system
from agent_assay.aggregates import ScoreRow, means, score_rows, table_of
from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json, stable_seed
from agent_assay.hosting.replays import EnvironmentReplays
from agent_assay.model import Item, Run, Step, ToolCall, Trajectory
from agent_assay.mutation.config import MutantSet, OperatorSpec
from agent_assay.mutation.detectors import MetricVerdict, judge_metric, noise_floor
from agent_assay.mutation.operators import (
    OPERATORS,
    OperatorContext,
    SkipState,
    transposition,
)
from agent_assay.mutation.orders import OrderTally
from agent_assay.run_context import RunContext, run_context
from agent_assay.scoring.base import Scorer
from agent_assay.selection import EVERY, Selection
from agent_assay.store import RunTrajectories, Store
from agent_assay.store.evidence import require_intact

SHOWN_ITEMS = 200  # per operator, the mutants kept for `mutation show`


@dataclass(frozen=True)
class OperatorResult:
    operator: str
    params: Mapping[str, Any]
    would_alter: int
    altered: int
    equivalent: bool
    means: Mapping[str, float | None]
    verdicts: tuple[MetricVerdict, ...] = ()
    mutants: Mapping[str, Any] = field(default_factory=dict)
    orders: Mapping[str, Any] = field(default_factory=dict)
    """The pairs its mutants swapped and, per metric, those it could see and ignored
    (`OrderTally.to_json`)."""

    @property
    def killed_by_threshold(self) -> list[str]:
        return [v.metric for v in self.verdicts if v.threshold_hit]

    @property
    def killed_by_test(self) -> list[str]:
        return [v.metric for v in self.verdicts if v.significant]

    @property
    def status(self) -> str:
        if self.equivalent:
            return "EQUIVALENT"
        return "KILLED" if self.killed_by_test else "SURVIVED"


@dataclass(frozen=True)
class MutationPass:
    pass_id: str
    run: Run
    source: str
    items: int
    trajectories: int
    detector_metrics: tuple[str, ...]
    baseline_means: Mapping[str, float | None]
    results: tuple[OperatorResult, ...]

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    @property
    def score(self) -> float | None:
        scored = len(self.results) - self.count("EQUIVALENT")
        return self.count("KILLED") / scored if scored else None


def rep_floors(
    slots: Sequence[tuple[str, int]], rows: Sequence[ScoreRow], metrics: Sequence[str]
) -> dict[str, float]:
    """Per metric, the baseline's spread across repetitions (0 with a single repetition),
    from the baseline's score rows and the (item, repetition) slot of each."""
    per_rep = []
    for r in sorted({rep for _, rep in slots}):
        chosen = [i for i, (_, rep) in enumerate(slots) if rep == r]
        per_rep.append(means(table_of([slots[i][0] for i in chosen], [rows[i] for i in chosen])))
    return {
        m: noise_floor([v for rep in per_rep if (v := rep.get(m)) is not None]) for m in metrics
    }


class Replays:
    """An operator's replays of one item, by the calls replayed. Repetitions of an item
    often carry the same path, and an operator has few ways to alter a short one, so many
    mutants repeat; each distinct one is replayed once. Its replay seed is drawn from the
    item and the calls (not the repetition), so a repeat is the replay it would have been.
    Cleared for each item: memory holds one item's replays at a time."""

    def __init__(self, environment: EnvironmentReplays, seed: int, operator: str) -> None:
        self.environment, self.seed, self.operator = environment, seed, operator
        self.item: str | None = None
        self.done: dict[str, Trajectory] = {}

    def replay(self, item: Item, calls: Sequence[ToolCall]) -> Trajectory:
        if item.item_id != self.item:
            self.item, self.done = item.item_id, {}
        key = canonical_json([c.to_json() for c in calls])
        if key not in self.done:
            seed = stable_seed(self.seed, self.operator, item.item_id, key) % 2**31
            self.done[key] = self.environment.replay(item.public(), list(calls), seed=seed)
        return self.done[key]


def _apply(
    replays: Replays,
    item: Item,
    base: Trajectory,
    spec: OperatorSpec,
    octx: OperatorContext,
    seed: int,
) -> tuple[Trajectory, list[ToolCall] | None]:
    """The mutant of `base` and the calls it proposed, or `base` and None when unaltered."""
    op = OPERATORS[spec.name]
    calls = list(base.path)
    rng = random.Random(stable_seed(seed, spec.name, item.item_id, base.repetition))
    if isinstance(op, SkipState):
        flags = op.skipped(calls, octx)
        if not any(flags):
            return base, None
        applied = [c for c, skip in zip(calls, flags, strict=True) if not skip]
        replayed = replays.replay(item, applied)
        steps = iter(replayed.steps)
        merged = tuple(
            Step(c, ok=False, error="proposed, not applied (skip_state)") if skip else next(steps)
            for c, skip in zip(calls, flags, strict=True)
        )
        return replace(replayed, steps=merged, repetition=base.repetition), calls
    mutated = op.mutate(calls, rng, octx)
    if mutated == calls:
        return base, None
    return replace(replays.replay(item, mutated), repetition=base.repetition), mutated


def would_alter(
    spec: OperatorSpec, trajectories: Sequence[Trajectory], octx: OperatorContext, seed: int
) -> int:
    """How many baseline trajectories the operator would change, before anything is replayed."""
    op = OPERATORS[spec.name]
    count = 0
    for t in trajectories:
        calls = list(t.path)
        if isinstance(op, SkipState):
            count += any(op.skipped(calls, octx))
        else:
            rng = random.Random(stable_seed(seed, spec.name, t.item_id, t.repetition))
            count += op.mutate(calls, rng, octx) != calls
    return count


def check_thresholds(mutants: MutantSet, system: LoadedSystem | object) -> None:
    """Refuse, before a run is made or walked, a detector threshold for a metric the system
    does not score: it would never be used, and the metric meant would be judged by the
    default threshold instead."""
    loaded = load_system(system)
    detector = detector_metrics(loaded.scorers())
    for metric in mutants.thresholds:
        if metric not in detector:
            raise AssayError(
                f"{mutants.threshold_at.get(metric) or mutants.source}: detector.thresholds "
                f"names metric {metric!r}, which {loaded.name} does not score "
                f"(known: {', '.join(detector)})"
            )


def detector_metrics(scorers: Sequence[Scorer]) -> tuple[str, ...]:
    """The metrics a mutation pass judges (and a mutant set may set a threshold for)."""
    return tuple(s.name for s in scorers if s.kind != "measure")


def check_tags(mutants: MutantSet, run: Run, items: Sequence[Item]) -> None:
    """Refuse an operator whose tags match none of the items: it would alter nothing and
    come back EQUIVALENT, as if no metric had anything to see."""
    present = sorted({tag for item in items for tag in item.tags})
    for index, spec in enumerate(mutants.operators):
        if spec.tags and not set(spec.tags) & set(present):
            raise AssayError(
                f"{spec.where or mutants.source}: operators[{index}] tags {list(spec.tags)} "
                f"match no item of the {len(items)} mutated in run {run.run_id} "
                f"(tags: {', '.join(present) or 'none'})"
            )


@dataclass
class _Column:
    """One operator's column, filled an item at a time as the pass walks the run."""

    spec: OperatorSpec
    octx: OperatorContext
    replays: Replays
    would_alter: int = 0
    altered: int = 0
    rows: list[ScoreRow] = field(default_factory=list)
    shown: dict[str, Any] = field(default_factory=dict)
    orders: OrderTally = field(default_factory=OrderTally)

    def take(self, item: Item, group: Sequence[Trajectory], base_rows: Sequence[ScoreRow],
             context: RunContext, seed: int) -> None:
        """Plant the operator in one item's trajectories (if its tags fit), replay what it
        altered, and add each trajectory's scores (the baseline's where nothing changed); a
        mutant that reversed two calls is tallied by the pair and the metrics that missed it."""
        if self.spec.tags and not set(self.spec.tags) & set(item.tags):
            self.rows.extend(base_rows)
            return
        self.would_alter += would_alter(self.spec, group, self.octx, seed)
        # a mutant proposing the same calls as one before it in this item is that mutant's
        # replay (`Replays`) under another repetition number, which no score reads: scorers
        # are pure, so its row is the one already scored
        scored: dict[str, ScoreRow] = {}
        for base, base_row in zip(group, base_rows, strict=True):
            mutant, proposed = _apply(self.replays, item, base, self.spec, self.octx, seed)
            if proposed is None:
                # an unaltered trajectory is the baseline's own: its scores are already known
                self.rows.append(base_row)
                continue
            self.altered += 1
            key = canonical_json([c.to_json() for c in proposed])
            row = scored.get(key)
            if row is None:
                row = score_rows(context.scorers, context.items, [mutant], context.scoring)[0]
                scored[key] = row
            self.rows.append(row)
            swap = transposition(base.path, proposed)
            if swap is not None:
                pair = (base.path[swap[0]].tool, base.path[swap[1]].tool)
                self.orders.add(pair, base_row, row, context.kinds, detector_metrics(
                    context.scorers))
            if base.repetition == 1 and len(self.shown) < SHOWN_ITEMS:
                self.shown[base.item_id] = {
                    "baseline": [s.to_json() for s in base.steps],
                    "mutant": [s.to_json() for s in mutant.steps],
                    "swapped": None if swap is None else list(swap),
                }


def run_pass(
    store: Store,
    system: LoadedSystem | object,
    run: Run,
    mutants: MutantSet,
    *,
    selection: Selection = EVERY,
    stored: RunTrajectories | None = None,
    environment: EnvironmentReplays | None = None,
) -> MutationPass:
    """Mutate `run`'s trajectories (`stored`, when the caller walks them already) under
    every operator of `mutants`. The run is walked once, an item at a time, every operator
    planted in that item's trajectories before the next is read: memory holds one item's
    trajectories and replays, and each operator's score rows. Mutants are replayed in
    `environment` (the controls' agent process), else in one started for the pass. Only
    the run's items `selection` chooses are mutated."""
    adapter = load_system(system)
    check_thresholds(mutants, adapter)
    view = adapter.replay_view()
    if view is None:
        raise AssayError(f"adapter {adapter.name}: {NO_REPLAY}, so nothing can be mutated")
    require_intact(store, run.run_id, "mutated")
    context = run_context(store, adapter, run)
    source = RunTrajectories(store, run.run_id) if stored is None else stored
    if environment is not None:
        return _mutated(context, view, run, mutants, selection, source, environment)
    with EnvironmentReplays(adapter, context.suite.public()) as own:
        return _mutated(context, view, run, mutants, selection, source, own)


def _mutated(
    context: RunContext,
    view: ReplayView,
    run: Run,
    mutants: MutantSet,
    selection: Selection,
    source: RunTrajectories,
    environment: EnvironmentReplays,
) -> MutationPass:
    adapter = context.system
    gold = context.items
    selected = selection.choose((gold[i] for i in run.item_ids), f"of run {run.run_id}")
    check_tags(mutants, run, selected)
    chosen = {i.item_id for i in selected}
    detector = detector_metrics(context.scorers)
    # like the controls' seed: the same suite, config and seed draw the same mutants, so a
    # pass (and the mutation control) repeats on a fresh run of the same configuration
    seed = stable_seed(run.suite_hash, run.config_hash, run.seed, "mutation")
    pools = view.argument_pools()
    columns = [
        _Column(spec, OperatorContext(frozenset(adapter.facts.mutating_tools), pools,
                                      spec.params), Replays(environment, seed, spec.name))
        for spec in mutants.operators
    ]
    slots: list[tuple[str, int]] = []
    base_rows: list[ScoreRow] = []
    for item_id, group in source.by_item():
        if item_id not in chosen:
            continue
        # one item's gold and trajectories normalised once for its baseline and every mutant
        with context.scoring.memoised():
            rows = score_rows(context.scorers, gold, group, context.scoring)  # baselines once
            slots.extend((t.item_id, t.repetition) for t in group)
            base_rows.extend(rows)
            for column in columns:
                column.take(gold[item_id], group, rows, context, seed)
    ids = [item_id for item_id, _ in slots]
    base_table = table_of(ids, base_rows)
    floors = rep_floors(slots, base_rows, detector)
    kinds = context.kinds  # built on each read: once for every operator
    results = []
    for column in columns:
        spec = column.spec
        if column.would_alter == 0:
            results.append(OperatorResult(spec.title, spec.params, 0, 0, True, {}))
            continue
        table = table_of(ids, column.rows)
        verdicts = tuple(
            judge_metric(
                m,
                kinds[m],
                base_table.get(m, {}),
                table.get(m, {}),
                threshold=mutants.threshold(m),
                alpha_per_metric=mutants.alpha / len(detector),
                floor=floors[m],
            )
            for m in detector
        )
        results.append(
            OperatorResult(
                spec.title,
                spec.params,
                column.would_alter,
                column.altered,
                column.altered == 0,
                means(table),
                verdicts,
                column.shown,
                column.orders.to_json(),
            )
        )
    return MutationPass(
        pass_id=uuid.uuid4().hex,
        run=run,
        source=mutants.source,
        items=len(selected),
        trajectories=len(slots),
        detector_metrics=detector,
        baseline_means=means(base_table),
        results=tuple(results),
    )


def pass_payloads(p: MutationPass) -> list[tuple[str, dict[str, Any]]]:
    """Rows for the append-only mutation_results table: one per operator, then the summary."""
    rows: list[tuple[str, dict[str, Any]]] = []
    for r in p.results:
        rows.append(
            (
                r.operator,
                {
                    "pass_id": p.pass_id,
                    "operator": r.operator,
                    "params": dict(r.params),
                    "status": r.status,
                    "would_alter": r.would_alter,
                    "altered": r.altered,
                    "means": dict(r.means),
                    "killed_by_threshold": r.killed_by_threshold,
                    "killed_by_test": r.killed_by_test,
                    "verdicts": [v.__dict__ for v in r.verdicts],
                    "mutants": dict(r.mutants),
                    **r.orders,
                },
            )
        )
    rows.append(
        (
            "__pass__",
            {
                "pass_id": p.pass_id,
                "source": p.source,
                "items": p.items,
                "trajectories": p.trajectories,
                "detector_metrics": list(p.detector_metrics),
                "detector_used_for_score": "statistical",
                "baseline_means": dict(p.baseline_means),
                "killed": p.count("KILLED"),
                "survived": p.count("SURVIVED"),
                "equivalent": p.count("EQUIVALENT"),
                "total": len(p.results),
                "gate_mutation_score": p.score,
                "operators": [r.operator for r in p.results],
            },
        )
    )
    return rows
