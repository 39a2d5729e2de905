"""What a script calls, and what the command line is a thin layer over.

    import agent_assay as aa
    done = aa.evaluate(MySystem(), "my-config", store="run/assay.db", repeats=3)
    verdict = aa.certify(MySystem(), store="run/assay.db", run=done.run.run_id)
    print(aa.report(done.run.run_id, store="run/assay.db").text)

A system is a registered adapter name or any object implementing the plugin surface
(`agent_assay.System`); a store is a path, an SQLAlchemy URL or an open `Store`. Every
function returns a typed result and prints nothing; a user-caused failure is an
`AssayError` whose message is one line, and one whose exit code is not ERROR has a type
that carries it (`TamperedEvidence`, `RunStopped`, `RunInterrupted`; `agent_assay.errors`).

The options a caller passes are values, re-exported here: where agents run is one
`ExecutorSpec` (`executor=`, default `LOCAL`: one agent process on this host), and which
items a run covers is one `Selection` (`selection=`, default `EVERY`). A run is set up one
way (`start`: build the suite, choose the items, create the run), which `evaluate` and
`certify` use before they execute it.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_assay.aggregates import run_clusters
from agent_assay.controls.registry import control_kinds as control_kinds
from agent_assay.errors import AssayError as AssayError
from agent_assay.errors import RunInterrupted as RunInterrupted
from agent_assay.errors import RunStopped as RunStopped
from agent_assay.errors import TamperedEvidence as TamperedEvidence
from agent_assay.executors.spec import LOCAL as LOCAL
from agent_assay.executors.spec import ExecutorSpec as ExecutorSpec
from agent_assay.exitcodes import ExitCode
from agent_assay.findings import Finding
from agent_assay.integrity.admissibility import (
    Admissibility,
    Integrity,
    SinglePass,
    assess,
    integrity,
)
from agent_assay.integrity.comparability import Comparison, compare_runs
from agent_assay.model import Config, Item, Run
from agent_assay.model import Suite as Suite
from agent_assay.selection import EVERY as EVERY
from agent_assay.selection import Selection as Selection
from agent_assay.stats.paired import ALPHA
from agent_assay.store import Store, open_existing_store, open_store
from agent_assay.store.database import shown
from agent_assay.store.evidence import append_head, check_witness
from agent_assay.store.evidence import writable_witness as writable_witness
from agent_assay.views.breakdown import ItemTable, TagBreakdown, items_of, tags_of
from agent_assay.views.breakdown_render import (
    by_tag_csv,
    by_tag_json,
    by_tag_text,
    items_csv,
    items_json,
    items_text,
    metrics_csv,
)
from agent_assay.views.gates import comparison_text, report_json_of, report_text_of
from agent_assay.views.load import (
    load_run_data,
    make_plan,
    metric_meta,
    page_data,
    show_run_view,
    trajectory_view,
)
from agent_assay.views.run_data import RunData
from agent_assay.views.summary import summary_of

if TYPE_CHECKING:  # the types results are given in, for callers' annotations too
    from agent_assay.adapters.loaded import LoadedSystem as LoadedSystem
    from agent_assay.adapters.registry import AdapterInfo
    from agent_assay.controls.execute import ControlStep as ControlStep
    from agent_assay.controls.execute import ControlWatch as ControlWatch
    from agent_assay.controls.next_steps import next_step as next_step
    from agent_assay.importers import Importer
    from agent_assay.importers import ImportReport as ImportReport
    from agent_assay.integrity.adapter_check import AdapterCheck as AdapterCheck
    from agent_assay.integrity.regression import RegressionGate
    from agent_assay.integrity.verify import Verification
    from agent_assay.mutation.config import MutantSet
    from agent_assay.rescoring import RescoreResult as RescoreResult
    from agent_assay.runner import RunResult
    from agent_assay.store.database import Provisioned
    from agent_assay.views.planning import Plan
    from agent_assay.views.run_view import ListedRun, RunView
    from agent_assay.views.trajectory_view import TrajectoryView

else:

    def __getattr__(name: str) -> Any:
        """`next_step`, re-exported, is imported when first asked for: its module imports
        the adapters', which no report needs."""
        if name == "next_step":
            from agent_assay.controls.next_steps import next_step

            return next_step
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Running, certifying and re-scoring import the adapters, the executors, the runner and the
# controls (SciPy's statistics among them) where they are called: reading a stored run
# (`report`, `compare`, `runs`) never needs them (about a tenth of `import api`'s CPU).
# Likewise evidence bundles and the regression gate, which a report of a stored run
# never reads (a few milliseconds of its start).

StoreLike = str | Path | Store
FileLike = str | os.PathLike[str]
"""A file the API reads or writes: a path as text or as a Path, as the caller has it."""


def as_path(value: FileLike | None) -> Path | None:
    """The Path every layer below the API expects, from whatever the caller gave."""
    return None if value is None else Path(value)


def _source_of(system: LoadedSystem, source: FileLike | None) -> Path | None:
    """`source` as a Path; one that names no file is refused before any store is opened,
    unless the system resolves it as a name (`NamesSources`: a registry task)."""
    from agent_assay.adapters.system import NamesSources

    path = as_path(source)
    if path is None or path.exists():
        return path
    if isinstance(system.raw, NamesSources) and system.raw.names_source(str(source)):
        return path
    raise AssayError(f"--source {path}: no such file or directory")
SystemLike = str | object
Notice = Callable[[str], None]
"""Where a function says what it is doing on the way (the CLI passes stderr)."""


def _quiet(message: str) -> None:
    """The default notice: scripts get results, not chatter."""


def open_db(store: StoreLike, *, must_exist: bool = False, read_only: bool = False,
            checked: bool = True) -> Store:
    """The store. `must_exist` for commands that build on stored runs: they never create or
    migrate a database, and refuse a file that is not an agent-assay store, untouched.
    `read_only` (which implies it) for commands that only read: SQLite opens the file
    read-only, so no write can happen and none waits for the write lock, and refuses a file
    SQLite's quick_check finds damaged unless `checked` is off (`verify` lists the damage)."""
    if isinstance(store, Store):
        return store
    if must_exist or read_only:
        return open_existing_store(str(store), read_only=read_only, checked=checked)
    return open_store(str(store))


@contextmanager
def _held(store: StoreLike, *, must_exist: bool = False) -> Iterator[Store]:
    """`open_db(store)` for the block, closed after it when it was opened here (a Store
    handed in is its owner's to close): a script calling the API in a loop on a path or a
    server URL keeps no pool of connections per call until the collector finds it."""
    db = open_db(store, must_exist=must_exist)
    try:
        yield db
    finally:
        if db is not store:
            db.close()


def shown_db(db: str) -> str:
    """A store's path or URL as a message may print it (a server URL's password masked)."""
    return shown(db)


def system_of(system: SystemLike) -> LoadedSystem:
    from agent_assay.adapters.loaded import load_system
    from agent_assay.adapters.registry import load_adapter

    return load_adapter(system) if isinstance(system, str) else load_system(system)


# ---- running -----------------------------------------------------------------------------
def build_suite(system: SystemLike, *, store: StoreLike, source: FileLike | None = None) -> Suite:
    """Build the system's golden set into content-hashed items and store it."""
    from agent_assay.runner import build_and_store_suite

    loaded = system_of(system)
    path = _source_of(loaded, source)
    with _held(store) as db:
        return build_and_store_suite(db, loaded, path)


@dataclass(frozen=True)
class Evaluation:
    run: Run
    result: RunResult

    @property
    def run_id(self) -> str:
        return self.run.run_id

    @property
    def unmeasured(self) -> AssayError | None:
        """The error a run whose slots were crashed by the harness (the agent could not be
        reached, the environment failed) ends with once everything is stored: those slots
        were not measured (exit ERROR). None when every slot was measured."""
        if not self.result.harness:
            return None
        return AssayError(f"{self.result.crashed} items crashed: {self.result.first_harness}")

    def notices(self, where: str = "") -> list[str]:
        """What this session stored, the crashes it saw and the next steps, a line each (the
        CLI prints them on stderr); `where` is the ` --db DB` commands they name need."""
        from agent_assay.resuming import next_steps
        from agent_assay.stats.crashes import crash_counts

        result, run_id = self.result, self.run_id
        lines = [f"wrote {result.written} trajectories ({result.crashed} crashed), "
                 f"skipped {result.skipped} already stored"]
        if result.retried:
            lines.append(
                f"  ran {result.retried} crashed slot(s) again as new attempts; the crashed "
                f"attempts stay stored (`agent-assay runs show {run_id}{where}` lists them)")
        if result.crashed:
            lines.append("  by cause: "
                         f"{crash_counts(result.crashed - result.harness, result.harness)}")
        lines += [f"  crashed: {crash}" for crash in result.first_crashes]
        if result.crashed > len(result.first_crashes):
            lines.append(f"  ... and {result.crashed - len(result.first_crashes)} more")
        if result.first_crashes:
            lines.append(f"  -> all of them: agent-assay runs show {run_id}{where}")
        lines += [f"  -> {step}" for step in next_steps(run_id, result.crashes_left, where)]
        return lines


@dataclass(frozen=True)
class _Defined:
    """A run as asked for, checked before anything is stored: the system loaded, the config
    with its settings applied, the repetitions and seed in range."""

    system: LoadedSystem
    config: Config
    settings: Mapping[str, object] | None
    repeats: int
    seed: int


def _define(system: SystemLike, config: str, settings: Mapping[str, object] | None,
            repeats: int, seed: int) -> _Defined:
    from agent_assay.runner import check_run_numbers, resolve_config

    check_run_numbers(repeats, seed)
    loaded = system_of(system)
    return _Defined(loaded, resolve_config(loaded, config, settings), settings, repeats, seed)


def _chosen(db: Store, defined: _Defined, source: FileLike | None,
            selection: Selection) -> tuple[Suite, list[Item]]:
    """Build (and store) the suite, then choose the items: the first half of a run's set-up."""
    from agent_assay.runner import build_and_store_suite

    suite = build_and_store_suite(db, defined.system, as_path(source))
    return suite, selection.choose(suite.items)


def _started(db: Store, defined: _Defined, suite: Suite, items: Sequence[Item]) -> Run:
    """The run created over `items` (nothing executed): the second half of the set-up."""
    from agent_assay.runner import settings_env, start_run

    return start_run(db, defined.system, suite, defined.config, repeats=defined.repeats,
                     seed=defined.seed, items=items,
                     extra_env=settings_env(defined.config, defined.settings))


def start(
    system: SystemLike,
    config: str,
    *,
    store: StoreLike,
    source: FileLike | None = None,
    selection: Selection = EVERY,
    repeats: int = 1,
    seed: int = 0,
    settings: Mapping[str, object] | None = None,
) -> Run:
    """Build the system's suite into the store, choose the items `selection` names, and
    create the run of `config` over them: what `evaluate` does before any agent runs, for a
    caller that executes the run itself (`runner.execute_run`, a benchmark timing it)."""
    defined = _define(system, config, settings, repeats, seed)
    path = _source_of(defined.system, source)
    with _held(store) as db:
        return _started(db, defined, *_chosen(db, defined, path, selection))


def evaluate(
    system: SystemLike,
    config: str,
    *,
    store: StoreLike,
    source: FileLike | None = None,
    selection: Selection = EVERY,
    repeats: int = 1,
    seed: int = 0,
    settings: Mapping[str, object] | None = None,
    executor: ExecutorSpec = LOCAL,
    progress: bool | None = False,
    notice: Notice = _quiet,
) -> Evaluation:
    """Run `config` over the items `selection` chooses (`agent_assay.selection`) x `repeats`
    into the store; `settings` sets the config's declared settable parameters
    (`adapters.settings`). The agents run where `executor` says: in `workers` agent processes
    (never in this one; see `hosting`), or on a Dask cluster, which is reached before the
    store is touched."""
    from agent_assay.executors.processes import open_backend
    from agent_assay.runner import execute_run

    defined = _define(system, config, settings, repeats, seed)
    path = _source_of(defined.system, source)
    with open_backend(executor) as backend, _held(store) as db:
        run = _started(db, defined, *_chosen(db, defined, path, selection))
        notice(f"run {run.run_id}")
        return Evaluation(run, execute_run(db, defined.system, run, backend=backend,
                                           progress=progress))


def resume(
    run_id: str,
    *,
    store: StoreLike,
    executor: ExecutorSpec = LOCAL,
    progress: bool | None = False,
    notice: Notice = _quiet,
    retry: str | None = None,
    adapter: str | None = None,
    config: str | None = None,
    source: Path | None = None,
    repeats: int | None = None,
    limit: int | None = None,
    seed: int | None = None,
    tags: Sequence[str] | None = None,
) -> Evaluation:
    """Run what `run_id` has not stored yet, with the adapter that made it, on any executor
    (`evaluate` says which); the slots already stored are skipped whichever one stored
    them. With `retry` ('harness' or 'crashed'), the crashed slots it names run again, each
    as a new attempt beside the crashed one (`runner.RETRY_MODES`). `adapter` to `tags`
    are what the caller believes the run is: any that differs from the run's own is
    refused before anything is written (None: not said)."""
    from agent_assay.adapters.registry import load_adapter
    from agent_assay.executors.processes import open_backend
    from agent_assay.resuming import differences, refuse_control_made, refuse_differences
    from agent_assay.runner import execute_run, retry_causes
    from agent_assay.writers import still_writing, this_process

    if retry is not None:
        retry_causes(retry)  # a mode that is not one is refused before anything is written
    with _held(store, must_exist=True) as db:
        run = db.get_run(run_id)
        refuse_control_made(run)
        loaded = load_adapter(run.adapter)
        refuse_differences(run, differences(
            db, run, loaded, adapter=adapter, config=config, source=source, repeats=repeats,
            limit=limit, seed=seed, tags=tags))
        with open_backend(executor) as backend:
            db.claim_run(run.run_id, this_process().to_json(), busy=still_writing)
            notice(f"run {run.run_id}")
            return Evaluation(run, execute_run(db, loaded, run, backend=backend,
                                               progress=progress, retry=retry))


def run_to_certify(
    db: Store,
    loaded: LoadedSystem,
    *,
    run: str | None,
    config: str | None,
    source: FileLike | None = None,
    selection: Selection = EVERY,
    settings: Mapping[str, object] | None = None,
    repeats: int = 1,
    seed: int = 0,
    executor: ExecutorSpec = LOCAL,
    notice: Notice = _quiet,
) -> Run:
    """The run named, else the newest complete run of `config` (with `settings`) over the
    items selected (see `evaluate`) with `repeats` and `seed`, else a new run made now (and
    said so), on the executor asked for (see `evaluate`), which is reached only then. A
    config or settings given with a run must be the run's: silently certifying another
    config's run would report the wrong system."""
    from agent_assay.executors.processes import open_backend
    from agent_assay.runner import certifiable_run, execute_run, resolve_config

    if run:
        named = db.get_run(run)
        if config and config != named.config_name:
            raise AssayError(
                f"--config {config} does not match run {named.run_id}'s config "
                f"{named.config_name}; drop --config or pass the matching one"
            )
        if settings and resolve_config(loaded, named.config_name, settings).config_hash \
                != named.config_hash:
            raise AssayError(
                f"{_pairs(settings)} does not match run {named.run_id}'s config (made with "
                f"{_pairs(named.env.get('settings') or {}) or 'no -M'}); drop -M or pass "
                "the run's"
            )
        return named
    if not config:
        raise AssayError("name a run (--run RUN_ID) or a config (--config NAME)")
    defined = _define(loaded, config, settings, repeats, seed)
    suite, chosen = _chosen(db, defined, source, selection)
    found = certifiable_run(db, loaded.name, defined.config.config_hash,
                            [i.item_id for i in chosen], repeats, seed)
    if found is not None:
        return found
    with open_backend(executor) as backend:
        notice(
            f"no complete run of {config} over these {len(chosen)} items at k={repeats}, "
            f"seed {seed}; running one"
        )
        made = _started(db, defined, suite, chosen)
        execute_run(db, defined.system, made, backend=backend)
    return made


def _pairs(settings: Mapping[str, object]) -> str:
    return " ".join(f"-M {key}={value}" for key, value in sorted(settings.items()))


def rescore(run_id: str, *, store: StoreLike) -> RescoreResult:
    """Score a stored run again with the adapter that made it (a new generation if anything
    differs)."""
    from agent_assay.adapters.registry import load_adapter
    from agent_assay.rescoring import rescore as rescore_run

    with _held(store, must_exist=True) as db:
        run = db.get_run(run_id)
        return rescore_run(db, load_adapter(run.adapter), run.run_id)


# ---- certifying --------------------------------------------------------------------------
@dataclass(frozen=True)
class Certification:
    run: Run
    outcomes: tuple[Mapping[str, Any], ...]
    """Each control's stored outcome (its payload, certificate included), in run order."""
    verdict: Admissibility
    exit_code: int
    """The verdict's (`Admissibility.exit_code`): OK admissible, INADMISSIBLE when a control
    FAILED, ended in ERROR or is NOT_RUN without allowance, TAMPERED (see `exitcodes`)."""

    @property
    def admissible(self) -> bool:
        return self.verdict.admissible

    def counts(self) -> Counter[str]:
        return Counter(str(o["status"]) for o in self.outcomes)


def certify(
    system: SystemLike,
    *,
    store: StoreLike,
    run: str | None = None,
    config: str | None = None,
    source: FileLike | None = None,
    selection: Selection = EVERY,
    settings: Mapping[str, object] | None = None,
    repeats: int = 1,
    seed: int = 0,
    allow_not_run: Sequence[str] = (),
    random_seeds: int | None = None,
    bands: FileLike | None = None,
    executor: ExecutorSpec = LOCAL,
    notice: Notice = _quiet,
    witness: FileLike | None = None,
    watch: ControlWatch | None = None,
) -> Certification:
    """Run every control on a run and say whether it is admissible. A run made for it runs
    on the executor asked for (see `evaluate`); identical_config's twins run in its
    `workers` agent processes of this host whatever the executor, started as a run's are. With
    `witness`, the new head and the verdict are appended to that file (see
    `store.evidence.witness`), which is refused first when it exists and is not an intact witness.
    `watch` is told when each control starts and finishes (the CLI draws progress)."""
    from agent_assay.controls.execute import check_allowed, effective_bands, run_controls

    allowed = check_allowed(allow_not_run)
    bands, witness = as_path(bands), as_path(witness)
    if witness is not None:
        writable_witness(witness)
    loaded = system_of(system)
    path = _source_of(loaded, source)
    with _held(store) as db:
        effective_bands(loaded, bands, random_seeds)  # refused before a run is made for it
        target = run_to_certify(
            db, loaded, run=run, config=config, source=path, selection=selection,
            settings=settings, repeats=repeats, seed=seed, executor=executor, notice=notice,
        )
        notice(
            f"certifying run {target.run_id} ({target.adapter}/{target.config_name}, "
            f"{len(target.item_ids)} items, k={target.repeats})"
        )
        result = run_controls(
            db, loaded, target, allowed=allowed, random_seeds=random_seeds, bands_file=bands,
            workers=executor.workers, watch=watch,
        )
        stored = db.control_outcomes(target.run_id)
        payloads = tuple(stored[o.kind].payload for o in result.outcomes)
        verdict = assess(db, target)
        if witness is not None:
            _witness(witness, db, target.run_id, verdict.word, "certification", notice)
        return Certification(target, payloads, verdict, verdict.exit_code)


def _witness(path: Path, db: Store, run_id: str, verdict: str, event: str, notice: Notice) -> None:
    head = db.head(run_id)
    if head is None:
        raise AssayError(f"run {run_id} has no chain head to witness")
    line = append_head(path, run_id, head, verdict, event)
    notice(f"witness {path}: line {line} holds run {run_id} at {head.seq} {head.digest} "
           f"({verdict}); publish the file (commit it) so the store's writer cannot rewrite it")


# ---- reading ------------------------------------------------------------------------------
def is_bundle(run: str) -> bool:
    """Whether a RUN argument names a file (read as an evidence bundle) rather than a run
    id: an argument no file can have (too long a name, say) is a run id, refused or
    resolved by the store."""
    try:
        return Path(run).is_file()
    except OSError:
        return False


def open_run(run: str, *, store: StoreLike, notice: Notice = _quiet) -> tuple[Store, Run]:
    """A run id in the store, or the path of an evidence bundle (loaded into memory): an
    existing file is read as a bundle, and refused when it is not one."""
    db, target, _ = _opened(run, store=store, notice=notice)
    return db, target


def _opened(
    run: str, *, store: StoreLike, notice: Notice, twins: bool = False
) -> tuple[Store, Run, list[Finding]]:
    """`open_run`, and for a bundle every way the file disagrees with its own rows (its
    header's head among them: the head said is the one its rows derive), with `twins` what
    the walk of each other bundled run found."""
    if is_bundle(run):
        from agent_assay.store.bundle import open_bundle

        bundle = open_bundle(Path(run))
        notice(bundle.summary())
        return bundle.store, bundle.run, [*bundle.findings,
                                          *(bundle.twin_findings() if twins else ())]
    db = open_db(store, read_only=True)
    return db, db.get_run(run), []


@dataclass(frozen=True)
class Report:
    """A run's report: `text` as the CLI prints it, `data` as JSON, `csv` as one table;
    each is rendered when first asked for."""

    store: Store
    run: Run
    verdict: Admissibility
    headline_only: bool = False
    passk_curve: bool = False
    cluster: str | None = None
    by_tag: bool = False
    items: str | None = None
    """A metric whose per-item values are listed (only the failed items with `failed`)."""
    failed: bool = False

    @property
    def exit_code(self) -> ExitCode:
        """The verdict's (TAMPERED, INADMISSIBLE); for an admissible run, REFUSED when its
        headline is (a single pass of a config not shown to be deterministic), else OK."""
        if self.verdict.exit_code != ExitCode.OK:
            return self.verdict.exit_code
        return ExitCode.REFUSED if self.single_pass.reasons else ExitCode.OK

    @cached_property
    def snapshot(self) -> RunData:
        """The run as the text, JSON and CSV render it, read once after the verdict (nothing
        more from a tampered store); the page reads its own, fuller one."""
        return load_run_data(self.store, self.run, self.verdict, cluster=self.cluster,
                             suite=self.by_tag or self.items is not None,
                             trajectories=self.passk_curve, outcomes=self.passk_curve)

    @property
    def single_pass(self) -> SinglePass:
        """Whether a k=1 headline may stand (found once for the text, JSON and exit code);
        nothing is read from a tampered store to decide it."""
        return self.snapshot.single

    @property
    def verdict_word(self) -> str:
        return self.verdict.word

    @cached_property
    def tag_cut(self) -> TagBreakdown:
        return tags_of(self.snapshot)

    @cached_property
    def item_cut(self) -> ItemTable | None:
        if self.items is None:
            return None
        kind, definition = metric_meta(self.store, self.run, self.items)
        return items_of(self.snapshot, self.items, kind, definition, failed_only=self.failed)

    @cached_property
    def text(self) -> str:
        text = report_text_of(self.snapshot, headline_only=self.headline_only)
        if self.verdict.tampered:
            return text
        if self.passk_curve:
            from agent_assay.views.passk import passk_of, render_passk

            text += render_passk(passk_of(self.snapshot))
        if self.by_tag:
            text += by_tag_text(self.tag_cut)
        if self.item_cut is not None:
            text += items_text(self.item_cut, db_hint=self.db_hint)
        return text

    @property
    def db_hint(self) -> str:
        url = self.store.engine.url
        if url.get_backend_name() == "postgresql":
            return f" --db {url.render_as_string(hide_password=True)}"
        where = str(url.database or "")
        plain = not where or where == ":memory:" or where.endswith("run/assay.db")
        return "" if plain else f" --db {where}"

    @cached_property
    def data(self) -> dict[str, Any]:
        data = report_json_of(self.snapshot)
        if self.verdict.tampered:
            return data
        if self.passk_curve:
            from agent_assay.views.passk import passk_json, passk_of

            data["passk_curve"] = passk_json(passk_of(self.snapshot))
        if self.by_tag:
            data["by_tag"] = by_tag_json(self.tag_cut)
        if self.item_cut is not None:
            data["items"] = items_json(self.item_cut)
        return data

    @cached_property
    def html(self) -> str:
        """The self-contained page: verdict first, plots, tables, every trajectory."""
        from agent_assay.views.html import run_page_of

        return run_page_of(page_data(self.store, self.run, self.verdict))

    @cached_property
    def csv(self) -> str:
        """One table as CSV, the verdict (with every waiver and departure) on every row:
        the per-item table with `items`,
        else the per-tag one with `by_tag`, else the metric table. A tampered run has no
        number to export."""
        if self.verdict.tampered:
            raise TamperedEvidence(
                f"run {self.run.run_id} is TAMPERED (its stored evidence fails its own "
                "chain); no number is exported. `agent-assay verify` shows why")
        if self.item_cut is not None:
            return items_csv(self.item_cut, self.verdict.one_line)
        if self.by_tag:
            return by_tag_csv(self.tag_cut, self.verdict.one_line)
        metrics = summary_of(self.snapshot).metrics
        shown = [m for m in metrics if m.headline or not self.headline_only]
        return metrics_csv(shown, self.run.run_id, self.verdict.one_line)


def report(
    run: str,
    *,
    store: StoreLike,
    headline_only: bool = False,
    passk_curve: bool = False,
    cluster: str | None = None,
    by_tag: bool = False,
    items: str | None = None,
    failed: bool = False,
    notice: Notice = _quiet,
) -> Report:
    """The run's report, verdict first; a tampered run gets its findings and no number.
    `cluster` ('tag' or 'tag:PREFIX') adds a cluster-robust interval beside each mean
    (refused with fewer clusters than `stats.paired.CLUSTERS_FLOOR`);
    `by_tag` adds a row per tag; `items` lists one metric per item (`failed`: only the
    items that failed it at some repetition)."""
    if failed and items is None:
        raise AssayError("--failed needs --items METRIC (the metric the items failed)")
    db, target, unproven = _opened(run, store=store, notice=notice, twins=True)
    if cluster is not None:
        run_clusters(db, target, cluster)  # a bad spec, or too few clusters, is refused first
    state = integrity(db, target)
    if unproven:  # a bundle that disagrees with its own rows is TAMPERED
        state = Integrity((*unproven, *state.findings), state.check)
    shown = Report(db, target, assess(db, target, state), headline_only, passk_curve, cluster,
                   by_tag, items, failed)
    if not shown.verdict.tampered:
        _ = shown.item_cut  # an unknown metric is refused before anything renders
    return shown


@dataclass(frozen=True)
class ComparisonResult:
    comparison: Comparison
    text: str
    exit_code: int
    """OK, REFUSED when the runs are not comparable (unless forced), TAMPERED; with a
    `gate`, the gate's (`RegressionGate.exit_code`)."""
    forced: bool = False
    gate: RegressionGate | None = None
    """B against the baseline A, when asked for (`fail_on_regression`)."""

    @property
    def verdict_word(self) -> str:
        return self.comparison.verdict(forced=self.forced)

    @cached_property
    def html(self) -> str:
        from agent_assay.views.html import comparison_page

        return comparison_page(self.comparison, forced=self.forced)


def compare(
    run_a: str,
    run_b: str,
    *,
    store: StoreLike,
    force: bool = False,
    cluster: str | None = None,
    fail_on_regression: bool = False,
    metrics: Sequence[str] = (),
    alpha: float | None = None,
) -> ComparisonResult:
    """A paired comparison, refused (exit REFUSED, or TAMPERED) when the runs are not
    comparable. Each metric's p-value and interval come from one paired t on item means;
    `cluster` ('tag' or 'tag:PREFIX') makes both cluster-robust, and is refused
    (AssayError) with fewer clusters than `stats.paired.CLUSTERS_FLOOR`.
    `fail_on_regression` gates B against the baseline A on `metrics` (default: the
    headline) at `alpha` (default `stats.paired.ALPHA`, the level of every interval
    compare prints; see `integrity.regression`); a refused comparison fails the gate even
    when forced."""
    if not fail_on_regression and (metrics or alpha is not None):
        raise AssayError("--metric and --alpha choose how the regression gate judges: they "
                         "need --fail-on-regression")
    db = open_db(store, read_only=True)
    run_a, run_b = db.get_run(run_a).run_id, db.get_run(run_b).run_id
    comparison = compare_runs(db, run_a, run_b, cluster)
    text = comparison_text(comparison, forced=force)
    if fail_on_regression:
        from agent_assay.integrity.regression import regression_gate
        from agent_assay.views.regression_view import gate_lines

        gate = regression_gate(comparison, metrics, ALPHA if alpha is None else alpha)
        text += "\n".join(gate_lines(gate)) + "\n"
        return ComparisonResult(comparison, text, gate.exit_code, force, gate)
    if comparison.tampered:
        code = ExitCode.TAMPERED
    else:
        code = ExitCode.OK if comparison.sound or force else ExitCode.REFUSED
    return ComparisonResult(comparison, text, code, force)


def verify(
    run: str | None = None,
    *,
    store: StoreLike,
    rescore: bool = True,
    notice: Notice = _quiet,
    witness: FileLike | None = None,
) -> Verification:
    """Re-derive what a run (every run when None, or an evidence bundle) claims; with
    `witness`, also check every head that file holds for a run the store or bundle holds."""
    from agent_assay.adapters.registry import load_adapter
    from agent_assay.integrity.verify import verify_store

    loader = load_adapter if rescore else None
    if run is None or not is_bundle(run):
        db = open_db(store, read_only=True, checked=False)  # its integrity_check says more
        result = verify_store(db, None if run is None else [db.get_run(run).run_id], loader)
    else:
        db, target, unproven = _opened(run, store=store, notice=notice)
        result = verify_store(db, [target.run_id], loader)
        if result.runs:
            result.runs[0].findings[:0] = unproven
        else:
            result.database += unproven
    if witness is not None:
        result.witness = check_witness(db, Path(witness))
    return result


def show_run(run_id: str, *, store: StoreLike) -> RunView:
    """What a run is and how it went: config, suite, environment, events, crashes,
    controls and verdict (no numbers)."""
    return show_run_view(open_db(store, read_only=True), run_id)


def show_trajectory(
    run_id: str, item_id: str, *, repetition: int = 1, attempt: int | None = None,
    store: StoreLike,
) -> TrajectoryView:
    """One stored trajectory beside its item's gold, with its scores: the slot's newest
    attempt, or `attempt` (a crashed slot run again keeps its earlier attempts)."""
    return trajectory_view(open_db(store, read_only=True), run_id, item_id, repetition, attempt)


def export(
    run: str, path: FileLike, *, store: StoreLike, witness: FileLike | None = None,
    notice: Notice = _quiet, format: str = "bundle",
) -> int:
    """Write `run`'s evidence bundle to `path`; return the number of rows written. With
    `witness`, the head the bundle holds and the run's verdict are appended to that file
    (refused first when it exists and is not an intact witness). Another `format` is an
    exporter plugin's (`agent_assay.exporters`), handed the verdict decided here; it
    returns the number of samples written, and a TAMPERED run is refused
    (TamperedEvidence) before any plugin sees it."""
    if format != "bundle":
        if witness is not None:
            raise AssayError("--witness records an evidence bundle's head: it needs the "
                             "bundle format")
        return _export_plugin(format, run, path, store=store)
    path, witness = Path(path), as_path(witness)
    if witness is not None:
        writable_witness(witness)
    db = open_db(store, read_only=True)
    run = db.get_run(run).run_id
    from agent_assay.store.bundle import export_bundle, open_bundle

    count = export_bundle(db, run, path)
    if witness is not None:
        bundle = open_bundle(path)  # the head and the verdict the file itself holds
        verdict = assess(bundle.store, bundle.run).word
        _witness(witness, bundle.store, run, verdict, "export", notice)
    return count


def _export_plugin(format: str, run: str, path: FileLike, *, store: StoreLike) -> int:
    """`run` written by the exporter plugin `format`, with the verdict decided here; return
    how many samples it wrote. A TAMPERED run is refused (TamperedEvidence): no number is
    exported from evidence that fails its own chain, in any format."""
    from agent_assay.exporters import ExportRequest, load_exporter

    plugin = load_exporter(format)  # an unknown format is refused before the store opens
    db = open_db(store, read_only=True)
    target = db.get_run(run)
    verdict = assess(db, target)
    if verdict.tampered:
        raise TamperedEvidence(
            f"run {target.run_id} is TAMPERED (its stored evidence fails its own chain); "
            f"nothing is exported as {format}. `agent-assay verify` shows why")
    head = db.head(target.run_id)
    request = ExportRequest(
        db, target, verdict.word, verdict.reasons, verdict.waivers, verdict.disclosures,
        head.seq if head else 0, head.digest if head else "",
        {kind: o.status for kind, o in verdict.outcomes.items()})
    return plugin.write(request, Path(path))


@dataclass(frozen=True)
class PlanResult:
    plan: Plan

    @property
    def text(self) -> str:
        from agent_assay.views.planning import plan_text

        return plan_text(self.plan)

    @property
    def data(self) -> dict[str, Any]:
        from agent_assay.views.planning import plan_json

        return plan_json(self.plan)


def plan(
    run: str,
    *,
    store: StoreLike,
    effects: Sequence[float],
    metric: str | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    correlation: float = 0.5,
) -> PlanResult:
    """Items and repetitions a paired comparison needs to detect each effect, planned from
    RUN's spread on `metric` (default: its first headline metric)."""
    db, target = open_run(run, store=store)
    for name, value, low, high in (("--power", power, 0, 1), ("--alpha", alpha, 0, 1)):
        if not low < value < high:
            raise AssayError(f"{name} must be between 0 and 1, got {value}")
    if alpha < sys.float_info.min:  # the test's two tails take alpha / 2, which must not vanish
        raise AssayError(f"--alpha must be at least {sys.float_info.min:g}, got {alpha:g}")
    if not 0 <= correlation < 1:
        raise AssayError(f"--correlation must be in [0, 1), got {correlation}")
    if not effects or any(not 0 < e < float("inf") for e in effects):
        shown = ", ".join(map(str, effects)) or "none"
        raise AssayError(f"--effect must be above 0 and finite, got {shown}")
    chosen = metric or next(iter(db.manifest(target.run_id).get("headline", [])), None)
    if chosen is None:
        raise AssayError(f"run {target.run_id} names no headline metric: pass --metric")
    return PlanResult(make_plan(db, target, metric=chosen, effects=effects, power=power,
                               alpha=alpha, correlation=correlation))


# ---- the rest of what the command line does -------------------------------------------------
# Each is what one command asks of the layers below, so the command line imports the API,
# its options, the renderers and the errors only; the order of every check is the command's.
def adapters() -> list[AdapterInfo]:
    """Name, version and providing distribution of every registered adapter."""
    from agent_assay.adapters.registry import list_adapters

    return list_adapters()


def adapter_names() -> list[str]:
    """The registered adapters' names, sorted."""
    from agent_assay.adapters.registry import adapter_names as names

    return names()


def check_adapter(name: str, *, config: str | None = None,
                  source: Path | None = None) -> AdapterCheck:
    """The registered adapter `name` checked against the plugin surface before a first run
    (`integrity.adapter_check`)."""
    from agent_assay.adapters.registry import load_raw
    from agent_assay.integrity.adapter_check import check_adapter as checked

    return checked(load_raw(name), name, config=config, source=source)


def runs(*, store: StoreLike) -> Sequence[ListedRun]:
    """The stored runs, oldest first, each with its status and what its controls waived."""
    from agent_assay.views.load import list_runs

    return list_runs(open_db(store, read_only=True))


@dataclass(frozen=True)
class ImportFile:
    """A file of published results, read and checked by its importer; nothing is stored
    until `store` is called."""

    importer: Importer
    parsed: Any

    def store(self, store: StoreLike, *, name: str | None = None) -> ImportReport:
        return self.importer.store(open_db(store), self.parsed, name=name)


def read_import(importer: str, file: Path) -> ImportFile:
    """FILE read by the importer plugin `importer`: a bad file is refused before any store
    is opened."""
    from agent_assay.importers import load_importer

    plugin = load_importer(importer)
    return ImportFile(plugin, plugin.parse(file))


def check_bands(system: LoadedSystem, bands: FileLike | None, random_seeds: int | None) -> None:
    """Refuse, before a run is made for certification, a bands file or a seed count the
    controls would refuse (`controls.execute.effective_bands`)."""
    from agent_assay.controls.execute import effective_bands

    effective_bands(system, as_path(bands), random_seeds)


def check_witness_file(witness: FileLike) -> None:
    """Refuse a witness file that exists and is not an intact witness (`store.evidence.witness`)."""
    writable_witness(Path(witness))


@dataclass(frozen=True)
class StoredControls:
    """The newest stored outcome of every control of a run, and the verdict they give."""

    run: Run
    outcomes: Mapping[str, Any]
    """Each control kind's newest stored outcome (`.payload`), in the order they ran."""
    verdict: Admissibility

    def refusal(self, doing: str) -> AssayError:
        """The one-line refusal of a command that will not go on (`doing` it) with a run
        whose evidence fails its integrity check."""
        from agent_assay.store.evidence import refusal

        return refusal(self.run.run_id, self.verdict.integrity.findings, doing)


def stored_controls(run_id: str, *, store: StoreLike) -> StoredControls:
    """What the controls stored for `run_id` (refused when none did) and the verdict."""
    db = open_db(store, read_only=True)
    run = db.get_run(run_id)
    outcomes = db.control_outcomes(run.run_id)
    if not outcomes:
        raise AssayError(f"no control outcomes stored for run {run_id}")
    return StoredControls(run, outcomes, assess(db, run))


def mutants(operators: FileLike | None) -> MutantSet:
    """The mutant set in `operators` (default: the built-in one), every value checked."""
    from agent_assay.mutation.config import BUILTIN, load_mutants

    return load_mutants(as_path(operators) or BUILTIN)


@dataclass(frozen=True)
class Mutation:
    run: Run
    store: Store

    @cached_property
    def rows(self) -> Sequence[Mapping[str, Any]]:
        """The newest mutation pass stored for the run, as `views.mutation_render` reads it
        (read when first asked for)."""
        return self.store.latest_mutation_pass(self.run.run_id)


def mutate(
    system: SystemLike,
    mutant_set: MutantSet,
    *,
    store: StoreLike,
    run: str | None = None,
    config: str | None = None,
    source: FileLike | None = None,
    selection: Selection = EVERY,
    repeats: int = 1,
    seed: int = 0,
    notice: Notice = _quiet,
) -> Mutation:
    """Plant the defects of `mutant_set` in a run's trajectories (the run named, else one
    found or made as `certify` finds it, over every item), replay them and store which
    metrics noticed; `selection` chooses which of the run's items are mutated."""
    from agent_assay.mutation.engine import check_thresholds, pass_payloads, run_pass

    loaded = system_of(system)
    path = _source_of(loaded, source)
    db = open_db(store, must_exist=run is not None)
    check_thresholds(mutant_set, loaded)  # before a run can be made for the pass
    if run is None and selection != EVERY:  # refused before a run is made for it
        selection.choose(loaded.build_suite(path).items)
    target = run_to_certify(db, loaded, run=run, config=config, source=path,
                            repeats=repeats, seed=seed, notice=notice)
    result = run_pass(db, loaded, target, mutant_set, selection=selection)
    db.put_mutation_rows(target.run_id, pass_payloads(result))
    return Mutation(target, db)


def mutation_pass(run_id: str, *, store: StoreLike) -> Mutation:
    """The newest mutation pass stored for `run_id`."""
    db = open_db(store, read_only=True)
    return Mutation(db.get_run(run_id), db)


def migrate(store: str, *, repair: bool = False, notice: Notice = _quiet) -> list[Finding]:
    """Upgrade an older store in place (every row kept) and, with `repair`, restore its
    missing or altered triggers and indexes (recorded); say each step through `notice`, and
    return what its schema check still finds (TAMPERED when anything)."""
    from agent_assay.store.database import make_engine, schema_findings, stored_version
    from agent_assay.store.database import repair as repair_schema
    from agent_assay.store.database.migrations import LATEST, apply

    # a read-only look first: what is not a store is refused untouched, and so is no store
    # at all (a mistyped --db must not become a new, empty one)
    if stored_version(store) == 0:
        raise AssayError(f"no store at --db {shown(store)} to migrate: migrate upgrades an "
                         "existing store and never creates one")
    engine = make_engine(store)
    applied = apply(engine)
    if applied:
        notice(f"applied migration(s) {', '.join(map(str, applied))}; schema now {LATEST}")
    if repair:
        done = repair_schema(engine)
        for name in done.restored:
            notice(f"restored {name}")
        for name in done.refused:
            notice(f"could not restore {name}: the table holds rows it forbids "
                   "(`agent-assay verify` names them)")
        if done.restored or done.refused:
            notice("the repair is recorded in the store; `agent-assay verify` shows it")
    with engine.connect() as conn:
        problems = schema_findings(conn)
    for finding in problems:
        notice(f"schema: {finding.line()}")
    if not problems and not applied and not repair:
        notice(f"schema already at version {LATEST}, every trigger and index in place")
    return problems


def provision(store: str, role: str | None = None, password: str | None = None) -> Provisioned:
    """Create or upgrade the store's schema and its append-only guards; with `role`, make
    that PostgreSQL role the harness's (SELECT and INSERT only)."""
    from agent_assay.store.database import provision as provisioned

    return provisioned(store, role, password)


# ---- a command's store ---------------------------------------------------------------------
def absent_store(db: str) -> Path | None:
    """The SQLite file `db` names when there is none yet (a command that creates it takes
    it away again when it fails before storing a run: `discard_unused`); else None."""
    from agent_assay.store.database import absent_store_file

    return absent_store_file(db)


def discard_unused(created: Path) -> None:
    """Close every store still held, then remove `created` if no run was stored in it."""
    from agent_assay.store import close_pinned
    from agent_assay.store.database import discard_if_unused

    close_pinned()
    discard_if_unused(created)


def close_stores() -> None:
    """End every read transaction a store still holds (at the end of a command)."""
    from agent_assay.store import close_pinned

    close_pinned()


def database_failure(exc: BaseException, db: str | None = None) -> AssayError | None:
    """The one-line error a failure of the database engine becomes (None for any other
    exception): for the store `db`, what is damaged in it (TAMPERED) or why it could not be
    reached; with no store named, a full disk or an unreadable store (ERROR)."""
    from sqlalchemy.exc import DatabaseError

    from agent_assay.store.database import damage_error, disk_full, short

    if not isinstance(exc, DatabaseError):
        return None
    reason = str(exc.orig) if exc.orig is not None else str(exc)
    if db is not None:
        return damage_error(db, reason)
    if disk_full(reason):
        return AssayError(f"the store cannot be written: the disk is full ({short(reason)})")
    return AssayError(f"the store cannot be read: {short(reason)}")
