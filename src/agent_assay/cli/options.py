"""Options several commands share, defined once; nothing heavy is imported here."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import click

from agent_assay.errors import AssayError
from agent_assay.outfiles import refuse_special

DEFAULT_DB = "run/assay.db"
DB_ENV = "AGENT_ASSAY_DB"

def db_option[F: Callable[..., Any]](function: F) -> F:
    """--db; a store the database engine cannot read becomes one line naming the damage,
    and a store the command created is taken away again when the command fails before it
    stored a run (`store.database.fresh`)."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        from agent_assay import api

        created = api.absent_store(kwargs["db"])
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            failure = api.database_failure(exc, kwargs["db"])
            if failure is None:
                raise
            raise failure from exc
        finally:
            if created is not None and sys.exc_info()[0] is not None:
                api.discard_unused(created)

    option = click.option(
        "--db",
        default=DEFAULT_DB,
        show_default=True,
        envvar=DB_ENV,
        show_envvar=True,
        help=f"The store: an SQLite file (path or sqlite:/// URL) or a postgresql+psycopg:// "
             f"URL. --db wins over {DB_ENV}, which wins over the default.",
    )
    return option(guarded)  # type: ignore[return-value]


def adapter_option(from_run: str | None = None) -> Callable[[Callable[..., Any]], Any]:
    """--adapter NAME, with no default: a command would otherwise run a system nobody named.
    `from_run`: the option naming a run whose own adapter is used when --adapter is not
    given (see `chosen_adapter`)."""
    also = f", or {from_run} names a run (its adapter is used)" if from_run else ""
    return click.option(
        "--adapter", default=None, metavar="NAME",
        help=f"Registered adapter name (`agent-assay adapters list`); needed unless exactly "
             f"one is registered{also}.",
    )


def chosen_adapter(adapter: str | None, run_adapter: str | None = None) -> str:
    """--adapter as given, else the adapter of the run named (`run_adapter`), else the one
    adapter registered; with several (or none) and no --adapter, one line naming them."""
    if adapter is not None:
        return adapter
    if run_adapter is not None:
        return run_adapter
    from agent_assay import api

    names = api.adapter_names()
    if len(names) == 1:
        return names[0]
    if not names:
        raise AssayError("no adapter is registered (`agent-assay adapters list`); install "
                         "one that declares an agent_assay.adapters entry point")
    raise AssayError(f"--adapter is needed: {len(names)} adapters are registered "
                     f"({', '.join(names)})")


source_option = click.option(
    "--source",
    type=click.Path(path_type=Path),
    default=None,
    help="Golden-set source for the adapter: a file, or a name the adapter resolves (an "
    "Inspect registry task); default: the adapter's bundled set.",
)
repeats_option = click.option(
    "--repeats", default=1, show_default=True, help="Repetitions per item (k)."
)
seed_option = click.option(
    "--seed", default=0, show_default=True, help="Run seed; item seeds derive from it."
)


def executor_options[F: Callable[..., Any]](function: F) -> F:
    """--workers, --executor and --scheduler: where the agents run (the store is written in
    this process whichever is chosen); the command receives one `executor`
    (`api.ExecutorSpec`). A combination that cannot work (--scheduler without --executor
    dask) is refused before the command does anything."""

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        from agent_assay.api import ExecutorSpec

        kwargs["executor"] = ExecutorSpec(kwargs.pop("executor"), kwargs.pop("workers"),
                                          kwargs.pop("scheduler"))
        return function(*args, **kwargs)

    options = (
        click.option(
            "--workers", default=1, show_default=True, type=click.IntRange(min=1),
            help="Agent processes, or worker processes of the local Dask cluster "
                 "(1 = sequential).",
        ),
        click.option(
            "--executor", default="process", show_default=True,
            type=click.Choice(("process", "dask")),
            help="Where agents run: agent processes on this host, or a Dask cluster "
                 "(pip install 'agent-assay[dask]').",
        ),
        click.option(
            "--scheduler", default=None, metavar="tcp://HOST:PORT",
            help="A running Dask scheduler for --executor dask (default: start a local "
                 "cluster of --workers processes on 127.0.0.1).",
        ),
    )
    decorated: Callable[..., Any] = checked
    for option in reversed(options):
        decorated = option(decorated)
    return decorated  # type: ignore[return-value]


WITNESS_APPEND = ("Append the head and the verdict to FILE, an append-only log kept outside "
                  "the store (commit it to git so the store's writer cannot rewrite it).")


def witness_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """--witness FILE: the append-only log of published heads kept outside the store."""
    return click.option("--witness", type=click.Path(path_type=Path, dir_okay=False),
                        default=None, metavar="FILE", help=what)


def json_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """--json: stdout holds one JSON document (its schema: agent_assay/schemas/, docs/json.md)
    and nothing else; notices stay on stderr."""
    return click.option("--json", "as_json", is_flag=True, help=f"Emit {what} as JSON.")


def emit_json(document: Mapping[str, Any]) -> None:
    """The one document a --json command prints."""
    click.echo(json.dumps(document, sort_keys=True, indent=2, default=str))


@contextlib.contextmanager
def stdout_to_stderr(active: bool) -> Iterator[None]:
    """While a --json command works, whatever its work prints to stdout (a notice, a
    progress bar a run made on the way draws) goes to stderr instead, so that stdout holds
    the one document and nothing else."""
    if not active:
        yield
        return
    with contextlib.redirect_stdout(sys.stderr):
        yield


def default_db_dir(db: str) -> None:
    """The default store lives in ./run; create that one directory, never an explicit one."""
    if db == DEFAULT_DB:
        Path(DEFAULT_DB).parent.mkdir(exist_ok=True)


def writable_file(path: Path, option: str) -> None:
    """Refuse, before any work is done, a file option that cannot be written: its
    directory missing, a directory given as the file, no permission, or a target that is
    not a regular file (outputs are replaced whole, never written into a device)."""
    if path.is_dir():
        raise AssayError(f"{option} {path} is a directory, not a file")
    refuse_special(path, option)
    parent = path.parent
    if not parent.is_dir():
        raise AssayError(f"{option} {path}: directory {parent} does not exist")
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK):
        raise AssayError(f"{option} {path} cannot be written (permission denied on {target})")


def stderr(message: str) -> None:
    click.echo(message, err=True)
