"""What a run's stored rows add up to, below both the gates and the reports.

The run's status (from its stored slots and events, its crashes by cause), the
values its figures are made of once the crash rule (`stats.crashes`) is applied, the
scorer versions its current scores carry, and the scoring helpers that controls and
mutation share
(score trajectories, average per metric, compare in a metric's good direction:
for counts lower is better, so "worse" means a rise). Integrity, report,
controls and mutation all read these; none of them imports another for it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.model import Item, Run, Trajectory
from agent_assay.scoring.base import ScoreKind, Scorer, ScoringContext
from agent_assay.scoring.registry import score_all
from agent_assay.stats.crashes import Repetitions, Treated, repetitions, treat
from agent_assay.stats.paired import ALPHA, CLUSTERS_FLOOR, CLUSTERS_TRUSTED, FPR_BOUND
from agent_assay.store import SESSION_EVENTS, RunEvent, Store
from agent_assay.store.encoding import ScoreColumns
from agent_assay.writers import Liveness, liveness, recorded_writer


@dataclass(frozen=True)
class RunStatus:
    state: str  # complete | incomplete | interrupted | running | abandoned (a control's)
    expected: int
    stored: int
    crashed: int
    reasons: tuple[str, ...]
    repetitions: Repetitions
    """The crashes by cause and the items short of k measured repetitions."""


def run_repetitions(
    store: Store, run: Run, counts: tuple[int, int] | None = None
) -> Repetitions:
    """The run's repetitions as `stats.crashes` counts them: crashes by cause, and the
    items with fewer than k measured repetitions (read only when some slot is missing or
    crashed). `counts`: the run's stored and crashed trajectories, if already read."""
    expected = len(run.item_ids) * run.repeats
    stored, crashed = counts or store.trajectory_counts(run.run_id)
    if stored == expected and not crashed:
        return Repetitions(run.repeats)
    causes = store.crash_causes(run.run_id) if crashed else {}
    return repetitions(run.repeats, run.item_ids, store.stored_per_item(run.run_id), causes)


def run_status(
    store: Store, run: Run, events: Sequence[RunEvent] | None = None
) -> RunStatus:
    """complete, running, interrupted or incomplete: from the stored slots and events, and
    for a run still open, whether the process that opened its last session is alive. A
    run a control made (identical_config's twin) that would be interrupted is abandoned:
    the control that made it stopped, and only a new control run makes it again.
    `events`: the run's events, if already read."""
    events = store.events(run.run_id) if events is None else events
    expected = len(run.item_ids) * run.repeats
    stored, crashed = store.trajectory_counts(run.run_id)
    counted = run_repetitions(store, run, (stored, crashed))
    reasons: list[str] = []
    if stored < expected:
        reasons.append(f"{expected - stored} of {expected} trajectories not stored")
    if crashed:
        reasons.append(f"{crashed} trajectories {counted.crash_line()}")
    if counted.left_out():
        reasons.append(counted.left_out_line())
    if not reasons:
        return RunStatus("complete", expected, stored, crashed, (), counted)
    sessions = [e for e in events if e.event in SESSION_EVENTS]
    last = sessions[-1] if sessions else None
    if last is None or last.event == "complete":
        state = "incomplete"
    elif last.event == "interrupted":
        state = "interrupted"
    else:
        state, why = _open_session_state(last.detail)
        reasons.append(why)
    control = run.env.get("control")
    if state == "interrupted" and control is not None:
        state = "abandoned"  # a twin whose control stopped: the control makes new ones
        certifies = run.env.get("certifies")
        reasons.append(f"made by control {control} for run {certifies}, which stopped before "
                       f"this run finished: not evidence, and not resumed (`agent-assay "
                       f"controls run --run {certifies}` makes new ones)")
    elif state == "interrupted":
        reasons.append(f"resume it with `agent-assay run --resume {run.run_id}`")
    return RunStatus(state, expected, stored, crashed, tuple(reasons), counted)


def _open_session_state(detail: object) -> tuple[str, str]:
    """A session that never closed: running while its writer lives, interrupted once it is
    gone (killed before it could record why)."""
    writer = recorded_writer(detail)
    if writer is None:
        return "running", "no writer recorded (an older agent-assay): running, or killed"
    alive = liveness(writer)
    if alive is Liveness.GONE:
        return "interrupted", f"its writer ({writer.describe()}) is gone without closing it"
    if alive is Liveness.UNKNOWN:
        return "running", f"written by {writer.describe()}, which cannot be checked from here"
    return "running", f"being written by {writer.describe()}"


def metric_kinds(manifest: Mapping[str, Any]) -> dict[str, ScoreKind]:
    """name -> kind of each scorer a manifest lists (a metric it does not list, an imported
    score, is read as a measure wherever a figure is made of it)."""
    return {str(s["name"]): s.get("kind", "measure") for s in manifest.get("scorers", [])}


def treated_metrics(columns: ScoreColumns, kinds: Mapping[str, ScoreKind]) -> dict[str, Treated]:
    """Each metric's stored values with the crash rule applied (`stats.crashes`): what every
    mean, pass rate and comparison of a run is made of."""
    return {
        name: treat(kinds.get(name, "measure"), column.items, column.repetitions,
                    column.values, columns.crashed)
        for name, column in columns.metrics.items()
    }


def item_values(store: Store, run: Run) -> dict[str, dict[str, list[float]]]:
    """metric -> item -> the values its repetitions add to the metric's mean, in repetition
    order, under the crash rule (an item with none is absent)."""
    columns = store.score_columns(run.run_id)
    table: dict[str, dict[str, list[float]]] = {}
    for name, treated in treated_metrics(columns, metric_kinds(store.manifest(run.run_id))).items():
        items, _, values = treated.in_means()
        by_item: dict[str, list[float]] = defaultdict(list)
        for item, value in zip(items.tolist(), values.tolist(), strict=True):
            by_item[columns.item_ids[item]].append(value)
        if by_item:
            table[name] = dict(by_item)
    return table


def scorer_versions(
    store: Store, run: Run, events: Sequence[RunEvent] | None = None
) -> dict[str, str]:
    """name -> version of the scorer set the run's current scores were written by.
    `events`: the run's events, if already read."""
    manifest = store.manifest(run.run_id, events)
    return {s["name"]: s["version"] for s in manifest.get("scorers", [])}


def direction(kind: ScoreKind) -> int:
    """+1 when higher is better, -1 when lower is better, 0 for measures."""
    return {"binary": 1, "fraction": 1, "count": -1, "measure": 0}[kind]


def improvement(kind: ScoreKind, reference: float, candidate: float) -> float:
    """How much better `reference` is than `candidate`, in the metric's good direction."""
    return (reference - candidate) * direction(kind)


ScoreRow = list[tuple[str, float]]
"""One trajectory's scores as (metric, value), None values dropped, in scorer order."""


def score_rows(
    scorers: Sequence[Scorer],
    gold_by_item: Mapping[str, Item],
    trajectories: Sequence[Trajectory],
    ctx: ScoringContext,
) -> list[ScoreRow]:
    """Each trajectory scored once: scorers are pure, so a row can stand in for scoring the
    same trajectory again (a mutant that an operator left unaltered, say)."""
    return [
        [(scorer.name, result.value)
         for scorer, result in score_all(scorers, gold_by_item[t.item_id].gold, t, ctx)
         if result.value is not None]
        for t in trajectories
    ]


def table_of(
    item_ids: Sequence[str], rows: Sequence[ScoreRow]
) -> dict[str, dict[str, list[float]]]:
    """metric -> item -> values, in row order, from each trajectory's item id and score row
    (ids, not trajectories: a caller need not keep the trajectories to tabulate them)."""
    table: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for item_id, row in zip(item_ids, rows, strict=True):
        for metric, value in row:
            table[metric][item_id].append(value)
    return table


def score_table(
    scorers: Sequence[Scorer],
    gold_by_item: Mapping[str, Item],
    trajectories: Iterable[Trajectory],
    ctx: ScoringContext,
) -> dict[str, dict[str, list[float]]]:
    """metric -> item -> values (None values dropped), in one walk over `trajectories` (a
    run's stored ones are read as they are walked: see RunTrajectories)."""
    ids: list[str] = []
    rows: list[ScoreRow] = []
    for t in trajectories:
        ids.append(t.item_id)
        rows.extend(score_rows(scorers, gold_by_item, [t], ctx))
    return table_of(ids, rows)


def means(table: Mapping[str, Mapping[str, list[float]]]) -> dict[str, float | None]:
    """Per metric, the mean over items of each item's mean."""
    out: dict[str, float | None] = {}
    for metric, by_item in table.items():
        item_means = [sum(v) / len(v) for v in by_item.values() if v]
        out[metric] = sum(item_means) / len(item_means) if item_means else None
    return out


def score_means(
    scorers: Sequence[Scorer],
    gold_by_item: Mapping[str, Item],
    trajectories: Iterable[Trajectory],
    ctx: ScoringContext,
) -> dict[str, float | None]:
    return means(score_table(scorers, gold_by_item, trajectories, ctx))


CLUSTER_SPECS = "'tag' (an item's first tag) or 'tag:PREFIX' (its first tag starting PREFIX)"


def clusters_of(store: Store, run: Run, spec: str) -> dict[str, str]:
    """item id -> cluster, by the item's tags as `spec` says."""
    if spec != "tag" and not spec.startswith("tag:"):
        raise AssayError(f"--cluster must be {CLUSTER_SPECS}, got {spec!r}")
    prefix = spec[4:]
    found: dict[str, str] = {}
    for item in store.get_suite(run.suite_hash).items:
        tags = [t for t in item.tags if t.startswith(prefix)]
        found[item.item_id] = tags[0] if tags else "(none)"
    return found


@dataclass(frozen=True)
class Clustering:
    """A run's items by cluster, and what the clustered test can be trusted with there."""

    labels: Mapping[str, str]
    """item id -> cluster, for the run's items."""
    count: int
    warning: str | None
    """A line to print when there are fewer clusters than the test was measured to hold at."""


def run_clusters(store: Store, run: Run, spec: str) -> Clustering:
    """The run's items clustered as `spec` says, judged by `cluster_warning`."""
    suite = clusters_of(store, run, spec)
    labels = {item: suite.get(item, "(none)") for item in run.item_ids}
    count = len(set(labels.values()))
    return Clustering(labels, count, cluster_warning(count, spec))


def cluster_warning(count: int, spec: str) -> str | None:
    """Refuse fewer clusters than CLUSTERS_FLOOR; warn below CLUSTERS_TRUSTED. Where the
    cluster-robust test was measured to hold its false-positive rate, and where it held it
    only for effects spread evenly around zero (`docs/statistics-measured.md`)."""
    if count < CLUSTERS_FLOOR:
        raise AssayError(
            f"--cluster {spec} puts the run's items in {count} cluster(s); a cluster-robust "
            f"figure needs at least {CLUSTERS_FLOOR} (with fewer, the clustered test rejected "
            f"a true null more than {FPR_BOUND:.2f} of the time at {ALPHA:.2f} in simulation): "
            "cluster by a tag with more values, or leave out --cluster, which assumes the "
            "items independent")
    if count >= CLUSTERS_TRUSTED:
        return None
    return (f"warning: {count} clusters, fewer than the {CLUSTERS_TRUSTED} from which the "
            f"clustered test kept to {FPR_BOUND:.2f} false positives at {ALPHA:.2f} in every "
            "simulated case; an effect concentrated in a few clusters can make it reject a "
            "true null more often, so read its p-values and intervals as approximate")
