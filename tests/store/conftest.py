"""The store suite runs twice: on an SQLite file and on a PostgreSQL database.

`backend` gives each test a fresh, empty store on one of them: its `db` is what the
harness is pointed at (on PostgreSQL, the harness's role, which owns nothing), its
`owner` what an administrator would connect as (on SQLite, the same file).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text

from tests.support.postgres import PgServer


@dataclass(frozen=True)
class Backend:
    name: str
    db: str
    """The harness's --db."""
    owner: str
    """The --db of whoever owns the tables (on SQLite, the file itself)."""

    @property
    def on_postgresql(self) -> bool:
        return self.name == "postgresql"

    def engine(self, *, as_owner: bool = True) -> Engine:
        """A plain engine (none of the harness's connection set-up) for raw statements."""
        url = self.owner if as_owner else self.db
        return create_engine(url if "://" in url else f"sqlite:///{url}")

    def scalar(self, sql: str, **params: Any) -> Any:
        engine = self.engine()
        try:
            with engine.connect() as conn:
                return conn.execute(text(sql), params).scalar()
        finally:
            engine.dispose()

    def fresh(self, label: str, server: PgServer | None, tmp: Path) -> Backend:
        """Another empty store on the same backend (for tests that need two)."""
        return make_backend(self.name, server, tmp / label)


def make_backend(name: str, server: PgServer | None, tmp: Path) -> Backend:
    if name == "sqlite":
        tmp.mkdir(parents=True, exist_ok=True)
        path = str(tmp / "assay.db")
        return Backend(name, path, path)
    assert server is not None
    harness, owner = server.harness_database()
    return Backend(name, harness, owner)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    server = request.getfixturevalue("pg_server") if request.param == "postgresql" else None
    yield make_backend(request.param, server, tmp_path / "store")


@pytest.fixture
def pg(pg_server: PgServer, tmp_path: Path) -> Backend:
    """A PostgreSQL store only, for what SQLite has no counterpart of (roles, TRUNCATE,
    a server that refuses a connection)."""
    return make_backend("postgresql", pg_server, tmp_path / "store")
