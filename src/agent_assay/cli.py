"""The command line: parse, call one function, render. No logic lives here.

Every user-caused failure arrives as an AssayError and leaves as one line on
stderr with a non-zero exit, never a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from sqlalchemy.exc import DatabaseError

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.registry import DEFAULT_ADAPTER, list_adapters, load_adapter
from agent_assay.cli_import import import_command
from agent_assay.controls.execute import check_allowed, controls_exit_code, run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.admissibility import assess
from agent_assay.integrity.comparability import compare_runs
from agent_assay.integrity.verify import verify_store
from agent_assay.model import Run
from agent_assay.mutation.config import load_mutants
from agent_assay.mutation.engine import pass_payloads, run_pass
from agent_assay.report.gates import (
    admissibility_lines,
    comparison_text,
    control_table,
    report_json,
    report_text,
    tampered_lines,
)
from agent_assay.report.mutation_render import mutant_text, mutation_text
from agent_assay.report.passk import passk_json, passk_report, passk_text
from agent_assay.report.summary import summarise
from agent_assay.report.verify_render import verify_text
from agent_assay.rescoring import rescore
from agent_assay.runner import (
    build_and_store_suite,
    certifiable_run,
    execute_run,
    resolve_config,
    select_items,
    start_run,
)
from agent_assay.store import open_store
from agent_assay.store.bundle import bundle_summary, export_bundle, load_bundle
from agent_assay.store.damage import damage_summary, short
from agent_assay.store.engine import make_engine
from agent_assay.store.migrations import LATEST, apply
from agent_assay.store.schema_check import repair as repair_schema
from agent_assay.store.schema_check import schema_findings
from agent_assay.store.store import Store

DEFAULT_DB = "run/assay.db"


def db_option(function: Any) -> Any:
    """The --db option; a store the engine cannot read becomes one line naming the damage."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except DatabaseError as exc:
            reason = str(exc.orig) if exc.orig is not None else str(exc)
            raise AssayError(damage_summary(kwargs["db"], reason), exit_code=2) from exc

    return click.option(
        "--db",
        default=DEFAULT_DB,
        show_default=True,
        help="SQLite file path or SQLAlchemy URL of the store.",
    )(guarded)


def adapter_option(function: Any) -> Any:
    return click.option(
        "--adapter",
        default=DEFAULT_ADAPTER,
        show_default=True,
        help="Registered adapter name (see `agent-assay adapters list`).",
    )(function)


def source_option(function: Any) -> Any:
    return click.option(
        "--source",
        type=click.Path(path_type=Path),
        default=None,
        help="Golden-set source for the adapter (default: the adapter's bundled set).",
    )(function)


def default_db_dir(db: str) -> None:
    """The default store lives in ./run; create that one directory, never an explicit one."""
    if db == DEFAULT_DB:
        Path(DEFAULT_DB).parent.mkdir(exist_ok=True)


@click.group()
@click.version_option(package_name="agent-assay")
def cli() -> None:
    """agent-assay: evaluate tool-calling agents and refuse numbers the harness cannot defend."""


@cli.group()
def suite() -> None:
    """Golden sets: build and hash them."""


@suite.command("build")
@adapter_option
@source_option
@db_option
def suite_build(adapter: str, source: Path | None, db: str) -> None:
    """Build the adapter's golden set into content-hashed items and store it."""
    default_db_dir(db)
    store = open_store(db)
    system = load_adapter(adapter)
    built = build_and_store_suite(store, system, source)
    tags = sorted({t for item in built.items for t in item.tags})
    click.echo(f"suite {built.suite_hash}")
    click.echo(
        f"adapter {system.name} {system.version}: {len(built.items)} items, "
        f"{len(tags)} tags ({', '.join(tags)})"
    )


@cli.command("run")
@click.option("--config", "config_name", help="Config name from the adapter.")
@adapter_option
@source_option
@click.option("--repeats", default=1, show_default=True, help="Repetitions per item (k).")
@click.option("--limit", type=int, default=None, help="Only the first N items (by id).")
@click.option("--seed", default=0, show_default=True, help="Run seed; item seeds derive from it.")
@click.option("--tag", "tags", multiple=True, help="Only items carrying this tag (repeatable).")
@click.option("--workers", default=1, show_default=True, help="Agent processes (1 = sequential).")
@click.option("--resume", "resume_id", default=None, help="Resume RUN_ID, skipping stored work.")
@click.option(
    "--run-id-file",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write the run id to this file.",
)
@db_option
def run_command(
    config_name: str | None,
    adapter: str,
    source: Path | None,
    repeats: int,
    limit: int | None,
    seed: int,
    tags: tuple[str, ...],
    workers: int,
    resume_id: str | None,
    run_id_file: Path | None,
    db: str,
) -> None:
    """Run the agent over items × repetitions into the store; prints the run id.

    Exits 1 ("error: N items crashed: <first error>") after storing everything when any
    item crashed because the agent could not be reached; an agent that raises is a
    measured failure, stored as a crashed trajectory, and exits 0.
    """
    default_db_dir(db)
    store = open_store(db)
    if resume_id:
        run = store.get_run(resume_id)
        system = load_adapter(run.adapter)
        store.append_event(run.run_id, "resumed", {})
    else:
        if not config_name:
            raise AssayError("run needs --config NAME (or --resume RUN_ID)")
        system = load_adapter(adapter)
        config = resolve_config(system, config_name)
        built = build_and_store_suite(store, system, source)
        chosen = select_items(built, tags=tags, limit=limit)
        run = start_run(store, system, built, config, repeats=repeats, seed=seed, items=chosen)
    click.echo(f"run {run.run_id}", err=True)
    result = execute_run(store, system, run, workers=workers)
    click.echo(
        f"wrote {result.written} trajectories ({result.crashed} crashed), "
        f"skipped {result.skipped} already stored",
        err=True,
    )
    if run_id_file:
        run_id_file.write_text(run.run_id + "\n")
    click.echo(run.run_id)
    if result.unreachable:
        # Everything is stored (the crashed items too); the exit says the measurement failed.
        raise AssayError(
            f"{result.crashed} items crashed: {result.first_unreachable}"
        )


@cli.command("score")
@click.argument("run_id")
@db_option
def score_command(run_id: str, db: str) -> None:
    """Re-score a stored run; when anything differs, a new scoring generation is recorded."""
    store = open_store(db)
    run = store.get_run(run_id)
    result = rescore(store, load_adapter(run.adapter), run_id)
    if result.written:
        click.echo(
            f"re-scored run {run_id}: {result.changed} row(s) changed, {result.unchanged} "
            f"unchanged; generation {result.generation} written ({result.written} rows)"
        )
    else:
        click.echo(
            f"re-scored run {run_id}: all {result.unchanged} rows unchanged; "
            f"no new generation (current: {result.generation})"
        )


def open_target(target: str, db: str) -> tuple[Store, str]:
    """A run id in --db, or the path of an evidence bundle (loaded into memory): a target
    that names an existing file is read as a bundle, and refused when it is not one."""
    path = Path(target)
    if path.is_file():
        store, header = load_bundle(path)
        click.echo(bundle_summary(header), err=True)
        return store, str(header["run_id"])
    return open_store(db), target


@cli.command("report")
@click.argument("run_id", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Emit the summary as JSON.")
@click.option("--headline-only", is_flag=True, help="Only the adapter's headline metrics.")
@click.option("--passk-curve", is_flag=True, help="Append pass^k and pass@k for k = 1..k.")
@db_option
def report_command(
    run_id: str, as_json: bool, headline_only: bool, passk_curve: bool, db: str
) -> int:
    """Summarise a stored run (RUN is a run id, or an evidence bundle written by `export`).

    The report opens with the verdict: TAMPERED (exit 2, no number shown) when the run's
    stored evidence fails its own chain, then the reasons an inadmissible run is one.
    """
    store, run_id = open_target(run_id, db)
    run = store.get_run(run_id)
    verdict = assess(store, run)
    if as_json:
        curve = {}
        if passk_curve and not verdict.tampered:
            curve = {"passk_curve": passk_json(passk_report(store, run))}
        click.echo(json.dumps(report_json(store, run, verdict) | curve, sort_keys=True, indent=2))
    else:
        click.echo(report_text(store, run, verdict, headline_only=headline_only), nl=False)
        if passk_curve and not verdict.tampered:
            click.echo(passk_text(store, run), nl=False)
    return 2 if verdict.tampered else 0


@cli.group("controls")
def controls_group() -> None:
    """Negative controls: prove the harness can go red before a number is admissible."""


def certified_target(
    store: Store,
    system: LoadedSystem,
    config_name: str,
    source: Path | None,
    run_id: str | None,
    tags: tuple[str, ...],
    limit: int | None,
    repeats: int,
    seed: int,
) -> Run:
    """The run named by --run, else the newest complete run of the config over the same
    items, else a new run made now (and said so on stderr)."""
    if run_id:
        return store.get_run(run_id)
    config = resolve_config(system, config_name)
    built = build_and_store_suite(store, system, source)
    chosen = [i.item_id for i in select_items(built, tags=tags, limit=limit)]
    found = certifiable_run(store, system.name, config.config_hash, chosen)
    if found is not None:
        return found
    click.echo(
        f"no complete run of {config_name} over these {len(chosen)} items; "
        f"running one (k={repeats})",
        err=True,
    )
    run = start_run(
        store,
        system,
        built,
        config,
        repeats=repeats,
        seed=seed,
        items=[built.by_id()[i] for i in chosen],
    )
    execute_run(store, system, run)
    return run


@controls_group.command("run")
@click.option("--config", "config_name", required=True, help="Config whose run is certified.")
@adapter_option
@source_option
@click.option(
    "--run",
    "run_id",
    default=None,
    help="Certify this run (default: newest "
    "complete run of the config over the same items; one is made if none exists).",
)
@click.option("--limit", type=int, default=None, help="Only the first N items (by id).")
@click.option("--tag", "tags", multiple=True, help="Only items carrying this tag.")
@click.option("--repeats", default=1, show_default=True, help="k for a run made here.")
@click.option("--seed", default=0, show_default=True, help="Seed for a run made here.")
@click.option("--allow-not-run", "allow", multiple=True, help="Control kind allowed NOT_RUN.")
@click.option("--random-seeds", type=int, default=None, help="Seeds for random_agent.")
@db_option
def controls_run(
    config_name: str,
    adapter: str,
    source: Path | None,
    run_id: str | None,
    limit: int | None,
    tags: tuple[str, ...],
    repeats: int,
    seed: int,
    allow: tuple[str, ...],
    random_seeds: int | None,
    db: str,
) -> int:
    """Run every control; exit 0 admissible, 3 on a disallowed NOT_RUN, else 2 on FAILED/ERROR."""
    allowed = check_allowed(allow)
    default_db_dir(db)
    store = open_store(db)
    system = load_adapter(adapter)
    run = certified_target(store, system, config_name, source, run_id, tags, limit, repeats, seed)
    click.echo(
        f"certifying run {run.run_id} ({run.adapter}/{run.config_name}, "
        f"{len(run.item_ids)} items, k={run.repeats})"
    )
    result = run_controls(store, system, run, allowed=allowed, random_seeds=random_seeds)
    stored = store.control_outcomes(run.run_id)
    click.echo(control_table([stored[o.kind].payload for o in result.outcomes]), nl=False)
    verdict = assess(store, run)
    counts = Counter(o.status for o in result.outcomes)
    click.echo(
        ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        + ", run "
        + ("admissible" if verdict.admissible else "INADMISSIBLE")
    )
    for reason in verdict.reasons:
        click.echo(f"  reason: {reason}")
    return controls_exit_code(verdict.admissible, [stored[o.kind].payload for o in result.outcomes])


@controls_group.command("show")
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Emit the stored outcomes as JSON.")
@db_option
def controls_show(run_id: str, as_json: bool, db: str) -> None:
    """Print the newest stored outcome of every control for RUN_ID."""
    store = open_store(db)
    run = store.get_run(run_id)
    outcomes = store.control_outcomes(run.run_id)
    if not outcomes:
        raise AssayError(f"no control outcomes stored for run {run_id}")
    if as_json:
        payloads = {kind: o.payload for kind, o in outcomes.items()}
        click.echo(json.dumps(payloads, sort_keys=True, indent=2))
        return
    verdict = assess(store, run)
    if verdict.tampered:
        click.echo("\n".join(tampered_lines(run, verdict.integrity)))
    click.echo(control_table([o.payload for o in outcomes.values()]), nl=False)
    click.echo("\n".join(admissibility_lines(verdict)))


@cli.command("mutate")
@click.option("--config", "config_name", required=True, help="Config whose run is mutated.")
@click.option(
    "--operators",
    type=click.Path(path_type=Path),
    default=Path("configs/mutants.yaml"),
    show_default=True,
    help="Mutant set: operators, parameters, detector settings.",
)
@adapter_option
@source_option
@click.option("--run", "run_id", default=None, help="Mutate this run (default: as controls run).")
@click.option("--tag", "tags", multiple=True, help="Only items carrying this tag.")
@click.option("--limit", type=int, default=None, help="Only the first N items (by id).")
@click.option("--repeats", default=1, show_default=True, help="k for a run made here.")
@click.option("--seed", default=0, show_default=True, help="Seed for a run made here.")
@db_option
def mutate_command(
    config_name: str,
    operators: Path,
    adapter: str,
    source: Path | None,
    run_id: str | None,
    tags: tuple[str, ...],
    limit: int | None,
    repeats: int,
    seed: int,
    db: str,
) -> None:
    """Plant defects in a run's trajectories, replay them, and see which metrics notice."""
    mutants = load_mutants(operators)
    default_db_dir(db)
    store = open_store(db)
    system = load_adapter(adapter)
    run = certified_target(store, system, config_name, source, run_id, (), None, repeats, seed)
    result = run_pass(store, system, run, mutants, tags=tags, limit=limit)
    store.put_mutation_rows(run.run_id, pass_payloads(result))
    click.echo(f"mutating run {run.run_id} ({run.adapter}/{run.config_name})")
    click.echo(mutation_text(store.latest_mutation_pass(run.run_id)), nl=False)


@cli.group("mutation")
def mutation_group() -> None:
    """Stored mutation passes."""


@mutation_group.command("score")
@click.argument("run_id")
@db_option
def mutation_score(run_id: str, db: str) -> None:
    """Reprint the newest mutation pass over RUN_ID: tables, kills and gate_mutation_score."""
    store = open_store(db)
    click.echo(mutation_text(store.latest_mutation_pass(store.get_run(run_id).run_id)), nl=False)


@mutation_group.command("show")
@click.argument("run_id")
@click.option("--item", required=True, help="Item id.")
@click.option("--operator", required=True, help="Operator name.")
@db_option
def mutation_show(run_id: str, item: str, operator: str, db: str) -> None:
    """Baseline and mutant tool calls side by side, turn by turn, with their arguments."""
    store = open_store(db)
    rows = store.latest_mutation_pass(store.get_run(run_id).run_id)
    if not rows:
        raise AssayError(f"no mutation pass is stored for run {run_id}")
    click.echo(mutant_text(rows, item, operator), nl=False)


@cli.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--force", is_flag=True, help="Compare anyway; every line is stamped unsound.")
@db_option
def compare_command(run_a: str, run_b: str, force: bool, db: str) -> int:
    """Paired comparison of two runs, refused (exit 2) when they are not comparable."""
    store = open_store(db)
    comparison = compare_runs(store, run_a, run_b)
    click.echo(comparison_text(comparison, forced=force), nl=False)
    return 0 if comparison.sound or (force and not comparison.tampered) else 2


@cli.group("runs")
def runs_group() -> None:
    """Stored runs."""


@runs_group.command("list")
@db_option
def runs_list(db: str) -> None:
    """List stored runs, oldest first."""
    store = open_store(db)
    for run in store.list_runs():
        status = summarise(store, run).status.state
        role = ""
        if "control" in run.env:
            role = f"  [made by control {run.env['control']} for {run.env.get('certifies', '?')}]"
        click.echo(
            f"{run.run_id}  {run.adapter}/{run.config_name}  k={run.repeats}  "
            f"items={len(run.item_ids)}  {status}  {run.created_at}{role}"
        )


@cli.group("adapters")
def adapters_group() -> None:
    """Registered adapters (entry-point group agent_assay.adapters)."""


@adapters_group.command("list")
def adapters_list() -> None:
    """Show every adapter's name, version and the distribution that provides it."""
    for info in list_adapters():
        click.echo(f"{info.name}\t{info.version}\t{info.source}")


@cli.command("migrate")
@click.option(
    "--repair", is_flag=True, help="Restore missing or altered triggers and indexes (recorded)."
)
@db_option
def migrate_command(repair: bool, db: str) -> int:
    """Upgrade an older store in place (every row is kept), then check its schema.

    A dropped or altered trigger or index is reported (exit 2) and, with --repair,
    restored; the repair is recorded in the store and shown by `verify`.
    """
    engine = make_engine(db)
    applied = apply(engine)
    if applied:
        click.echo(f"applied migration(s) {', '.join(map(str, applied))}; schema now {LATEST}")
    if repair:
        done = repair_schema(engine)
        for name in done.restored:
            click.echo(f"restored {name}")
        for name in done.refused:
            click.echo(f"could not restore {name}: the table holds rows it forbids "
                       "(`agent-assay verify` names them)")
        if done.restored or done.refused:
            click.echo("the repair is recorded in the store; `agent-assay verify` shows it")
    with engine.connect() as conn:
        problems = schema_findings(conn)
    for finding in problems:
        click.echo(f"schema: {finding.line()}")
    if problems:
        return 2
    if not applied and not repair:
        click.echo(f"schema already at version {LATEST}, every trigger and index in place")
    return 0


@cli.command("verify")
@click.argument("target", required=False, metavar="[RUN | BUNDLE]")
@click.option(
    "--skip-rescore", is_flag=True, help="Check chain, hashes and certificates, not the scores."
)
@db_option
def verify_command(target: str | None, skip_rescore: bool, db: str) -> int:
    """Re-derive everything stored for RUN (default: every run), or for an evidence bundle.

    Prints one line per finding and exits 0 only when nothing is off (2 otherwise).
    """
    if target is None:
        store, run_ids = open_existing_store(db), None
    else:
        store, run_id = open_target(target, db)
        run_ids = [run_id]
    result = verify_store(store, run_ids, None if skip_rescore else load_adapter)
    click.echo(verify_text(result, rescored=not skip_rescore), nl=False)
    return 0 if result.ok else 2


@cli.command("export")
@click.argument("run_id", metavar="RUN")
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path, dir_okay=False))
@db_option
def export_command(run_id: str, path: Path, db: str) -> None:
    """Write RUN's evidence bundle (rows, chain, suite, config, certificates) to FILE."""
    store = open_existing_store(db)
    count = export_bundle(store, run_id, path)
    head = store.head(run_id)
    click.echo(
        f"wrote {path}: run {run_id}, {count} rows, chain head "
        f"{head.seq if head else 0} {head.digest if head else ''}"
    )


cli.add_command(import_command)


def open_existing_store(db: str) -> Store:
    """A store that must already exist: checking a typo'd path must not create one."""
    if "://" not in db and not Path(db).exists():
        raise AssayError(f"no store at --db {db}")
    return open_store(db)


def run_cli(args: Sequence[str] | None = None) -> int:
    """Run one command and return its exit code; every user-caused failure is one line."""
    try:
        returned = cli.main(args=list(args) if args is not None else None, standalone_mode=False)
        return returned if isinstance(returned, int) else 0
    except AssayError as exc:
        click.echo(f"error: {exc}", err=True)
        return exc.exit_code
    except DatabaseError as exc:
        reason = str(exc.orig) if exc.orig is not None else str(exc)
        click.echo(f"error: the store cannot be read: {short(reason)}", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        return exc.exit_code


def main() -> None:
    sys.exit(run_cli())
