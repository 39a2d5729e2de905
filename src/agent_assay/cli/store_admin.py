"""`store init`: create a store, and on PostgreSQL the role the harness connects as."""

from __future__ import annotations

import os

import click

from agent_assay.cli.options import db_option
from agent_assay.errors import AssayError


@click.group("store")
def store_group() -> None:
    """The store itself: create it, and the role the harness writes it as."""


@store_group.command("init")
@click.option(
    "--role",
    default=None,
    help="PostgreSQL: create (or adopt) this role for the harness: SELECT and INSERT only.",
)
@click.option(
    "--role-password-env",
    "password_env",
    default=None,
    metavar="VAR",
    help="Set the role's password from environment variable VAR (never from the command line).",
)
@db_option
def store_init(role: str | None, password_env: str | None, db: str) -> None:
    """Create or upgrade the store's schema and its append-only guards; with --role, make
    that role the harness's. Run it once, as the database's owner; then point `--db` at
    the same database as the role."""
    from agent_assay import api

    password = None
    if password_env is not None:
        password = os.environ.get(password_env)
        if not password:
            raise AssayError(f"--role-password-env {password_env}: that variable is not set")
    done = api.provision(db, role, password)
    applied = ", ".join(map(str, done.applied))
    schema = f"applied migration(s) {applied}" if applied else "schema already current"
    click.echo(f"store at {api.shown_db(db)}: {schema}; schema version {done.version}, "
               "guards checked")
    if done.role is not None:
        how = "created" if done.created_role else "adopted"
        click.echo(
            f"role {done.role} {how}: CONNECT, SELECT and INSERT; UPDATE, DELETE and TRUNCATE "
            "revoked; it owns nothing"
        )
