"""Read a run's snapshot from the store, once, after its integrity check; the views' only reader.

`load_run_data` is the one function that turns a store into what the renderers read (a
`RunData`): it runs after `integrity.admissibility.assess` (the verdict is handed in and
becomes part of the snapshot) and reads each table it is asked for once. From a TAMPERED
run it reads nothing more for a report (no number is shown, and none of its rows can be
trusted to decode); `history` (what `runs show` prints) reads the run's status, events
and suite as before, and still no score.

Every other module of `views` renders a snapshot and imports neither the store nor a
store-reading check (tests/core/test_views_are_pure.py holds them to it). The functions
below the loader are that loader and a renderer composed, under the names the views had
when they read the store themselves, for the API, the CLI, tools and tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent_assay.aggregates import run_clusters, run_status
from agent_assay.errors import AssayError
from agent_assay.importers import declared_faults
from agent_assay.integrity.admissibility import (
    Admissibility,
    SinglePass,
    assess,
    single_pass_refusal,
)
from agent_assay.integrity.choices import judge_choices
from agent_assay.model import Run
from agent_assay.scoring.base import ScoreKind
from agent_assay.store import Store, StoredOutcome
from agent_assay.store.evidence import ChainCheck
from agent_assay.views import gates, summary
from agent_assay.views.breakdown import TagBreakdown, tags_of
from agent_assay.views.run_data import RunData

if TYPE_CHECKING:
    from agent_assay.views import passk, planning, run_view
    from agent_assay.views.trajectory_view import TrajectoryView

# the views only `passk_report`, `show_run_view`, `list_runs`, `trajectory_view` and
# `make_plan` render are imported there: a report never loads them


def load_run_data(
    store: Store,
    run: Run,
    verdict: Admissibility | None = None,
    *,
    cluster: str | None = None,
    check: ChainCheck | None = None,
    suite: bool = False,
    trajectories: bool = False,
    scores: bool = False,
    outcomes: bool = False,
    mutation: bool = False,
    history: bool = False,
    paths: bool = True,
    single: bool = True,
) -> RunData:
    """The run as the renderers read it, each part read once.

    Always (unless the verdict is TAMPERED): the status, the manifest, the score columns,
    the path digests (`paths`; `check`, or the verdict's chain check, lends those its
    blocks record), the clustering when `cluster` is given, and with a verdict the
    single-pass judgement (`single`). On request: the suite, every newest trajectory with
    the trajectory faults importers declare, the current score rows, the control
    outcomes, the newest mutation pass, and the `history` `runs show` prints (events,
    config, retried slots, crash causes, suite, outcomes; a TAMPERED run's too, with its
    status, but no score). From a TAMPERED run nothing else is read. The status, the
    events and the control outcomes an untampered verdict read are taken from it, not
    read again."""
    tampered = verdict is not None and verdict.tampered
    if tampered and not history:
        return RunData(run, verdict, SinglePass(()))
    judged = None if verdict is None or tampered else verdict  # read status and outcomes
    read = judged.integrity.events if judged is not None else None
    events = (read or tuple(store.events(run.run_id))) if history else None
    status = judged.status if judged is not None else None
    data = RunData(
        run, verdict,
        None if verdict is None or not single else SinglePass(()) if tampered
        else single_pass_refusal(store, run),
        cluster=cluster,
        clustering=None if cluster is None or tampered else run_clusters(store, run, cluster),
        status_=status if status is not None else run_status(store, run, events),
        suite_=store.get_suite(run.suite_hash) if suite or history else None,
        trajectories_=tuple(store.trajectories(run.run_id)) if trajectories else None,
        faults_=declared_faults() if trajectories else None,
        scores_=tuple(store.current_scores(run.run_id)) if scores else None,
        outcomes_=_outcomes(store, run, judged) if outcomes or history else None,
        mutation_=tuple(store.latest_mutation_pass(run.run_id)) if mutation else None,
    )
    if history:
        data = replace(
            data, events_=events,
            config_=store.get_config(run.config_hash),
            retried_=store.retried_slots(run.run_id),
            crash_causes_=store.crash_causes(run.run_id),
        )
    if tampered:
        return data
    recorded = check or (verdict.integrity.check if verdict is not None else None)
    return replace(
        data,
        manifest_=store.manifest(run.run_id, read or None),
        columns_=store.score_columns(run.run_id, crashes=data.status.crashed > 0,
                                     sets=recorded.sets if recorded else None),
        paths_=_path_digests(store, data, recorded.paths if recorded else {}) if paths
        else None,
    )


def _outcomes(
    store: Store, run: Run, judged: Admissibility | None
) -> Mapping[str, StoredOutcome]:
    """The newest outcome of each control: as the verdict read them, when it read them."""
    return judged.outcomes if judged is not None else store.control_outcomes(run.run_id)


def _path_digests(
    store: Store, data: RunData, recorded: Mapping[tuple[str, int], str]
) -> dict[tuple[str, int], str]:
    """Each stored trajectory's path digest: as its block records it, or, for trajectories
    written before blocks recorded one, from its decoded payload."""
    run_id = data.run.run_id
    found = dict(recorded)
    if len(found) < store.trajectory_count(run_id):
        every = data.trajectories_
        for t in every if every is not None else store.trajectories(run_id):
            found.setdefault((t.item_id, t.repetition), t.path_digest())
    return found


def page_data(store: Store, run: Run, verdict: Admissibility) -> RunData:
    """Everything the HTML page shows, read once."""
    return load_run_data(store, run, verdict, suite=True, trajectories=True, scores=True,
                         outcomes=True, mutation=True)


def metric_meta(store: Store, run: Run, metric: str) -> tuple[ScoreKind, str]:
    """The metric's kind and definition from the run's manifest; an unknown name is refused
    with the ones that exist."""
    manifest = store.manifest(run.run_id)
    for scorer in manifest.get("scorers", []):
        if scorer.get("name") == metric:
            return scorer.get("kind", "measure"), str(scorer.get("definition", ""))
    scored = {r.scorer for r in store.current_scores(run.run_id)}
    if metric in scored:  # an imported score the manifest does not describe
        return "binary", "imported score"
    known = sorted({str(s.get("name")) for s in manifest.get("scorers", [])} | scored)
    raise AssayError(
        f"unknown metric {metric} in run {run.run_id}; its metrics: {', '.join(known) or 'none'}"
    )


# ---- the loader and a renderer, composed ------------------------------------------------
def summarise(
    store: Store, run: Run, cluster: str | None = None, check: ChainCheck | None = None
) -> summary.RunSummary:
    """The run's figures; `check`, the chain check the caller already made, lends the path
    digests its blocks record, so no trajectory is decoded for them."""
    return summary.summary_of(load_run_data(store, run, cluster=cluster, check=check))


def passk_report(store: Store, run: Run) -> passk.PassKReport:
    from agent_assay.views import passk

    return passk.passk_of(load_run_data(store, run, trajectories=True, outcomes=True,
                                        paths=False))


def by_tag(store: Store, run: Run) -> TagBreakdown:
    return tags_of(load_run_data(store, run, suite=True, paths=False))


def report_text(
    store: Store,
    run: Run,
    verdict: Admissibility | None = None,
    *,
    headline_only: bool = False,
    cluster: str | None = None,
) -> str:
    """The run report with its gates, from a snapshot loaded after `verdict` (assessed
    here when not given)."""
    verdict = verdict or assess(store, run)
    return gates.report_text_of(load_run_data(store, run, verdict, cluster=cluster),
                                headline_only=headline_only)


def report_json(
    store: Store, run: Run, verdict: Admissibility | None = None, cluster: str | None = None
) -> dict[str, Any]:
    verdict = verdict or assess(store, run)
    return gates.report_json_of(load_run_data(store, run, verdict, cluster=cluster))


def run_page(store: Store, run: Run, verdict: Admissibility) -> str:
    """`report RUN --html`: the run's page (see `views.html.page.run_page_of`)."""
    from agent_assay.views.html.page import run_page_of

    return run_page_of(page_data(store, run, verdict))


def trajectory_views(store: Store, run: Run) -> dict[tuple[str, int], TrajectoryView]:
    from agent_assay.views.html.trajectories import views_of

    return views_of(load_run_data(store, run, suite=True, trajectories=True, scores=True,
                                  paths=False))


def show_run_view(store: Store, run_id: str) -> run_view.RunView:
    """`runs show`: the run's history and verdict, and its headline unless TAMPERED."""
    from agent_assay.views import run_view

    run = store.get_run(run_id)
    verdict = assess(store, run)
    return run_view.run_view_of(load_run_data(store, run, verdict, history=True, paths=False,
                                                    single=False))


def list_runs(store: Store) -> tuple[run_view.ListedRun, ...]:
    """Every stored run, oldest first, with its status and what its controls waived (read
    from their certificates; `report` or `runs show` give the whole verdict)."""
    from agent_assay.views import run_view

    listed = []
    for run in store.list_runs():
        outcomes = store.control_outcomes(run.run_id)
        listed.append(run_view.ListedRun(run, run_status(store, run).state,
                                         judge_choices(run, outcomes) if outcomes else None))
    return tuple(listed)


def trajectory_view(
    store: Store, run_id: str, item_id: str, repetition: int, attempt: int | None = None
) -> TrajectoryView:
    """The slot's newest attempt (the one the figures read), or `attempt`."""
    from agent_assay.views.trajectory_view import build_view, scorer_definitions

    run = store.get_run(run_id)
    if item_id not in run.item_ids:
        shown = ", ".join(run.item_ids[:3]) + (", ..." if len(run.item_ids) > 3 else "")
        raise AssayError(
            f"unknown item {item_id} in run {run.run_id} ({len(run.item_ids)} items: {shown})"
        )
    if not 1 <= repetition <= run.repeats:
        raise AssayError(
            f"--rep {repetition}: run {run.run_id} has repetitions 1 to {run.repeats}"
        )
    attempts = store.attempt_count(run.run_id, item_id, repetition)
    if not attempts:
        raise AssayError(
            f"item {item_id} repetition {repetition} of run {run.run_id} is not stored "
            f"(`agent-assay runs list` shows whether the run is interrupted)"
        )
    if attempt is not None and not 1 <= attempt <= attempts:
        raise AssayError(f"--attempt {attempt}: item {item_id} repetition {repetition} of run "
                         f"{run.run_id} holds attempt(s) 1 to {attempts}")
    chosen = attempts if attempt is None else attempt
    trajectory = store.trajectories(run.run_id, item_id, repetition, chosen)[0]
    item = store.get_suite(run.suite_hash).by_id()[item_id]
    rows = [r for r in store.current_scores(run.run_id, item_id, chosen)
            if r.repetition == repetition]
    view = build_view(run, item, trajectory, rows, scorer_definitions(store.manifest(run.run_id)))
    return replace(view, attempt=chosen, attempts=attempts)


def make_plan(
    store: Store,
    run: Run,
    *,
    metric: str,
    effects: Sequence[float],
    power: float,
    alpha: float,
    correlation: float,
) -> planning.Plan:
    """`plan`: sizing from a pilot run's stored values of `metric`."""
    from agent_assay.views import planning

    return planning.plan_of(run, store.current_scores(run.run_id), metric=metric,
                            effects=effects, power=power, alpha=alpha,
                            correlation=correlation)
