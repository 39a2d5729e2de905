"""Run every control against one stored run and append the outcomes.

A control that raises becomes an ERROR outcome with the exception text; it
never aborts the others. Each stored outcome records the scorer versions it
was judged with and whether its NOT_RUN was allowed, so admissibility can be
decided later from the store alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.aggregates import means
from agent_assay.controls.bands import Bands, load_bands
from agent_assay.controls.base import ControlContext, ControlOutcome, missing_capability
from agent_assay.controls.certificate import certificate, runs_made_for
from agent_assay.controls.choices import bound_choices
from agent_assay.controls.registry import NOT_APPLICABLE, all_controls, control_kinds
from agent_assay.errors import AssayError
from agent_assay.hashing import stable_seed
from agent_assay.model import Run
from agent_assay.run_context import run_context
from agent_assay.store import RunTrajectories, SharedStates, Store
from agent_assay.store.evidence import check_run_chain, require_intact, write_checkpoint


@dataclass(frozen=True)
class ControlStep:
    """One control starting (`status` None) or finished, for whoever shows progress."""

    number: int
    """1 for the first control run."""
    total: int
    kind: str
    status: str | None = None


ControlWatch = Callable[[ControlStep], None]


@dataclass(frozen=True)
class ControlsResult:
    outcomes: tuple[ControlOutcome, ...]
    allowed: frozenset[str]


def check_allowed(kinds: Iterable[str]) -> frozenset[str]:
    known = set(control_kinds())
    for kind in kinds:
        if kind not in known:
            names = ", ".join(sorted(known))
            raise AssayError(f"unknown control kind in --allow-not-run: {kind} (known: {names})")
    return frozenset(kinds)


def real_means(store: Store, run: Run) -> dict[str, float | None]:
    table: dict[str, dict[str, list[float]]] = {}
    for row in store.current_scores(run.run_id):
        if row.value is not None:
            table.setdefault(row.scorer, {}).setdefault(row.item_id, []).append(row.value)
    return means(table)


def allowed_not_run(
    outcome: ControlOutcome,
    allowed: frozenset[str],
    declared: dict[str, str],
    declared_allowed: bool,
) -> bool:
    if outcome.status != "NOT_RUN":
        return False
    if outcome.kind in allowed or (declared_allowed and outcome.kind in declared):
        return True
    return outcome.reason in NOT_APPLICABLE.get(outcome.kind, frozenset())


def control_context(
    store: Store, system: LoadedSystem | object, run: Run, random_seeds: int, workers: int = 1
) -> ControlContext:
    """What every control of `run` is given; its seed is a function of the run's suite,
    config and seed, so certifying the same run twice draws the same probes. `workers`:
    the processes a control that executes the agent again may use. The run's final states
    are read on shared bases (`SharedStates`): no control changes a trajectory it reads
    (scorers are pure, planters and mutants copy), and held, they would otherwise be a
    whole world each."""
    adapter = load_system(system)
    context = run_context(store, adapter, run)
    return ControlContext(
        store=store,
        adapter=adapter,
        run=run,
        suite=context.suite,
        config=store.get_config(run.config_hash),
        items=[context.items[i] for i in run.item_ids],
        trajectories=RunTrajectories(store, run.run_id, SharedStates(store).by_item),
        scorers=context.scorers,
        scoring=context.scoring,
        headline=adapter.headline,
        real_means=real_means(store, run),
        seed=stable_seed(run.suite_hash, run.config_hash, run.seed, "controls"),
        random_seeds=int(random_seeds),
        workers=workers,
    )


def run_controls(
    store: Store,
    system: LoadedSystem | object,
    run: Run,
    *,
    allowed: frozenset[str] = frozenset(),
    random_seeds: int | None = None,
    bands_file: Path | None = None,
    workers: int = 1,
    watch: ControlWatch | None = None,
) -> ControlsResult:
    """Every control on `run`, judged against the defaults, the system's bands and then
    `bands_file`; each outcome is stored with its certificate. A control that executes the
    agent again runs it in `workers` spawned processes (outcomes do not depend on it).
    `watch` is told when each control starts and when it has finished."""
    adapter = load_system(system)
    check_adapter_made(store, adapter, run)
    # certifying walks the whole chain, whatever a checkpoint claims (anyone who can append
    # can append a run's first checkpoint, over rows edited before it), then gives a run
    # that has none its first one: after a certificate, the first checkpoint is never one
    # appended later, so every report's quick check stands on what this walk found
    evidence = require_intact(store, run.run_id, "certified", check_run_chain)
    write_checkpoint(store, run.run_id)
    adapter.prepare(store.get_suite(run.suite_hash))  # a system may learn its bands from it
    bands = effective_bands(adapter, bands_file, random_seeds)
    declared, declared_allowed = bands.not_applicable, bands.allow_not_applicable
    ctx = control_context(store, adapter, run, bands.get("random_agent")["seeds"], workers)
    scorers = ctx.scorers
    versions = {s.name: s.version for s in scorers}
    choices = bound_choices(
        bands, allowed, ctx.headline, (s.name for s in adapter.facts.scorers)
    )
    outcomes: list[ControlOutcome] = []
    controls = all_controls()
    for number, control in enumerate(controls, start=1):
        if watch is not None:
            watch(ControlStep(number, len(controls), control.kind))
        runs_before = store.run_ids()
        why_not = declared.get(control.kind) or missing_capability(adapter, control.requires)
        if why_not:
            result = ControlOutcome(
                control.kind, control.version, "NOT_RUN", why_not, reason=why_not
            )
        else:
            try:
                result = control.run(ctx, bands.get(control.kind))
            except Exception as exc:
                result = ControlOutcome(
                    control.kind,
                    control.version,
                    "ERROR",
                    f"{type(exc).__name__}: {exc}",
                    reason=f"{type(exc).__name__}: {exc}",
                )
        payload = {
            **result.to_json(),
            "scorer_versions": versions,
            "allowed_not_run": allowed_not_run(result, allowed, declared, declared_allowed),
            "certificate": certificate(
                evidence, run, versions, adapter.version, runs_made_for(store, run, runs_before),
                choices,
            ),
        }
        store.put_control_outcome(run.run_id, run.suite_hash, run.config_hash, payload)
        outcomes.append(result)
        if watch is not None:
            watch(ControlStep(number, len(controls), control.kind, result.status))
    ctx.environment().close()  # a failure before here leaves it to end with this process
    return ControlsResult(tuple(outcomes), allowed)


def effective_bands(
    system: LoadedSystem | object, bands_file: Path | None, random_seeds: int | None
) -> Bands:
    """The defaults, the system's own file, `--bands FILE`, then `--random-seeds`: what
    the controls are judged against. Each is checked here, so a caller can refuse a bad
    file or a seed count below the floor before anything is run or written."""
    bands = load_bands(load_system(system).facts.bands, bands_file)
    return bands if random_seeds is None else bands.with_seeds(random_seeds)


def check_adapter_made(store: Store, adapter: LoadedSystem, run: Run) -> None:
    """Controls judge a run with the adapter that made it, at the version that made it."""
    if run.adapter != adapter.name:
        raise AssayError(
            f"run {run.run_id} was made by adapter {run.adapter}, not {adapter.name}: "
            f"pass --adapter {run.adapter}"
        )
    made_by = store.manifest(run.run_id).get("adapter_version", run.env.get("adapter_version"))
    if made_by is not None and made_by != adapter.version:
        raise AssayError(
            f"run {run.run_id} was made by {run.adapter} {made_by}; the installed adapter is "
            f"{adapter.version}: certify it with the version that made it"
        )

