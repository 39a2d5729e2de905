"""What a script calls, and what the command line is a thin layer over.

    import agent_assay as aa
    done = aa.evaluate(MySystem(), "my-config", store="run/assay.db", repeats=3)
    verdict = aa.certify(MySystem(), store="run/assay.db", run=done.run.run_id)
    print(aa.report(done.run.run_id, store="run/assay.db").text)

A system is a registered adapter name or any object implementing the plugin surface
(`agent_assay.System`); a store is a path, an SQLAlchemy URL or an open `Store`. Every
function returns a typed result and prints nothing; a user-caused failure is an
`AssayError` whose message is one line.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_assay.aggregates import run_clusters
from agent_assay.errors import AssayError
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
from agent_assay.integrity.regression import RegressionGate, regression_gate
from agent_assay.model import Run, Suite
from agent_assay.selection import Selection
from agent_assay.stats.paired import ALPHA
from agent_assay.store import open_store
from agent_assay.store.bundle import export_bundle
from agent_assay.store.bundle_proof import open_bundle
from agent_assay.store.store import Store, open_existing_store
from agent_assay.store.witness import append_head, check_witness, writable_witness
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
from agent_assay.views.passk import passk_json, passk_of, render_passk
from agent_assay.views.planning import Plan, plan_json, plan_text
from agent_assay.views.regression_view import gate_lines
from agent_assay.views.run_data import RunData
from agent_assay.views.run_view import RunView
from agent_assay.views.summary import summary_of
from agent_assay.views.trajectory_view import TrajectoryView

if TYPE_CHECKING:
    from agent_assay.adapters.loaded import LoadedSystem
    from agent_assay.controls.execute import ControlWatch
    from agent_assay.integrity.verify import Verification
    from agent_assay.rescoring import RescoreResult
    from agent_assay.runner import RunResult

# Running, certifying and re-scoring import the adapters, the executors, the runner and the
# controls (SciPy's statistics among them) where they are called: reading a stored run
# (`report`, `compare`, `runs`) never needs them (about a tenth of `import api`'s CPU).

StoreLike = str | Path | Store
FileLike = str | os.PathLike[str]
"""A file the API reads or writes: a path as text or as a Path, as the caller has it."""


def as_path(value: FileLike | None) -> Path | None:
    """The Path every layer below the API expects, from whatever the caller gave."""
    return None if value is None else Path(value)
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


def system_of(system: SystemLike) -> LoadedSystem:
    from agent_assay.adapters.loaded import load_system
    from agent_assay.adapters.registry import load_adapter

    return load_adapter(system) if isinstance(system, str) else load_system(system)


# ---- running -----------------------------------------------------------------------------
def build_suite(system: SystemLike, *, store: StoreLike, source: FileLike | None = None) -> Suite:
    """Build the system's golden set into content-hashed items and store it."""
    from agent_assay.runner import build_and_store_suite

    return build_and_store_suite(open_db(store), system_of(system), as_path(source))


@dataclass(frozen=True)
class Evaluation:
    run: Run
    result: RunResult

    @property
    def run_id(self) -> str:
        return self.run.run_id


def evaluate(
    system: SystemLike,
    config: str,
    *,
    store: StoreLike,
    source: FileLike | None = None,
    repeats: int = 1,
    seed: int = 0,
    tags: Sequence[str] = (),
    limit: int | None = None,
    items: Sequence[str] = (),
    match: Sequence[str] = (),
    settings: Mapping[str, object] | None = None,
    workers: int = 1,
    executor: str = "process",
    scheduler: str | None = None,
    progress: bool | None = False,
    notice: Notice = _quiet,
) -> Evaluation:
    """Run `config` over the system's items x `repeats` into the store. The items are those
    `items` (ids), `match` (globs), `tags` and `limit` select, composed as
    `agent_assay.selection` says; `settings` sets the config's declared settable parameters
    (`adapters.settings`). The agents run in `workers` agent processes (never in this one;
    see `hosting`), or with `executor` "dask" on the scheduler at `scheduler` (else a local
    cluster of `workers` processes), which is reached before the store is touched."""
    from agent_assay.executors import ExecutorSpec, open_backend
    from agent_assay.runner import (
        build_and_store_suite,
        check_run_numbers,
        execute_run,
        resolve_config,
        settings_env,
        start_run,
    )

    spec = ExecutorSpec(executor, workers, scheduler)
    check_run_numbers(repeats, seed)
    loaded = system_of(system)
    chosen_config = resolve_config(loaded, config, settings)
    selection = Selection.of(ids=items, patterns=match, tags=tags, limit=limit)
    with open_backend(spec) as backend:
        db = open_db(store)
        suite = build_and_store_suite(db, loaded, as_path(source))
        chosen = selection.choose(suite.items)
        run = start_run(db, loaded, suite, chosen_config, repeats=repeats, seed=seed,
                        items=chosen, extra_env=settings_env(chosen_config, settings))
        notice(f"run {run.run_id}")
        return Evaluation(run, execute_run(db, loaded, run, backend=backend, progress=progress))


def resume(
    run_id: str,
    *,
    store: StoreLike,
    workers: int = 1,
    executor: str = "process",
    scheduler: str | None = None,
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
    from agent_assay.executors import ExecutorSpec, open_backend
    from agent_assay.resuming import differences, refuse_control_made, refuse_differences
    from agent_assay.runner import execute_run, retry_causes
    from agent_assay.writers import still_writing, this_process

    spec = ExecutorSpec(executor, workers, scheduler)
    if retry is not None:
        retry_causes(retry)  # a mode that is not one is refused before anything is written
    db = open_db(store, must_exist=True)
    run = db.get_run(run_id)
    refuse_control_made(run)
    loaded = load_adapter(run.adapter)
    refuse_differences(run, differences(
        db, run, loaded, adapter=adapter, config=config, source=source, repeats=repeats,
        limit=limit, seed=seed, tags=tags))
    with open_backend(spec) as backend:
        db.claim_run(run.run_id, this_process().to_json(), busy=still_writing)
        notice(f"run {run.run_id}")
        return Evaluation(run, execute_run(db, loaded, run, backend=backend, progress=progress,
                                           retry=retry))


def run_to_certify(
    db: Store,
    loaded: LoadedSystem,
    *,
    run: str | None,
    config: str | None,
    source: FileLike | None = None,
    tags: Sequence[str] = (),
    limit: int | None = None,
    items: Sequence[str] = (),
    match: Sequence[str] = (),
    settings: Mapping[str, object] | None = None,
    repeats: int = 1,
    seed: int = 0,
    workers: int = 1,
    executor: str = "process",
    scheduler: str | None = None,
    notice: Notice = _quiet,
) -> Run:
    """The run named, else the newest complete run of `config` (with `settings`) over the
    items selected (see `evaluate`), else a new run made now (and said so), on the executor
    asked for (see `evaluate`), which is reached only then. A config or settings given with
    a run must be the run's: silently certifying another config's run would report the
    wrong system."""
    from agent_assay.executors import ExecutorSpec, open_backend
    from agent_assay.runner import (
        build_and_store_suite,
        certifiable_run,
        check_run_numbers,
        execute_run,
        resolve_config,
        settings_env,
        start_run,
    )

    spec = ExecutorSpec(executor, workers, scheduler)
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
    check_run_numbers(repeats, seed)
    chosen_config = resolve_config(loaded, config, settings)
    selection = Selection.of(ids=items, patterns=match, tags=tags, limit=limit)
    suite = build_and_store_suite(db, loaded, as_path(source))
    chosen = [i.item_id for i in selection.choose(suite.items)]
    found = certifiable_run(db, loaded.name, chosen_config.config_hash, chosen)
    if found is not None:
        return found
    with open_backend(spec) as backend:
        notice(
            f"no complete run of {config} over these {len(chosen)} items; running one "
            f"(k={repeats})"
        )
        made = start_run(
            db, loaded, suite, chosen_config, repeats=repeats, seed=seed,
            items=[suite.by_id()[i] for i in chosen],
            extra_env=settings_env(chosen_config, settings),
        )
        execute_run(db, loaded, made, backend=backend)
    return made


def _pairs(settings: Mapping[str, object]) -> str:
    return " ".join(f"-M {key}={value}" for key, value in sorted(settings.items()))


def rescore(run_id: str, *, store: StoreLike) -> RescoreResult:
    """Score a stored run again with the adapter that made it (a new generation if anything
    differs)."""
    from agent_assay.adapters.registry import load_adapter
    from agent_assay.rescoring import rescore as rescore_run

    db = open_db(store, must_exist=True)
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
    tags: Sequence[str] = (),
    limit: int | None = None,
    items: Sequence[str] = (),
    match: Sequence[str] = (),
    settings: Mapping[str, object] | None = None,
    repeats: int = 1,
    seed: int = 0,
    allow_not_run: Sequence[str] = (),
    random_seeds: int | None = None,
    bands: FileLike | None = None,
    workers: int = 1,
    executor: str = "process",
    scheduler: str | None = None,
    notice: Notice = _quiet,
    witness: FileLike | None = None,
    watch: ControlWatch | None = None,
) -> Certification:
    """Run every control on a run and say whether it is admissible. A run made for it runs
    on the executor asked for (see `evaluate`); identical_config's twins run in `workers`
    agent processes of this host whatever the executor, started as a run's are. With
    `witness`, the new head and the verdict are appended to that file (see
    `store.witness`), which is refused first when it exists and is not an intact witness.
    `watch` is told when each control starts and finishes (the CLI draws progress)."""
    from agent_assay.controls.execute import check_allowed, effective_bands, run_controls

    allowed = check_allowed(allow_not_run)
    bands, witness = as_path(bands), as_path(witness)
    if witness is not None:
        writable_witness(witness)
    db, loaded = open_db(store), system_of(system)
    effective_bands(loaded, bands, random_seeds)  # refused before a run is made for it
    target = run_to_certify(
        db, loaded, run=run, config=config, source=source, tags=tags, limit=limit,
        items=items, match=match, settings=settings, repeats=repeats, seed=seed,
        workers=workers, executor=executor, scheduler=scheduler, notice=notice,
    )
    notice(
        f"certifying run {target.run_id} ({target.adapter}/{target.config_name}, "
        f"{len(target.item_ids)} items, k={target.repeats})"
    )
    result = run_controls(
        db, loaded, target, allowed=allowed, random_seeds=random_seeds, bands_file=bands,
        workers=workers, watch=watch,
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
            raise AssayError(
                f"run {self.run.run_id} is TAMPERED (its stored evidence fails its own "
                "chain); no number is exported. `agent-assay verify` shows why",
                exit_code=ExitCode.TAMPERED)
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
    notice: Notice = _quiet,
) -> int:
    """Write `run`'s evidence bundle to `path`; return the number of rows written. With
    `witness`, the head the bundle holds and the run's verdict are appended to that file
    (refused first when it exists and is not an intact witness)."""
    path, witness = Path(path), as_path(witness)
    if witness is not None:
        writable_witness(witness)
    db = open_db(store, read_only=True)
    run = db.get_run(run).run_id
    count = export_bundle(db, run, path)
    if witness is not None:
        bundle = open_bundle(path)  # the head and the verdict the file itself holds
        verdict = assess(bundle.store, bundle.run).word
        _witness(witness, bundle.store, run, verdict, "export", notice)
    return count


@dataclass(frozen=True)
class PlanResult:
    plan: Plan

    @property
    def text(self) -> str:
        return plan_text(self.plan)

    @property
    def data(self) -> dict[str, Any]:
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
