"""A PostgreSQL server for tests: the one AA_TEST_PG_URL names (CI starts it), else a
throwaway cluster this process starts, else the reason there is none.

Each test gets a database of its own, provisioned by `store init` with a harness role
per test process, so tests on one server never see each other's rows or race on one role.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import make_url

from tests.support import pg_cluster

ENV = "AA_TEST_PG_URL"
"""The owner's URL of a running server (any database on it: tests create their own)."""


@dataclass
class PgServer:
    owner_url: str
    label: str
    """Names this test process's role (xdist worker id)."""
    cluster: Path | None = None
    created: list[str] = field(default_factory=list)

    @property
    def role(self) -> str:
        return f"assay_harness_{self.label}"

    @property
    def role_password(self) -> str:
        return f"pw-{self.label}:s3cret"

    def url(self, database: str, user: str | None = None, password: str | None = None) -> str:
        url = make_url(self.owner_url).set(database=database)
        if user is not None:
            url = url.set(username=user, password=password)
        return url.render_as_string(hide_password=False)

    def new_database(self) -> str:
        import psycopg

        name = f"assay_{self.label}_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(plain(self.url("postgres")), autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{name}"')
        self.created.append(name)
        return name

    def harness_database(self) -> tuple[str, str]:
        """A new database with the store created by its owner and this process's harness
        role granted on it; (the harness's URL, the owner's URL)."""
        from agent_assay.store.database import provision

        name = self.new_database()
        owner = self.url(name)
        provision(owner, self.role, self.role_password)
        return self.url(name, self.role, self.role_password), owner

    def close(self) -> None:
        if self.cluster is not None:
            pg_cluster.stop(self.cluster)


def plain(url: str) -> str:
    """A SQLAlchemy psycopg URL as libpq takes it."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def start_server(label: str) -> PgServer | str:
    """The server to test against, or why there is none (printed as the skip reason)."""
    given = os.environ.get(ENV)
    if given:
        return PgServer(given, label)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "PostgreSQL tests need psycopg (pip install 'agent-assay[postgres]')"
    directory = Path(tempfile.mkdtemp(prefix=f"aa-pg-{label}-"))
    try:
        url = pg_cluster.start(directory)
    except (pg_cluster.ClusterError, OSError) as exc:
        return f"no PostgreSQL server could be started: {exc}"
    return PgServer(url, label, cluster=directory)
