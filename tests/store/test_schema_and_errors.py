"""The schema check on both backends, and PostgreSQL's ways to fail: each one line,
the password masked, no traceback, nothing written."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from agent_assay.errors import AssayError
from agent_assay.store import open_existing_store, open_store
from agent_assay.store.database import Access, make_engine, schema_findings
from tests.store.conftest import Backend
from tests.support.invoke import invoke
from tests.support.postgres import PgServer
from tests.support.toy import ToyAdapter
from tests.support.toyrun import ROOT, cli_env, toy_run


def findings(backend: Backend) -> list[str]:
    store = open_existing_store(backend.db)
    with store.engine.connect() as conn:
        found = [f.line() for f in schema_findings(conn)]
    store.close()
    return found


def owner_runs(backend: Backend, *statements: str) -> None:
    engine = backend.engine()
    with engine.begin() as conn:
        for sql in statements:
            conn.execute(text(sql))
    engine.dispose()


def test_a_dropped_guard_is_found_and_restored_by_repair(backend: Backend) -> None:
    store = open_store(backend.db)
    run = toy_run(store, ToyAdapter(), "good")
    store.close()
    on = " ON scores" if backend.on_postgresql else ""
    owner_runs(backend, f"DROP TRIGGER scores_no_update{on}")
    assert findings(backend) == [
        "trigger scores_no_update: is missing (`agent-assay migrate --repair`)"
    ]
    verified = invoke("verify", "--skip-rescore", "--db", backend.db)
    assert verified.code != 0 and "trigger scores_no_update" in verified.out + verified.err
    repaired = invoke("migrate", "--repair", "--db", backend.owner)
    assert repaired.code == 0, repaired.err
    assert "restored trigger scores_no_update" in repaired.out
    assert findings(backend) == []
    clean = invoke("verify", "--skip-rescore", "--db", backend.db)
    assert clean.code == 0, clean.out + clean.err
    assert f"run {run.run_id}:" in clean.out and "store repaired at" in clean.out
    below = "PostgreSQL, checked from its catalog" if backend.on_postgresql else \
        "integrity_check ok"
    assert f"database: {below}; schema, triggers and indexes as created" in clean.out
    assert "who can switch" not in clean.out and "can disable" not in clean.out
    if backend.on_postgresql:  # the owner is told what its verification rests on
        as_owner = invoke("verify", "--skip-rescore", "--db", backend.owner)
        assert "(the chain is what this verification rests on)" in as_owner.out


def test_a_disabled_or_foreign_trigger_is_a_finding(pg: Backend) -> None:
    open_store(pg.db).close()
    owner_runs(
        pg,
        "ALTER TABLE runs DISABLE TRIGGER runs_no_delete",
        "CREATE FUNCTION sneak() RETURNS trigger LANGUAGE plpgsql AS "
        "$$BEGIN NEW.value := 1; RETURN NEW; END$$",
        "CREATE TRIGGER sneak BEFORE INSERT ON scores FOR EACH ROW EXECUTE FUNCTION sneak()",
        "CREATE OR REPLACE FUNCTION assay_append_only() RETURNS trigger LANGUAGE plpgsql AS "
        "$$BEGIN RETURN NULL; END$$",
    )
    assert findings(pg) == [
        "function assay_append_only: differs from the one this version creates",
        "trigger runs_no_delete: is disabled, so it refuses nothing "
        "(`agent-assay migrate --repair`)",
        "trigger sneak: is not part of the agent-assay schema",
    ]
    repaired = invoke("migrate", "--repair", "--db", pg.owner)
    assert repaired.code == 0, repaired.err
    assert findings(pg) == []


def test_quieter_ways_to_defang_the_store_are_findings(pg: Backend) -> None:
    """A guard kept by name but made never to fire, a function pointed at other tables, a
    rule, row-level security, a dropped uniqueness, a narrowed column: each is named."""
    open_store(pg.db).close()
    owner_runs(
        pg,
        "DROP TRIGGER scores_no_update ON scores",
        "CREATE TRIGGER scores_no_update BEFORE UPDATE ON scores FOR EACH ROW WHEN (false) "
        "EXECUTE FUNCTION assay_append_only()",
        "DROP TRIGGER runs_no_delete ON runs",
        "CREATE TRIGGER runs_no_delete BEFORE DELETE ON runs FOR EACH ROW "
        "EXECUTE FUNCTION assay_append_only('ignored')",
        "ALTER FUNCTION assay_ledger_links() SET search_path = pg_temp",
        "CREATE RULE swallow AS ON INSERT TO trajectories WHERE NEW.crashed DO INSTEAD NOTHING",
        "ALTER TABLE runs ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE trajectories DROP CONSTRAINT uq_trajectory_slot",
        "ALTER TABLE scores ALTER COLUMN value TYPE real",
    )
    assert findings(pg) == [
        "function assay_ledger_links: differs from the one this version creates",
        "trigger runs_no_delete: differs from the one this version creates",
        "trigger scores_no_update: differs from the one this version creates",
        "table scores: has columns other than the ones this version creates",
        "constraint uq_trajectory_slot: is missing",
        "rule swallow: on trajectories is not part of the agent-assay schema",
        "table runs: has row-level security on, so a policy can hide rows from a reader",
    ]
    repaired = invoke("migrate", "--repair", "--db", pg.owner)
    assert repaired.code == 2, repaired.out  # what a repair cannot put back stays a finding
    assert findings(pg) == [
        "table scores: has columns other than the ones this version creates",
        "constraint uq_trajectory_slot: is missing",
        "rule swallow: on trajectories is not part of the agent-assay schema",
        "table runs: has row-level security on, so a policy can hide rows from a reader",
    ]


def test_a_reader_cannot_write(backend: Backend) -> None:
    open_store(backend.db).close()
    engine = make_engine(backend.db, Access.READ)
    with pytest.raises((DatabaseError, AssayError)) as refused, engine.begin() as conn:
        conn.execute(text("INSERT INTO store_repairs (restored, detail, at) VALUES ('x','y','z')"))
    engine.dispose()
    assert "read-only" in str(refused.value)
    assert backend.scalar("SELECT count(*) FROM store_repairs") == 0


def one_line_error(*args: str) -> str:
    done = invoke(*args)
    assert done.code != 0 and done.traceback is None, done.err
    lines = done.err.strip().splitlines()
    assert len(lines) == 1, done.err
    return lines[0]


def test_an_unreachable_server_is_one_line_with_the_password_masked() -> None:
    line = one_line_error("runs", "list", "--db", "postgresql+psycopg://u:hunter2@127.0.0.1:9/x")
    assert line.startswith("error: --db postgresql+psycopg://u:***@127.0.0.1:9/x: cannot connect:")
    assert "hunter2" not in line


def test_wrong_credentials_are_one_line_and_nothing_is_written(pg: Backend,
                                                               pg_server: PgServer) -> None:
    database = pg.db.rsplit("/", 1)[1]
    wrong = pg_server.url(database, pg_server.role, "not-the-password")
    line = one_line_error("run", "--adapter", "banking", "--config", "mock", "--limit", "2",
                          "--db", wrong)
    assert "password authentication failed" in line and "not-the-password" not in line
    assert pg.scalar("SELECT count(*) FROM runs") == 0


def test_an_empty_database_is_refused_by_readers_and_by_a_role_that_cannot_create(
    pg_server: PgServer,
) -> None:
    database = pg_server.new_database()
    from agent_assay.store.database import provision

    provision(pg_server.url(database), None)  # the schema exists ...
    bare = pg_server.new_database()  # ... here it does not, and the role may not create it
    with pytest.raises(AssayError):  # the role has no grant on `bare` yet
        open_store(pg_server.url(bare, pg_server.role, pg_server.role_password))
    owner = pg_server.url(bare)
    line = one_line_error("runs", "list", "--db", owner)
    assert "the database holds no agent-assay tables" in line and "assay-admin" not in line
    assert "store init --db postgresql+psycopg://assay_admin:***@" in line


def test_a_missing_driver_is_one_line() -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from agent_assay.cli import run_cli\n"
        "sys.exit(run_cli(['runs', 'list', '--db', 'postgresql://u:pw@127.0.0.1:5432/x']))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=cli_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr.strip() == (
        "error: --db postgresql://u:***@127.0.0.1:5432/x: the PostgreSQL driver is not "
        "installed (pip install 'agent-assay[postgres]')"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--role", "x"], "--role applies to PostgreSQL stores"),
        (["--role-password-env", "AA_NOT_SET_ANYWHERE", "--role", "x"],
         "--role-password-env AA_NOT_SET_ANYWHERE: that variable is not set"),
    ],
)
def test_store_init_refusals_on_sqlite(tmp_path: object, args: list[str], message: str) -> None:
    line = one_line_error("store", "init", *args, "--db", f"{tmp_path}/a.db")
    assert message in line


def test_store_init_refuses_a_role_that_could_switch_the_guards_off(pg: Backend,
                                                                   pg_server: PgServer) -> None:
    owner = pg.owner
    line = one_line_error("store", "init", "--role", "assay_admin", "--db", owner)
    assert "is the role running `store init`" in line
    owner_runs(pg, "CREATE ROLE sly_owner", "ALTER TABLE scores OWNER TO sly_owner")
    line = one_line_error("store", "init", "--role", "sly_owner", "--db", owner)
    assert "--role sly_owner owns scores, and an owner can disable its triggers" in line
    done = invoke("store", "init", "--role", pg_server.role, "--db", owner)
    assert done.code == 0 and "adopted" in done.out, done.err
