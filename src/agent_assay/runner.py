"""Items × repetitions → trajectories → scores → store, with resume and crash capture.

The runner is the single writer. Each trajectory is scored (in this process, or
with worker processes in scoring processes of their own, see
`executors.scored_pool`) and written with its scores in one transaction; a
crashed agent becomes a crashed trajectory (with the exception text and its
cause), scored like any other, so the failure counts against the agent instead of
vanishing from the denominator (`stats.crashes` has the rule). A crash the adapter
declares the harness's (the agent could not be reached, the environment failed) is
stored too, and measures nothing.

A resume may run crashed slots again (`retry`): each becomes a new attempt at its slot,
the crashed one kept beside it, after a `retry` event that says which crashes were
asked for. The harness's crashes were never measured, so running them again takes
nothing back; the agent's were measured failures, and running them again is disclosed
wherever the run's verdict is (`integrity.retries`).
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.adapters.pure_suite import build_pure_suite
from agent_assay.adapters.settings import applied
from agent_assay.aggregates import scorer_versions
from agent_assay.collector import young_collected_less
from agent_assay.errors import AssayError, RunInterrupted, RunStopped, Terminated
from agent_assay.executors.processes import SEQUENTIAL
from agent_assay.executors.protocol import Arrival, Backend, ExecutorLost, ScoringJob
from agent_assay.hashing import stable_seed
from agent_assay.hosting.jobs import Task
from agent_assay.llm.configs import MODEL_SETTINGS, is_model_config
from agent_assay.llm.endpoint import resolve_endpoint
from agent_assay.model import (
    AGENT_CRASH,
    HARNESS_CRASH,
    UNREACHABLE,
    Config,
    CrashCause,
    Item,
    Run,
    Suite,
    Trajectory,
    crash_cause_in,
)
from agent_assay.run_context import RunContext, SystemLike, run_context
from agent_assay.scoring.base import Scorer
from agent_assay.selection import Selection
from agent_assay.store import Attempt, ScoreRecord, Store
from agent_assay.store.encoding import PreparedTrajectory
from agent_assay.store.evidence import RETRY_EVENT, require_intact, write_checkpoint
from agent_assay.version import harness_version
from agent_assay.writers import this_process


@dataclass(frozen=True)
class RunResult:
    run: Run
    written: int
    skipped: int
    crashed: int
    unreachable: int = 0
    """Of the crashed, how many because the agent could not be reached."""
    harness: int = 0
    """Of the crashed, how many were the harness's (the unreachable among them): slots
    stored but not measured."""
    first_harness: str | None = None
    first_unreachable: str | None = None
    first_crashes: tuple[str, ...] = ()
    """The first few crashes, each `item ITEM rep N: ERROR`, so a caller can show them."""
    retried: int = 0
    """Of the written, how many ran a crashed slot again (`retry`)."""
    crashes_left: Mapping[CrashCause, int] = field(default_factory=dict)
    """The slots whose newest attempt crashed once this session ended, by cause."""


def resolve_config(
    system: SystemLike, name: str, settings: Mapping[str, object] | None = None
) -> Config:
    """The config `name` with `settings` (`-M key=value`) applied: what the system declares
    settable, and on a model config what the model agent does."""
    adapter = load_system(system)
    available = adapter.configs()
    if name not in available:
        raise AssayError(
            f"unknown config {name!r} for adapter {adapter.name} "
            f"(available: {', '.join(sorted(available))})"
        )
    params = dict(available[name])
    if settings:
        declared = {**adapter.facts.settings,
                    **(MODEL_SETTINGS if is_model_config(params) else {})}
        params = applied(params, declared, settings, f"config {name} of adapter {adapter.name}")
    return Config(adapter=adapter.name, name=name, params=params)


def settings_env(config: Config, settings: Mapping[str, object] | None) -> dict[str, object]:
    """What a run records of the settings it was made with, as parsed (`runs show` and the
    report header show it); nothing when none was given."""
    return {"settings": {k: config.params[k] for k in sorted(settings)}} if settings else {}


def select_items(suite: Suite, *, tags: Sequence[str] = (), limit: int | None = None) -> list[Item]:
    """Items in id order, optionally filtered by tag, then cut to the first `limit` (a
    `Selection` also names items by id or pattern)."""
    return Selection.of(tags=tags, limit=limit).choose(suite.items)


def build_and_store_suite(store: Store, system: SystemLike, source: Path | None) -> Suite:
    adapter = load_system(system)
    suite = build_pure_suite(adapter, source)
    if not suite.items:
        raise AssayError(f"adapter {adapter.name} built an empty suite from {source}")
    counts = Counter(item.item_id for item in suite.items)
    repeated = sorted(item_id for item_id, n in counts.items() if n > 1)
    if repeated:
        raise AssayError(
            f"adapter {adapter.name} built duplicate item id(s): {', '.join(repeated)}"
        )
    store.put_suite(suite)
    return suite


RETRY_MODES: Mapping[str, frozenset[CrashCause]] = {
    "harness": frozenset({HARNESS_CRASH}),
    "crashed": frozenset({HARNESS_CRASH, AGENT_CRASH}),
}
"""`run --resume --retry MODE`: whose crashes are run again. `harness`, the slots the
harness crashed (never measured); `crashed`, every crashed slot, the agent's measured
failures too (disclosed: see `integrity.retries`)."""


def retry_causes(mode: str) -> frozenset[CrashCause]:
    """Whose crashes `--retry MODE` runs again; a mode that is not one is refused."""
    if mode not in RETRY_MODES:
        raise AssayError(f"--retry must be one of {', '.join(RETRY_MODES)}, got {mode!r}")
    return RETRY_MODES[mode]


def to_retry(store: Store, run: Run, mode: str | None) -> dict[tuple[str, int], Attempt]:
    """The slots `mode` runs again (each as the attempt that would follow its crash): those
    whose newest attempt crashed, by a cause the mode names."""
    if mode is None:
        return {}
    causes = retry_causes(mode)
    return {slot: attempt for slot, attempt in store.newest_crashes(run.run_id).items()
            if attempt.cause in causes}


SHOWN_CRASHES = 3
MAX_REPEATS = 10_000
MAX_SEED = 2**63 - 1  # the largest integer SQLite stores


def check_run_numbers(repeats: int, seed: int) -> None:
    """Refuse a repetition count or seed a run cannot have, before anything is stored."""
    if not 1 <= repeats <= MAX_REPEATS:
        raise AssayError(f"--repeats must be between 1 and {MAX_REPEATS}, got {repeats}")
    if not 0 <= seed <= MAX_SEED:
        raise AssayError(f"--seed must be between 0 and {MAX_SEED} (2**63 - 1), got {seed}")


def start_run(
    store: Store,
    system: SystemLike,
    suite: Suite,
    config: Config,
    *,
    repeats: int,
    seed: int,
    items: Sequence[Item],
    extra_env: Mapping[str, object] | None = None,
) -> Run:
    adapter = load_system(system)
    check_run_numbers(repeats, seed)
    store.put_config(config)
    env = {**run_environment(adapter, config), **(extra_env or {})}
    scorers = adapter.scorers()
    manifest = run_manifest(adapter, config, scorers)
    return store.create_run(
        adapter=adapter.name,
        suite_hash=suite.suite_hash,
        config_hash=config.config_hash,
        config_name=config.name,
        repeats=repeats,
        seed=seed,
        item_ids=[i.item_id for i in items],
        env=env,
        affects_results=affects_results(adapter, config) & env.keys(),
        started={**manifest, "writer": this_process().to_json()},
    )


def scorer_manifest(scorers: Sequence[Scorer]) -> list[dict[str, str]]:
    """Name, version, kind and definition of each scorer: what a stored number means."""
    return [
        {"name": s.name, "version": s.version, "kind": s.kind, "definition": s.definition}
        for s in scorers
    ]


def run_environment(adapter: LoadedSystem, config: Config) -> dict[str, object]:
    """What is recorded with a run: the system's facts, and the model's for a model config."""
    env: dict[str, object] = adapter.environment(config)
    if is_model_config(config.params):
        endpoint = resolve_endpoint(config.params)
        env |= {
            "model": endpoint.model,
            "model_base_url": endpoint.base_url,
            "model_loopback": endpoint.loopback,
        }
    return env


def affects_results(adapter: LoadedSystem, config: Config) -> frozenset[str]:
    """The environment keys that make runs incomparable: the system's, and for a model
    config the model's name."""
    extra = {"model"} if is_model_config(config.params) else set()
    return adapter.affects_results() | extra


def run_manifest(
    adapter: LoadedSystem, config: Config, scorers: Sequence[Scorer]
) -> dict[str, object]:
    """What a report needs to read a run without loading its adapter: scorer kinds, headline,
    and the versions of the adapter and the harness that made it."""
    return {
        "scorers": scorer_manifest(scorers),
        "headline": list(adapter.headline),
        "deterministic": adapter.deterministic(config),
        "adapter_version": adapter.version,
        "harness_version": harness_version(),
    }


def check_scorer_set(store: Store, run: Run, scorers: Sequence[Scorer]) -> None:
    """Refuse to add rows scored by a scorer set other than the one the run's scores have:
    a run would otherwise mix versions inside one generation."""
    recorded = scorer_versions(store, run)
    now = {s.name: s.version for s in scorers}
    if recorded and recorded != now:
        changed = sorted(
            f"{name} {recorded.get(name, 'absent')} -> {now.get(name, 'absent')}"
            for name in recorded.keys() | now.keys()
            if recorded.get(name) != now.get(name)
        )
        raise AssayError(
            f"run {run.run_id} was scored by another scorer set ({'; '.join(changed)}): "
            f"re-score it first with `agent-assay score {run.run_id}`"
        )


ProgressHook = Callable[[int, int], None]


@contextmanager
def terminal_progress(label: str, total: int, enabled: bool) -> Iterator[ProgressHook]:
    """A rich progress bar on a terminal; silence elsewhere."""
    if not enabled:
        yield lambda done, total: None
        return
    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
        console=None,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done, _total: progress.update(task, completed=done)


def execute_run(
    store: Store,
    system: SystemLike,
    run: Run,
    *,
    backend: Backend = SEQUENTIAL,
    progress: bool | None = None,
    retry: str | None = None,
) -> RunResult:
    """Run every (item, repetition) not yet stored for `run`; safe to call again to resume,
    with any backend (the stored slots are skipped whichever executor stored them). The
    agents run where `backend` puts them; every trajectory is stored here, scored here
    unless the backend's processes scored it (they never hand an agent gold). With
    `retry` (a key of RETRY_MODES), the crashed slots it names run again too, each as a
    new attempt recorded after a `retry` event."""
    require_intact(store, run.run_id, "run")
    again = to_retry(store, run, retry)
    context = run_context(store, system, run)
    adapter, suite, items = context.system, context.suite, context.items
    config = store.get_config(run.config_hash)
    stored = store.stored_slots(run.run_id)
    slots = [(i, r) for i in run.item_ids for r in range(1, run.repeats + 1)]
    todo = schedule(run, [s for s in slots if s not in stored or s in again])
    check_scorer_set(store, run, context.scorers)
    if again:
        causes = Counter(attempt.cause for attempt in again.values())
        store.append_event(run.run_id, RETRY_EVENT, {
            "retry": retry, "slots": len(again),
            "by_cause": {cause: causes[cause] for cause in sorted(causes)}})
    tasks = (
        Task(items[item_id].public(), config, stable_seed(run.seed, item_id, rep), rep)
        for item_id, rep in todo
    )
    show = sys.stderr.isatty() if progress is None else progress
    tally = _Tally()
    try:
        with terminal_progress(f"run {run.run_id[:8]}", len(todo), show) as tick, \
                young_collected_less():
            executor = backend.executor(adapter, suite.public(), ScoringJob(suite, run.run_id))
            for arrival in executor.run(tasks):
                for trajectory in _written(store, run.run_id, arrival, context, again):
                    slot = (trajectory.item_id, trajectory.repetition)
                    tally.add(store, run.run_id, trajectory, again.get(slot))
                tick(tally.written, len(todo))
    except BaseException as exc:
        stopped = _why_stopped(run, tally.written, exc)
        # if the store itself failed, the failure that stopped the run says more
        with suppress(Exception):
            store.append_event(
                run.run_id,
                "interrupted",
                {"written": tally.written, "why": str(stopped), **backend.recorded},
            )
        if stopped is exc:
            raise
        raise stopped from exc
    retried = {"retried": len(again)} if again else {}
    store.append_event(
        run.run_id,
        "complete",
        {"written": tally.written, "skipped": len(slots) - len(todo), **retried,
         **backend.recorded},
    )
    with young_collected_less():  # the checkpoint's columns: objects by the hundred thousand
        write_checkpoint(store, run.run_id)
    return RunResult(
        run=run,
        written=tally.written,
        skipped=len(slots) - len(todo),
        retried=len(again),
        crashes_left=dict(Counter(store.crash_causes(run.run_id).values())),
        crashed=tally.crashed,
        unreachable=tally.unreachable,
        harness=tally.harness,
        first_harness=tally.first_harness,
        first_unreachable=tally.first_unreachable,
        first_crashes=tuple(tally.first_crashes),
    )


def schedule(run: Run, todo: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The slots in a shuffled order drawn from the run's own id (and how far it got), so
    no two executions of a config (a run, its resume, each twin) meet items in one order
    an agent could recognise, and an agent that carries something from one item to the
    next shows it as a difference between them."""
    order = list(todo)
    random.Random(stable_seed(run.run_id, "schedule", len(order))).shuffle(order)
    return order


def _written(
    store: Store,
    run_id: str,
    arrival: Arrival,
    context: RunContext,
    attempts: Mapping[tuple[str, int], Attempt],
) -> Iterator[Trajectory | PreparedTrajectory]:
    """Store what an executor handed over together, yielding each trajectory once it is
    stored: rows a scoring process prepared in one transaction, and trajectories to score
    here in another (group commit); a slot in `attempts` as that attempt at it. A scorer
    that raises stops the run after what was scored before it is stored."""
    prepared = [t for t in arrival if isinstance(t, PreparedTrajectory)]
    if prepared:
        store.write_prepared_group(run_id, prepared, attempts)
        yield from prepared
    scored: list[tuple[Trajectory, Sequence[ScoreRecord]]] = []
    stopped: BaseException | None = None
    for trajectory in arrival:
        if isinstance(trajectory, Trajectory):
            try:
                scored.append((trajectory, context.score_set(trajectory)))
            except BaseException as exc:
                stopped = exc
                break
    if scored:
        store.write_trajectories(run_id, scored, attempts)
        yield from (trajectory for trajectory, _ in scored)
    if stopped is not None:
        raise stopped


@dataclass
class _Tally:
    """What a run has written so far, and the crashes it shows (each also an event)."""

    written: int = 0
    crashed: int = 0
    unreachable: int = 0
    harness: int = 0
    first_harness: str | None = None
    first_unreachable: str | None = None
    first_crashes: list[str] = field(default_factory=list)

    def add(self, store: Store, run_id: str, trajectory: Trajectory | PreparedTrajectory,
            attempt: Attempt | None = None) -> None:
        self.written += 1
        if not trajectory.crashed:
            return
        self.crashed += 1
        cause = crash_cause_in(trajectory.meta)
        if len(self.first_crashes) < SHOWN_CRASHES:
            self.first_crashes.append(
                f"item {trajectory.item_id} rep {trajectory.repetition}: {trajectory.error}")
        if cause == HARNESS_CRASH:
            self.harness += 1
            self.first_harness = self.first_harness or trajectory.error
        if trajectory.meta.get(UNREACHABLE):
            self.unreachable += 1
            self.first_unreachable = self.first_unreachable or trajectory.error
        numbered = {} if attempt is None else {"attempt": attempt.number}
        store.append_event(run_id, "item_crashed", {"item_id": trajectory.item_id,
                                                    "repetition": trajectory.repetition,
                                                    "error": trajectory.error,
                                                    "cause": cause, **numbered})


def _why_stopped(run: Run, written: int, exc: BaseException) -> BaseException:
    """What a run that stopped early raises: Ctrl-C and an executor that went away (a worker
    process that died, a lost scheduler) become one line saying how to resume; anything
    else (a bug) goes on as it is."""
    if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, RunStopped):
        word = "terminated" if isinstance(exc, Terminated) else "interrupted"
        return RunInterrupted(
            run.run_id, f"{word}: run {run.run_id} stopped after {written} new "
            "trajectories", terminated=word == "terminated",
        )
    if isinstance(exc, ExecutorLost):
        return RunStopped(
            run.run_id, f"{exc} after {written} new trajectories of run {run.run_id}"
        )
    return exc


def certifiable_run(
    store: Store, adapter: str, config_hash: str, item_ids: Sequence[str], repeats: int,
    seed: int,
) -> Run | None:
    """The newest run of this config over exactly these items, with these repetitions and
    this seed, whose every slot is stored: asked to certify k = 5, a k = 1 run made earlier
    is not what was asked for.

    Runs made by a control (their environment names a `control`) never count.
    """
    for run in reversed(store.list_runs()):
        if (
            run.adapter == adapter
            and run.config_hash == config_hash
            and list(run.item_ids) == list(item_ids)
            and run.repeats == repeats
            and run.seed == seed
            and "control" not in run.env
            and len(store.stored_slots(run.run_id)) == len(run.item_ids) * run.repeats
        ):
            return run
    return None
