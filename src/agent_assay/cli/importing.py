"""`agent-assay import NAME FILE`: store published results from other harnesses as runs.

The importer (a plugin, see agent_assay.importers) parses and validates everything
first; a file-level fault is one `error:` line and nothing is stored. The run id is
the last line on stdout, as with `run`.
"""

from __future__ import annotations

from pathlib import Path

import click

from agent_assay.cli.options import (
    db_option,
    default_db_dir,
    emit_json,
    json_option,
    stderr,
    stdout_to_stderr,
)


@click.command("import")
@click.argument("importer", metavar="NAME")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--name", default=None, help="Config name for the run (default: the file's stem).")
@json_option("the run id and what the import found")
@db_option
def import_command(importer: str, file: Path, name: str | None, as_json: bool, db: str) -> None:
    """Import published results (trajectories agent-assay did not execute) from FILE with
    the importer NAME (`tau-bench`: a JSON list of task_id/trial/reward/info/traj)."""
    from agent_assay import api
    from agent_assay.cli.results import import_json

    with stdout_to_stderr(as_json):
        parsed = api.read_import(importer, file)  # a bad file: refused before a store opens
        default_db_dir(db)
        report = parsed.store(db, name=name)
    for line in report.lines:
        stderr(line)
    if as_json:
        emit_json(import_json(importer, file, report))
    else:
        click.echo(report.run_id)
