"""The command line: parse, call the API, render. No logic lives here.

One module per command group; each command imports what it needs when it runs, so
`agent-assay --help` starts without the database layer or SciPy. Every user-caused
failure arrives as an AssayError and leaves as one line on stderr with a non-zero
exit, never a traceback. Exit codes mean one thing for every command (`exitcodes.ExitCode`,
docs/ci.md).
"""

from __future__ import annotations

import gc
import signal
import sys
from collections.abc import Sequence
from types import FrameType

import click

from agent_assay.cli.certifying import controls_group, mutate_command, mutation_group
from agent_assay.cli.evidence import (
    check_adapter_command,
    export_command,
    migrate_command,
    verify_command,
)
from agent_assay.cli.importing import import_command
from agent_assay.cli.options import DEFAULT_DB
from agent_assay.cli.reading import (
    adapters_group,
    compare_command,
    plan_command,
    report_command,
    runs_group,
    trajectories_group,
)
from agent_assay.cli.running import run_command, score_command, suite_group
from agent_assay.cli.store_admin import store_group
from agent_assay.errors import AssayError, Terminated
from agent_assay.exitcodes import ExitCode

__all__ = ["DEFAULT_DB", "cli", "main", "run_cli"]


@click.group()
@click.version_option(package_name="agent-assay")
def cli() -> None:
    """agent-assay: evaluate tool-calling agents and refuse numbers the harness cannot defend."""


for command in (
    suite_group,
    run_command,
    score_command,
    report_command,
    controls_group,
    mutate_command,
    mutation_group,
    compare_command,
    plan_command,
    runs_group,
    trajectories_group,
    adapters_group,
    store_group,
    migrate_command,
    verify_command,
    export_command,
    import_command,
    check_adapter_command,
):
    cli.add_command(command)


def run_cli(args: Sequence[str] | None = None) -> int:
    """Run one command and return its exit code; every user-caused failure is one line."""
    try:
        return _run(args)
    finally:
        if "agent_assay.api" in sys.modules:  # a store is only ever opened through it
            from agent_assay import api

            api.close_stores()


def _run(args: Sequence[str] | None) -> int:
    try:
        returned = cli.main(args=list(args) if args is not None else None, standalone_mode=False)
        return returned if isinstance(returned, int) else 0
    except AssayError as exc:
        click.echo(f"error: {one_line(exc)}", err=True)
        return exc.exit_code
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, AssayError):  # Ctrl-C that already says how to go on
            click.echo(f"error: {one_line(exc.__cause__)}", err=True)
            return exc.__cause__.exit_code
        click.echo("aborted", err=True)
        if isinstance(exc.__cause__, Terminated):
            return Terminated.exit_code
        return ExitCode.INTERRUPTED
    except click.ClickException as exc:
        click.echo(f"error: {one_line(exc.format_message())}", err=True)
        # click's usage errors exit 2, which this table gives to tampered evidence
        return ExitCode.ERROR
    except Exception as exc:
        from agent_assay import api

        failure = api.database_failure(exc)
        if failure is None:
            raise
        click.echo(f"error: {failure}", err=True)
        return failure.exit_code


def one_line(message: object) -> str:
    """The message on one line whatever it quotes: a key or a value holding a line break
    (\\n, \\r, U+2028, U+0085 ...) must not split the error or forge a second line, and
    a terminal escape (ESC) must not repaint what the reader sees. Every character that is
    not printable is shown escaped; printable text, accented letters included, is kept."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in str(message))


def terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def main() -> None:
    """The console script: SIGTERM stops a command the way Ctrl-C does (a run then stores
    what finished and prints how to resume it), exit code 143."""
    signal.signal(signal.SIGTERM, terminate)
    code = run_cli()
    # The interpreter's shutdown runs several full collections over every object still
    # alive (the modules, and what the command kept): a tenth of a second of a report. One
    # collection here finalizes the command's garbage as they would (a store's engine left
    # to the collector closes its connections, so SQLite folds its write-ahead log back
    # into the file); what is left alive is then frozen out of theirs. atexit handlers run
    # as before, and what is not in a cycle is freed as the modules are cleared.
    gc.collect()
    gc.freeze()
    sys.exit(code)
