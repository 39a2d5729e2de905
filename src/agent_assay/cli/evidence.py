"""`migrate`, `verify` and `export`: the store's schema, its evidence, and bundles of it."""

from __future__ import annotations

from pathlib import Path

import click

from agent_assay.cli.options import (
    WITNESS_APPEND,
    db_option,
    emit_json,
    json_option,
    stderr,
    stdout_to_stderr,
    witness_option,
    writable_file,
)
from agent_assay.exitcodes import ExitCode


@click.command("migrate")
@click.option(
    "--repair", is_flag=True, help="Restore missing or altered triggers and indexes (recorded)."
)
@db_option
def migrate_command(repair: bool, db: str) -> int:
    """Upgrade an older store in place (every row is kept), then check its schema.

    A dropped or altered trigger or index is reported (exit 2) and, with --repair,
    restored; the repair is recorded in the store and shown by `verify`.
    """
    from agent_assay import api

    problems = api.migrate(db, repair=repair, notice=click.echo)
    return ExitCode.TAMPERED if problems else ExitCode.OK


@click.command("verify")
@click.argument("target", required=False, metavar="[RUN | BUNDLE]")
@click.option(
    "--skip-rescore", is_flag=True, help="Check chain, hashes and certificates, not the scores."
)
@witness_option("Check every head the witness FILE holds against the store or bundle.")
@json_option("the findings")
@db_option
def verify_command(
    target: str | None, skip_rescore: bool, witness: Path | None, as_json: bool, db: str
) -> int:
    """Re-derive everything stored for RUN (default: every run), or for an evidence bundle.

    A bundle's head is derived from its rows, never taken from its header. With --witness,
    a head the witness holds that the chain no longer holds is a finding. Prints one line
    per finding and exits 0 only when nothing is off (2 otherwise).
    """
    from agent_assay import api
    from agent_assay.views.verify_render import verify_json, verify_text

    # the store is opened read-only here; a bundle is verified without it
    with stdout_to_stderr(as_json):
        store = db if target and api.is_bundle(target) else api.open_db(
            db, read_only=True, checked=False)  # verify's own integrity_check lists the damage
        result = api.verify(target, store=store, rescore=not skip_rescore, notice=stderr,
                            witness=witness)
    if as_json:
        emit_json(verify_json(result, rescored=not skip_rescore, target=target))
    else:
        click.echo(verify_text(result, rescored=not skip_rescore), nl=False)
    return ExitCode.OK if result.ok else ExitCode.TAMPERED


@click.command("export")
@click.argument("run_id", metavar="RUN")
@click.argument("path", metavar="[FILE]", required=False,
                type=click.Path(path_type=Path, dir_okay=False))
@click.option("--format", "format_", default="bundle", show_default=True,
              help="bundle (the evidence bundle), or an exporter plugin's format "
              "(`inspect`: an Inspect AI log that `inspect view` opens).")
@click.option("--out", "out", default=None, type=click.Path(path_type=Path, dir_okay=False),
              help="The file to write (instead of FILE).")
@witness_option(WITNESS_APPEND)
@db_option
def export_command(run_id: str, path: Path | None, format_: str, out: Path | None,
                   witness: Path | None, db: str) -> None:
    """Write RUN's evidence bundle (rows, chain, suite, config, certificates) to FILE, or
    with --format another harness's log with the verdict in its metadata (a TAMPERED run
    is refused)."""
    from agent_assay import api

    target = _export_target(path, out)
    if witness is not None:
        writable_file(witness, "--witness")
    store = api.open_db(db, read_only=True)
    run_id = store.get_run(run_id).run_id  # a prefix names the run in what is printed too
    count = api.export(run_id, target, store=store, witness=witness, notice=stderr,
                       format=format_)
    head = store.head(run_id)
    what = f"{count} rows" if format_ == "bundle" else f"{count} samples ({format_})"
    click.echo(
        f"wrote {target}: run {run_id}, {what}, chain head "
        f"{head.seq if head else 0} {head.digest if head else ''}"
    )


def _export_target(path: Path | None, out: Path | None) -> Path:
    if (path is None) == (out is None):
        raise click.UsageError("give the file to write once: as FILE or as --out FILE")
    target = path or out
    assert target is not None
    return target


@click.command("check-adapter")
@click.argument("name")
@click.option("--config", "config_name", default=None, help="Config to run one item with.")
@click.option(
    "--source", type=click.Path(path_type=Path), default=None, help="Golden-set source."
)
@json_option("the checks")
def check_adapter_command(
    name: str, config_name: str | None, source: Path | None, as_json: bool
) -> int:
    """Check the registered adapter NAME against the plugin surface before a first run.

    Names every missing member, builds the suite twice, replays gold, runs one item, and
    says how many items the mutation control needs; exit 1 when something must change.
    """
    from agent_assay import api
    from agent_assay.cli.results import check_adapter_json, check_adapter_text

    with stdout_to_stderr(as_json):
        checked = api.check_adapter(name, config=config_name, source=source)
    if as_json:
        emit_json(check_adapter_json(checked))
    else:
        click.echo(check_adapter_text(checked), nl=False)
    return ExitCode.OK if checked.ok else ExitCode.ERROR
