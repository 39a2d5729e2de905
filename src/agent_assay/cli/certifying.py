"""`controls run|show`, `mutate` and `mutation score|show`: the harness proving it can go red."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from agent_assay.cli.options import (
    WITNESS_APPEND,
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
    witness_option,
    writable_file,
)
from agent_assay.cli.selecting import selection_options, settings_option
from agent_assay.errors import AssayError
from agent_assay.exitcodes import ExitCode

if TYPE_CHECKING:
    from agent_assay.api import ExecutorSpec, Selection

RUN_HELP = (
    "The run to use (default: the newest complete run of the config over the same items, "
    "--repeats and --seed; one is made if none exists)."
)


def run_config_option[F: Callable[..., Any]](verb: str) -> Callable[[F], F]:
    """`--config` of a command that works on a run: optional once `--run` names one."""
    return click.option(
        "--config",
        "config_name",
        default=None,
        help=f"Config whose run is {verb} (optional with --run; must then match the run's).",
    )


def run_target_options[F: Callable[..., Any]](function: F) -> F:
    """The options that name or make the run a control or mutation pass works on: the
    adapter, its source, `--run`, the item selection, repeats and seed."""
    for option in reversed((adapter_option("--run"), source_option,
                            click.option("--run", "run_id", default=None, help=RUN_HELP),
                            selection_options, repeats_option, seed_option)):
        function = option(function)
    return function


@click.group("controls")
def controls_group() -> None:
    """Negative controls: prove the harness can go red before a number is admissible."""


@controls_group.command("run")
@run_config_option("certified")
@settings_option
@run_target_options
@click.option("--allow-not-run", "allow", multiple=True, help="Control kind allowed NOT_RUN.")
@click.option("--random-seeds", type=int, default=None, help="Seeds for random_agent.")
@click.option(
    "--bands",
    "bands_file",
    type=click.Path(path_type=Path),
    default=None,
    help="A bands file applied over the defaults and the adapter's own (same format).",
)
@executor_options
@witness_option(WITNESS_APPEND)
@json_option("the outcomes and the verdict")
@db_option
def controls_run(
    config_name: str | None,
    settings: dict[str, str],
    adapter: str | None,
    source: Path | None,
    run_id: str | None,
    selection: Selection,
    repeats: int,
    seed: int,
    allow: tuple[str, ...],
    random_seeds: int | None,
    bands_file: Path | None,
    executor: ExecutorSpec,
    witness: Path | None,
    as_json: bool,
    db: str,
) -> int:
    """Run every control; exit 0 admissible, 3 inadmissible, 2 tampered, 1 on an error.

    A run made for it (none stored) runs on --executor; identical_config's twins run in
    --workers agent processes of this host whatever the executor, started as a run's are.
    Each control finished is a line on stderr, with an estimate of the time left.

    Exits 0 when the run is admissible (with waivers or without), 3 when it is not (a
    control FAILED, ended in ERROR or is NOT_RUN without allowance), 2 when its stored
    evidence fails its checks, 1 on an error (the table: docs/ci.md).
    """
    from agent_assay import api
    from agent_assay.cli.control_progress import control_progress
    from agent_assay.views.gates import control_table, controls_json, verdict_details

    default_db_dir(db)
    with stdout_to_stderr(as_json):
        store = api.open_db(db, must_exist=run_id is not None)
        named = store.get_run(run_id).adapter if run_id and adapter is None else None
        system = api.system_of(chosen_adapter(adapter, named))
        # a bad file or too few seeds is refused before a run is made
        api.check_bands(system, bands_file, random_seeds)
        if witness is not None:  # so is a witness that is not one, or cannot be written
            writable_file(witness, "--witness")
            api.check_witness_file(witness)
        run = api.run_to_certify(
            store, system, run=run_id, config=config_name, source=source,
            selection=selection, settings=settings, repeats=repeats, seed=seed,
            executor=executor, notice=stderr,
        )
        with control_progress() as watch:
            done = api.certify(
                system, store=store, run=run.run_id, allow_not_run=allow,
                random_seeds=random_seeds, bands=bands_file, executor=executor,
                notice=stderr if as_json else click.echo, witness=witness, watch=watch,
            )
    if as_json:
        emit_json(controls_json(done.run, done.outcomes, done.verdict, done.exit_code))
        return done.exit_code
    click.echo(control_table(done.outcomes), nl=False)
    word = done.verdict.word
    click.echo(
        ", ".join(f"{n} {s}" for s, n in sorted(done.counts().items()))
        + ", run "
        + ("admissible" if word == "ADMISSIBLE" else word)
    )
    for line in verdict_details(done.verdict):
        click.echo(f"  {line}")
    return done.exit_code


@controls_group.command("show")
@click.argument("run_id")
@json_option("the stored outcomes")
@db_option
def controls_show(run_id: str, as_json: bool, db: str) -> int:
    """Print the newest stored outcome of every control for RUN_ID.

    None is shown (exit 2) when the run's stored evidence fails its integrity check; it
    exits 0 otherwise, whatever the verdict (`report` and `controls run` gate on it).
    """
    from agent_assay import api
    from agent_assay.views.gates import (
        admissibility_lines,
        control_table,
        controls_show_json,
        tampered_lines,
    )

    stored = api.stored_controls(run_id, store=db)
    run, outcomes, verdict = stored.run, stored.outcomes, stored.verdict
    if verdict.tampered and as_json:
        raise stored.refusal("shown")
    if verdict.tampered:  # what the controls measured is a number too
        click.echo("\n".join([*tampered_lines(run, verdict.integrity),
                              *admissibility_lines(verdict)]))
        return ExitCode.TAMPERED
    if as_json:
        emit_json(controls_show_json(run, outcomes))
        return 0
    click.echo(control_table([o.payload for o in outcomes.values()]), nl=False)
    click.echo("\n".join(admissibility_lines(verdict)))
    return 0


@click.command("mutate")
@run_config_option("mutated")
@click.option(
    "--operators",
    type=click.Path(path_type=Path),
    default=None,
    show_default="built-in mutant set, agent_assay/mutation/mutants.yaml",
    help="Mutant set: operators, parameters, detector settings.",
)
@run_target_options
@json_option("the mutation pass")
@db_option
def mutate_command(
    config_name: str | None,
    operators: Path | None,
    adapter: str | None,
    source: Path | None,
    run_id: str | None,
    selection: Selection,
    repeats: int,
    seed: int,
    as_json: bool,
    db: str,
) -> None:
    """Plant defects in a run's trajectories, replay them, and see which metrics notice.

    --items, --items-file, --match, --tag and --limit choose which of the run's items are
    mutated (a run made for it covers every item)."""
    from agent_assay import api
    from agent_assay.views.mutation_render import mutation_json, mutation_text

    mutants = api.mutants(operators)
    default_db_dir(db)
    with stdout_to_stderr(as_json):
        store = api.open_db(db, must_exist=run_id is not None)
        named = store.get_run(run_id).adapter if run_id and adapter is None else None
        system = api.system_of(chosen_adapter(adapter, named))
        done = api.mutate(system, mutants, store=store, run=run_id, config=config_name,
                          source=source, selection=selection, repeats=repeats, seed=seed,
                          notice=stderr)
    run, rows = done.run, done.rows
    if as_json:
        emit_json(mutation_json(rows, run, command="mutate"))
        return
    click.echo(f"mutating run {run.run_id} ({run.adapter}/{run.config_name})")
    click.echo(mutation_text(rows), nl=False)


@click.group("mutation")
def mutation_group() -> None:
    """Stored mutation passes."""


@mutation_group.command("score")
@click.argument("run_id")
@json_option("the mutation pass")
@db_option
def mutation_score(run_id: str, as_json: bool, db: str) -> None:
    """Reprint the newest mutation pass over RUN_ID: tables, kills and gate_mutation_score."""
    from agent_assay import api
    from agent_assay.views.mutation_render import mutation_json, mutation_text

    stored = api.mutation_pass(run_id, store=db)
    run, rows = stored.run, stored.rows
    if as_json:
        emit_json(mutation_json(rows, run, command="mutation-score"))
    else:
        click.echo(mutation_text(rows), nl=False)


@mutation_group.command("show")
@click.argument("run_id")
@click.option("--item", required=True, help="Item id.")
@click.option("--operator", required=True, help="Operator name.")
@json_option("the two paths")
@db_option
def mutation_show(run_id: str, item: str, operator: str, as_json: bool, db: str) -> None:
    """Baseline and mutant tool calls side by side, turn by turn, with their arguments."""
    from agent_assay import api
    from agent_assay.views.mutation_render import mutant_json, mutant_text

    stored = api.mutation_pass(run_id, store=db)
    run = stored.run
    if item not in run.item_ids:
        raise AssayError(f"unknown item {item} in run {run.run_id}")
    rows = stored.rows
    if not rows:
        raise AssayError(f"no mutation pass is stored for run {run_id}")
    if as_json:
        emit_json(mutant_json(rows, run, item, operator))
    else:
        click.echo(mutant_text(rows, item, operator), nl=False)
