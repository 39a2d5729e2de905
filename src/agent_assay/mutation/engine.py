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
from agent_assay.hosting.jobs import Replay
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
    Cleared for each item: memory holds one item's replays at a time.

    A pass `ask`s for every replay an item needs, then hands the jobs of every operator to
    the agent process together (`replay_all`), as a run hands it its tasks: one exchange
    an item, not one a replay."""

    def __init__(self, environment: EnvironmentReplays, seed: int, operator: str) -> None:
        self.environment, self.seed, self.operator = environment, seed, operator
        self.item: str | None = None
        self.done: dict[str, Trajectory] = {}
        self.pending: dict[str, Replay] = {}

    def ask(self, item: Item, calls: Sequence[ToolCall]) -> str:
        """The key of `calls`' replay; a job for it is pending unless it is done or asked."""
        if item.item_id != self.item:
            self.item, self.done, self.pending = item.item_id, {}, {}
        key = canonical_json([c.to_json() for c in calls])
        if key not in self.done and key not in self.pending:
            seed = stable_seed(self.seed, self.operator, item.item_id, key) % 2**31
            self.pending[key] = Replay(item.public(), tuple(calls), seed)
        return key

    def took(self, trajectories: Sequence[Trajectory]) -> None:
        """The pending jobs' trajectories, in the order they were asked."""
        self.done.update(zip(self.pending, trajectories, strict=True))
        self.pending = {}

    def replay(self, item: Item, calls: Sequence[ToolCall]) -> Trajectory:
        key = self.ask(item, calls)
        replay_all(self.environment, [self])
        return self.done[key]


def replay_all(environment: EnvironmentReplays, replays: Sequence[Replays]) -> None:
    """Every pending job of `replays`, handed to the agent process in one exchange, in the
    order each was asked."""
    jobs = [job for r in replays for job in r.pending.values()]
    answers = iter(environment.run_all(jobs))
    for r in replays:
        r.took([next(answers) for _ in r.pending])


@dataclass(frozen=True)
class _Proposal:
    """What an operator made of one baseline trajectory's path."""

    calls: list[ToolCall]
    """The calls the mutant proposes."""
    replayed: list[ToolCall]
    """The calls executed: all of them, or those skip_state did not skip."""
    skipped: list[bool] | None = None
    """skip_state's: which proposals were not applied."""


def _propose(
    spec: OperatorSpec, octx: OperatorContext, item_id: str, base: Trajectory, seed: int
) -> _Proposal | None:
    """What the operator proposes in place of `base`'s path (a trajectory of item `item_id`);
    None when it alters nothing."""
    op = OPERATORS[spec.name]
    calls = list(base.path)
    if isinstance(op, SkipState):
        flags = op.skipped(calls, octx)
        if not any(flags):
            return None
        applied = [c for c, skip in zip(calls, flags, strict=True) if not skip]
        return _Proposal(calls, applied, flags)
    rng = random.Random(stable_seed(seed, spec.name, item_id, base.repetition))
    mutated = op.mutate(calls, rng, octx)
    return None if mutated == calls else _Proposal(mutated, mutated)


def _mutant(replayed: Trajectory, base: Trajectory, proposal: _Proposal) -> Trajectory:
    """The mutant of `base`: the replay of its proposal, at `base`'s repetition; skip_state's
    skipped proposals stand in its steps where they were proposed, not applied."""
    if proposal.skipped is None:
        return replace(replayed, repetition=base.repetition)
    steps = iter(replayed.steps)
    merged = tuple(
        Step(c, ok=False, error="proposed, not applied (skip_state)") if skip else next(steps)
        for c, skip in zip(proposal.calls, proposal.skipped, strict=True)
    )
    return replace(replayed, steps=merged, repetition=base.repetition)


def _apply(
    replays: Replays,
    item: Item,
    base: Trajectory,
    spec: OperatorSpec,
    octx: OperatorContext,
    seed: int,
) -> tuple[Trajectory, list[ToolCall] | None]:
    """The mutant of `base` and the calls it proposed, or `base` and None when unaltered
    (one mutant at a time: headline_agreement's)."""
    proposal = _propose(spec, octx, item.item_id, base, seed)
    if proposal is None:
        return base, None
    return _mutant(replays.replay(item, proposal.replayed), base, proposal), proposal.calls


def would_alter(
    spec: OperatorSpec, trajectories: Sequence[Trajectory], octx: OperatorContext, seed: int
) -> int:
    """How many baseline trajectories the operator would change, before anything is replayed."""
    return sum(_propose(spec, octx, t.item_id, t, seed) is not None for t in trajectories)


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

    def propose(self, item: Item, group: Sequence[Trajectory], seed: int
                ) -> list[tuple[_Proposal, str] | None]:
        """Plant the operator in one item's trajectories (if its tags fit): each one's
        proposal beside the key of its replay, asked of `replays`; None where it altered
        nothing."""
        if self.spec.tags and not set(self.spec.tags) & set(item.tags):
            return [None] * len(group)
        proposals = [_propose(self.spec, self.octx, item.item_id, base, seed) for base in group]
        self.would_alter += sum(p is not None for p in proposals)
        return [None if p is None else (p, self.replays.ask(item, p.replayed))
                for p in proposals]

    def take(self, group: Sequence[Trajectory], base_rows: Sequence[ScoreRow],
             proposals: Sequence[tuple[_Proposal, str] | None], context: RunContext) -> None:
        """Add each trajectory's scores, once its proposal is replayed (the baseline's where
        nothing changed); a mutant that reversed two calls is tallied by the pair and the
        metrics that missed it."""
        # a mutant proposing the same calls as one before it in this item is that mutant's
        # replay under another repetition number, which no score reads: scorers are pure, so
        # its row is the one already scored
        scored: dict[str, ScoreRow] = {}
        for base, base_row, planted in zip(group, base_rows, proposals, strict=True):
            if planted is None:
                # an unaltered trajectory is the baseline's own: its scores are already known
                self.rows.append(base_row)
                continue
            proposal, key = planted
            mutant = _mutant(self.replays.done[key], base, proposal)
            proposed = proposal.calls
            self.altered += 1
            if proposal.skipped is not None:  # the replay's key is not all it proposed
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
            proposals = [column.propose(gold[item_id], group, seed) for column in columns]
            replay_all(environment, [column.replays for column in columns])
            for column, planted in zip(columns, proposals, strict=True):
                column.take(group, rows, planted, context)
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
