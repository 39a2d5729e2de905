"""`suite build`, `run` and `score`: golden sets in, trajectories and scores out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from agent_assay.cli.options import (
    DEFAULT_DB,
    adapter_option,
    chosen_adapter,
    db_option,
    default_db_dir,
    emit_json,
    executor_options,
    json_option,
    repeats_option,
    seed_option,
    source_option,
    stderr,
    stdout_to_stderr,
    writable_file,
)
from agent_assay.cli.selecting import selection_options, settings_option
from agent_assay.errors import AssayError
from agent_assay.outfiles import write_whole

if TYPE_CHECKING:
    from agent_assay.api import Evaluation, ExecutorSpec, Selection


@click.group("suite")
def suite_group() -> None:
    """Golden sets: build and hash them."""


@suite_group.command("build")
@adapter_option()
@source_option
@json_option("the suite")
@db_option
def suite_build(adapter: str | None, source: Path | None, as_json: bool, db: str) -> None:
    """Build the adapter's golden set into content-hashed items and store it."""
    from agent_assay import api
    from agent_assay.cli.results import suite_json, suite_text

    default_db_dir(db)
    with stdout_to_stderr(as_json):
        system = api.system_of(chosen_adapter(adapter))
        built = api.build_suite(system, store=db, source=source)
    if as_json:
        emit_json(suite_json(built, system))
    else:
        click.echo(suite_text(built, system), nl=False)


def _new_run_config(config_name: str | None, retry: str | None) -> str:
    """The config a new run (no --resume) is started with; --retry without --resume and no
    --config are refused."""
    if retry:
        raise AssayError("--retry needs --resume RUN_ID (it runs a stored run's "
                         "crashed slots again)")
    if not config_name:
        raise AssayError("run needs --config NAME (or --resume RUN_ID)")
    return config_name


def _resume(
    resume_id: str,
    retry: str | None,
    adapter: str | None,
    config_name: str | None,
    source: Path | None,
    repeats: int,
    selection: Selection,
    seed: int,
    executor: ExecutorSpec,
    db: str,
) -> Evaluation:
    """`run --resume`: go on with the stored run; an option given on the command line (not
    its default) is held against what the run recorded."""
    from agent_assay import api

    return api.resume(
        resume_id, store=db, executor=executor, progress=None, notice=stderr,
        retry=retry, adapter=adapter if _typed("adapter") else None,
        config=config_name, source=source,
        repeats=repeats if _typed("repeats") else None, limit=selection.limit,
        seed=seed if _typed("seed") else None, tags=selection.tags or None,
    )


@click.command("run")
@click.option("--config", "config_name", help="Config name from the adapter.")
@settings_option
@adapter_option("--resume")
@source_option
@repeats_option
@selection_options
@seed_option
@executor_options
@click.option("--resume", "resume_id", default=None, help="Resume RUN_ID, skipping stored work.")
@click.option(
    "--retry", type=click.Choice(("harness", "crashed")), default=None,
    help="With --resume: run crashed slots again as new attempts (the crashed ones stay "
         "stored). harness: the harness's crashes (never measured); crashed: the agent's "
         "too (measured failures: the verdict discloses it as a waiver).",
)
@click.option(
    "--run-id-file",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write the run id to this file.",
)
@json_option("the run id and what was stored")
@db_option
def run_command(
    config_name: str | None,
    settings: dict[str, str],
    adapter: str | None,
    source: Path | None,
    repeats: int,
    selection: Selection,
    seed: int,
    executor: ExecutorSpec,
    resume_id: str | None,
    retry: str | None,
    run_id_file: Path | None,
    as_json: bool,
    db: str,
) -> None:
    """Run the agent over items × repetitions into the store; prints the run id.

    Exits 1 ("error: N items crashed: <first error>") after storing everything when any
    crash was the harness's (the agent could not be reached, the environment failed),
    since those slots were not measured; an agent that raises is a measured failure,
    stored as a crashed trajectory and counted as failed, and exits 0.

    A run measures and does not judge: it exits 0 once stored, whatever the agent scored,
    and the gate is `controls run --run RUN_ID` (or `report`). It exits 2 when --resume
    names a run whose stored evidence fails its checks (the table: docs/ci.md).
    """
    from agent_assay import api
    from agent_assay.views.run_view import run_result_json

    if resume_id and (settings or selection.ids or selection.patterns):
        # --tag and --limit are held against the run's own items by api.resume (the same
        # selection is fine); these name items or settings no stored run records
        raise AssayError("--resume goes on with the run as it was defined: drop -M, --items, "
                         "--items-file and --match")
    default_db_dir(db)
    if run_id_file is not None:
        writable_file(run_id_file, "--run-id-file")
    try:
        with stdout_to_stderr(as_json):
            if resume_id:
                done = _resume(resume_id, retry, adapter, config_name, source, repeats,
                               selection, seed, executor, db)
            else:
                config = _new_run_config(config_name, retry)
                done = api.evaluate(
                    chosen_adapter(adapter), config, store=db, source=source,
                    selection=selection, repeats=repeats, seed=seed, settings=settings,
                    executor=executor, progress=None, notice=stderr,
                )
    except api.RunStopped as stopped:
        raise stopped.for_cli(f" --db {api.shown_db(db)}" if db and db != DEFAULT_DB
                              else "") from None
    where = "" if db == DEFAULT_DB else f" --db {api.shown_db(db)}"
    for line in done.notices(where):
        stderr(line)
    if as_json:
        emit_json(run_result_json(done.result, resumed=bool(resume_id)))
    else:
        click.echo(done.run_id)
    if run_id_file:
        try:
            write_whole(run_id_file, (done.run_id + "\n").encode(), "--run-id-file")
        except AssayError as exc:
            raise AssayError(f"run {done.run_id} is stored, but {exc}") from exc
    if done.unmeasured is not None:
        # Everything is stored (the crashed items too); the exit says the measurement failed.
        raise done.unmeasured


def _typed(parameter: str) -> bool:
    """Whether an option with a default was given (on the command line or in the
    environment) rather than left to it: a resume refuses one that differs from the run's."""
    source = click.get_current_context().get_parameter_source(parameter)
    return source in (click.core.ParameterSource.COMMANDLINE,
                      click.core.ParameterSource.ENVIRONMENT)


@click.command("score")
@click.argument("run_id")
@json_option("the re-scoring")
@db_option
def score_command(run_id: str, as_json: bool, db: str) -> None:
    """Re-score a stored run; when anything differs, a new scoring generation is recorded."""
    from agent_assay import api
    from agent_assay.cli.results import rescore_json, rescore_text

    with stdout_to_stderr(as_json):
        store = api.open_db(db, must_exist=True)
        run_id = store.get_run(run_id).run_id  # what is printed names the run, not a prefix
        result = api.rescore(run_id, store=store)
    if as_json:
        emit_json(rescore_json(run_id, result))
    else:
        click.echo(rescore_text(run_id, result), nl=False)
