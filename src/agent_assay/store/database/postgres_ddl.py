"""PostgreSQL's half of the schema: the guards as PL/pgSQL, and the grants of the writer role.

The tables come from the same SQLAlchemy definitions as on SQLite; what SQLite says
with `RAISE(ABORT)` triggers is said here by three functions and one trigger per
guard. Row triggers refuse UPDATE and DELETE, a statement trigger refuses TRUNCATE
(which fires no row trigger), and the insert guards of the evidence chain refuse
unchained rows, broken links and unrecorded generations, with the same messages as
SQLite's so a reader meets one vocabulary on both backends.

A trigger stops the harness and anyone who connects as its role; it does not stop
the table's owner or a superuser, who can disable it or set
`session_replication_role = replica`. That is why the harness's role owns nothing
and holds SELECT and INSERT only, and why the chain, not the trigger, is what
`verify` relies on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from agent_assay.store.encoding import chain

REFUSE_FUNCTION: Final = "assay_append_only"
CHAINED_FUNCTION: Final = "assay_row_chained"
LINKS_FUNCTION: Final = "assay_ledger_links"
GENERATION_FUNCTION: Final = "assay_generation_recorded"

FUNCTION_BODIES: Final[dict[str, str]] = {
    REFUSE_FUNCTION: (
        "BEGIN RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP "
        "USING ERRCODE = 'restrict_violation'; END;"
    ),
    CHAINED_FUNCTION: (
        "BEGIN IF NEW.block IS NULL OR NEW.digest IS NULL THEN RAISE EXCEPTION "
        "'%: a row must carry its ledger block and its digest', TG_TABLE_NAME "
        "USING ERRCODE = 'integrity_constraint_violation'; END IF; RETURN NEW; END;"
    ),
    LINKS_FUNCTION: (
        "BEGIN IF NEW.seq IS DISTINCT FROM 1 + COALESCE((SELECT MAX(seq) FROM ledger "
        "WHERE run_id = NEW.run_id), 0) OR NEW.prev_digest IS DISTINCT FROM COALESCE(("
        "SELECT digest FROM ledger WHERE run_id = NEW.run_id AND seq = NEW.seq - 1), "
        f"'{chain.GENESIS}') THEN RAISE EXCEPTION 'ledger: a block must extend its run''s "
        "chain' USING ERRCODE = 'integrity_constraint_violation'; END IF; RETURN NEW; END;"
    ),
    GENERATION_FUNCTION: (
        "BEGIN IF NEW.generation > 0 AND NOT EXISTS (SELECT 1 FROM score_generations g "
        "WHERE g.run_id = NEW.run_id AND g.generation = NEW.generation) THEN RAISE "
        "EXCEPTION '%: a re-scoring generation must be recorded before its rows', "
        "TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation'; END IF; RETURN NEW; END;"
    ),
}


def function_ddl(name: str) -> str:
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql "
        f"AS $body${FUNCTION_BODIES[name]}$body$"
    )


@dataclass(frozen=True, slots=True)
class Trigger:
    """One guard: on which table, when, for what, calling which function."""

    name: str
    table: str
    event: str
    """INSERT, UPDATE, DELETE or TRUNCATE."""
    function: str

    @property
    def per_row(self) -> bool:
        return self.event != "TRUNCATE"

    def ddl(self) -> str:
        level = "ROW" if self.per_row else "STATEMENT"
        return (
            f"CREATE TRIGGER {self.name} BEFORE {self.event} ON {self.table} "
            f"FOR EACH {level} EXECUTE FUNCTION {self.function}()"
        )


def append_only_triggers(table: str) -> list[Trigger]:
    """The guards that refuse UPDATE, DELETE and TRUNCATE on `table`."""
    return [
        Trigger(f"{table}_no_{verb.lower()}", table, verb, REFUSE_FUNCTION)
        for verb in ("UPDATE", "DELETE", "TRUNCATE")
    ]


def chain_triggers(tables: Sequence[str] = chain.CHAINED_TABLES) -> list[Trigger]:
    """The chain's insert guards on `tables` (the chained tables of one era), as on SQLite."""
    guards = [Trigger(f"{table}_chained", table, "INSERT", CHAINED_FUNCTION) for table in tables]
    guards.append(Trigger("ledger_links", "ledger", "INSERT", LINKS_FUNCTION))
    guards += [
        Trigger(f"{table}_generation_recorded", table, "INSERT", GENERATION_FUNCTION)
        for table in chain.SCORE_TABLES
        if table in tables
    ]
    return guards


def role_grants(role: str, database: str, tables: list[str]) -> list[str]:
    """What the writer role may do: connect, read, append. It owns nothing, so it cannot
    disable a trigger or switch `session_replication_role`; UPDATE, DELETE and TRUNCATE
    are revoked outright, so even with a guard gone it could not rewrite a row."""
    quoted = quote_identifier(role)
    listed = ", ".join(tables)
    return [
        f"GRANT CONNECT ON DATABASE {quote_identifier(database)} TO {quoted}",
        f"GRANT USAGE ON SCHEMA public TO {quoted}",
        f"REVOKE ALL ON {listed} FROM {quoted}",
        f"GRANT SELECT, INSERT ON {listed} TO {quoted}",
        f"REVOKE UPDATE, DELETE, TRUNCATE ON {listed} FROM {quoted}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {quoted}",
    ]


def quote_identifier(name: str) -> str:
    """`name` as a PostgreSQL identifier, quoted so no name can smuggle in SQL."""
    return '"' + name.replace('"', '""') + '"'
