"""Is a PostgreSQL store's schema the one this version creates? And put back its guards.

PostgreSQL rewrites DDL into its own canonical text, so the check reads the
catalog instead of comparing SQL: every guard trigger exists on its table, fires
BEFORE the right event at the right level, calls the right function and is
enabled; every guard function has exactly the body this version writes; no
other trigger sits on an agent-assay table (one could rewrite rows as they
arrive); every table and named index is there. `repair` recreates guards and
indexes (never tables) and re-enables disabled triggers.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, ForeignKeyConstraint, Index, UniqueConstraint, text
from sqlalchemy.dialects import postgresql

from agent_assay.findings import Finding
from agent_assay.store.database import postgres_ddl, schema
from agent_assay.store.database.postgres_ddl import Trigger

# pg_trigger.tgtype bits
_ROW, _BEFORE, _INSERT, _DELETE, _UPDATE, _TRUNCATE = 1, 2, 4, 8, 16, 32
_EVENT_BITS = {"INSERT": _INSERT, "DELETE": _DELETE, "UPDATE": _UPDATE, "TRUNCATE": _TRUNCATE}
ENABLED = ("O", "A")
"""tgenabled values under which a trigger fires for an ordinary session."""


def expected_triggers() -> list[Trigger]:
    tables = schema.metadata.tables
    guards = [t for table in tables for t in postgres_ddl.append_only_triggers(table)]
    return guards + postgres_ddl.chain_triggers()


def _tgtype(trigger: Trigger) -> int:
    return _BEFORE | _EVENT_BITS[trigger.event] | (_ROW if trigger.per_row else 0)


@dataclass(frozen=True, slots=True)
class _StoredTrigger:
    table: str
    tgtype: int
    function: str
    enabled: str
    definition: str
    """pg_get_triggerdef: catches a WHEN clause, an UPDATE OF column list, arguments."""


def _stored_triggers(conn: Connection) -> dict[str, _StoredTrigger]:
    rows = conn.execute(
        text(
            "SELECT t.tgname, c.relname, t.tgtype, p.proname, t.tgenabled, "
            "pg_get_triggerdef(t.oid) FROM pg_trigger t "
            "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "JOIN pg_proc p ON p.oid = t.tgfoid "
            "WHERE NOT t.tgisinternal AND n.nspname = current_schema()"
        )
    ).all()
    return {r[0]: _StoredTrigger(r[1], int(r[2]), r[3], str(r[4]), r[5]) for r in rows}


def _function_bodies(conn: Connection) -> dict[str, str]:
    """Each guard function's body; one in another language, or with settings of its own (a
    `SET search_path` would point its lookups at other tables), reads as altered."""
    rows = conn.execute(
        text(
            "SELECT p.proname, p.prosrc, l.lanname, p.proconfig IS NULL FROM pg_proc p "
            "JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l "
            "ON l.oid = p.prolang WHERE n.nspname = current_schema() "
            "AND p.proname = ANY(:names)"
        ),
        {"names": list(postgres_ddl.FUNCTION_BODIES)},
    ).all()
    return {r[0]: r[1] if r[2] == "plpgsql" and r[3] else "" for r in rows}


def _schema_name(conn: Connection) -> str:
    return str(conn.execute(text("SELECT current_schema()")).scalar_one())


def _tables(conn: Connection) -> set[str]:
    rows = conn.execute(
        text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
    ).scalars()
    return set(rows)


def _indexes(conn: Connection) -> dict[str, bool]:
    """Named indexes of the schema, and whether each is unique."""
    rows = conn.execute(
        text(
            "SELECT c.relname, i.indisunique FROM pg_index i JOIN pg_class c "
            "ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema()"
        )
    ).all()
    return {r[0]: bool(r[1]) for r in rows}


_TYPE_NAMES = {
    "TEXT": "text",
    "INTEGER": "integer",
    "BIGINT": "bigint",
    "FLOAT": "double precision",
    "BOOLEAN": "boolean",
}


def expected_columns() -> dict[str, dict[str, tuple[str, bool]]]:
    """table -> column -> (PostgreSQL type, NOT NULL), as the migrations create them."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    return {
        name: {
            column.name: (_TYPE_NAMES[column.type.compile(dialect=dialect)], not column.nullable)
            for column in table.columns
        }
        for name, table in schema.metadata.tables.items()
    }


def _columns(conn: Connection) -> dict[str, dict[str, tuple[str, bool]]]:
    rows = conn.execute(
        text(
            "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull "
            "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relkind = 'r' "
            "AND c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 "
            "AND NOT a.attisdropped"
        )
    ).all()
    found: dict[str, dict[str, tuple[str, bool]]] = {}
    for table, column, kind, not_null in rows:
        found.setdefault(table, {})[column] = (kind, bool(not_null))
    return found


def expected_constraints() -> dict[str, tuple[str, str]]:
    """name -> (table, kind p/u/f): keys, the trajectory slot's uniqueness, references,
    under the names PostgreSQL gives them."""
    found: dict[str, tuple[str, str]] = {}
    for name, table in schema.metadata.tables.items():
        found[f"{name}_pkey"] = (name, "p")
        for constraint in table.constraints:
            if isinstance(constraint, UniqueConstraint) and constraint.name:
                found[str(constraint.name)] = (name, "u")
            elif isinstance(constraint, ForeignKeyConstraint):
                columns = "_".join(constraint.column_keys)
                found[f"{name}_{columns}_fkey"] = (name, "f")
    return found


def _constraints(conn: Connection) -> dict[str, tuple[str, str]]:
    rows = conn.execute(
        text(
            "SELECT con.conname, c.relname, con.contype FROM pg_constraint con JOIN pg_class c "
            "ON c.oid = con.conrelid WHERE con.connamespace = current_schema()::regnamespace"
        )
    ).all()
    return {r[0]: (r[1], str(r[2])) for r in rows}


def _rewriting_objects(conn: Connection) -> list[Finding]:
    """What could change what a reader sees without touching a row: a rule (which can
    rewrite or swallow an INSERT, or answer a SELECT with something else), and row-level
    security (whose policies can hide rows from the harness's role)."""
    tables = list(schema.metadata.tables)
    rules = conn.execute(
        text(
            "SELECT rulename, tablename FROM pg_rules WHERE schemaname = current_schema() "
            "AND tablename = ANY(:tables) ORDER BY rulename"
        ),
        {"tables": tables},
    ).all()
    found = [Finding(f"rule {r[0]}", f"on {r[1]} is not part of the agent-assay schema")
             for r in rules]
    secured = conn.execute(
        text(
            "SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace "
            "AND relname = ANY(:tables) AND (relrowsecurity OR relforcerowsecurity) "
            "ORDER BY relname"
        ),
        {"tables": tables},
    ).scalars()
    found += [Finding(f"table {name}", "has row-level security on, so a policy can hide rows "
                      "from a reader") for name in secured]
    return found


def _expected_indexes() -> list[Index]:
    return [index for table in schema.metadata.tables.values() for index in table.indexes]


def canonical_definition(trigger: Trigger, schema_name: str) -> str:
    """The trigger as pg_get_triggerdef prints it when nothing was added to it."""
    level = "ROW" if trigger.per_row else "STATEMENT"
    return (
        f"CREATE TRIGGER {trigger.name} BEFORE {trigger.event} ON {schema_name}.{trigger.table} "
        f"FOR EACH {level} EXECUTE FUNCTION {trigger.function}()"
    )


TRIGGER_PROBLEMS = {
    "missing": "is missing (`agent-assay migrate --repair`)",
    "altered": "differs from the one this version creates",
    "disabled": "is disabled, so it refuses nothing (`agent-assay migrate --repair`)",
}


def _trigger_state(want: Trigger, have: _StoredTrigger | None, schema_name: str) -> str | None:
    """What is wrong with a guard (a key of TRIGGER_PROBLEMS), or None."""
    if have is None:
        return "missing"
    if (have.table, have.tgtype, have.function) != (want.table, _tgtype(want), want.function) \
            or have.definition != canonical_definition(want, schema_name):
        return "altered"
    return "disabled" if have.enabled not in ENABLED else None


def schema_findings(conn: Connection) -> list[Finding]:
    """Every table, index, guard function and trigger that is missing, altered, disabled
    or unexpected."""
    tables = _tables(conn)
    return [*_table_findings(tables), *_function_findings(conn), *_trigger_findings(conn),
            *_column_findings(conn, tables), *_rewriting_objects(conn),
            *_index_findings(conn)]


def _table_findings(tables: set[str]) -> list[Finding]:
    found = [Finding(f"table {name}", "is missing")
             for name in sorted(schema.metadata.tables.keys() - tables)]
    found += [Finding(f"table {name}", "is not part of the agent-assay schema")
              for name in sorted(tables - schema.metadata.tables.keys())]
    return found


def _function_findings(conn: Connection) -> list[Finding]:
    found: list[Finding] = []
    bodies = _function_bodies(conn)
    for name, body in postgres_ddl.FUNCTION_BODIES.items():
        if name not in bodies:
            found.append(Finding(f"function {name}", "is missing (`agent-assay migrate --repair`)"))
        elif bodies[name] != body:
            found.append(Finding(f"function {name}", "differs from the one this version creates"))
    return found


def _trigger_findings(conn: Connection) -> list[Finding]:
    found: list[Finding] = []
    stored = _stored_triggers(conn)
    here = _schema_name(conn)
    wanted = {t.name: t for t in expected_triggers()}
    for name, trigger in sorted(wanted.items()):
        state = _trigger_state(trigger, stored.get(name), here)
        if state:
            found.append(Finding(f"trigger {name}", TRIGGER_PROBLEMS[state]))
    found += [Finding(f"trigger {name}", "is not part of the agent-assay schema")
              for name in sorted(stored.keys() - wanted.keys())
              if stored[name].table in schema.metadata.tables]
    return found


def _column_findings(conn: Connection, tables: set[str]) -> list[Finding]:
    """Tables whose columns differ, then constraints that are missing."""
    have_columns = _columns(conn)
    found = [Finding(f"table {name}", "has columns other than the ones this version creates")
             for name, columns in sorted(expected_columns().items())
             if name in tables and have_columns.get(name) != columns]
    have_constraints = _constraints(conn)
    found += [Finding(f"constraint {name}", "is missing")
              for name, where in sorted(expected_constraints().items())
              if have_constraints.get(name) != where and where[0] in tables]
    return found


def _index_findings(conn: Connection) -> list[Finding]:
    found: list[Finding] = []
    indexes = _indexes(conn)
    for index in _expected_indexes():
        name = str(index.name)
        if name not in indexes:
            found.append(Finding(f"index {name}", "is missing (`agent-assay migrate --repair`)"))
        elif indexes[name] != bool(index.unique):
            found.append(Finding(f"index {name}", "differs from the one this version creates"))
    return found


def repair(conn: Connection) -> list[str]:
    """Recreate what `schema_findings` finds missing or altered, inside the caller's
    transaction; return what was restored (an index that cannot be rebuilt is left to the
    caller, which sees the error)."""
    restored: list[str] = []
    bodies = _function_bodies(conn)
    for name, body in postgres_ddl.FUNCTION_BODIES.items():
        if bodies.get(name) != body:
            conn.execute(text(postgres_ddl.function_ddl(name)))
            restored.append(f"function {name}")
    stored = _stored_triggers(conn)
    here = _schema_name(conn)
    for trigger in expected_triggers():
        have = stored.get(trigger.name)
        state = _trigger_state(trigger, have, here)
        if state is None:
            continue
        if state == "disabled":
            conn.execute(text(f"ALTER TABLE {trigger.table} ENABLE TRIGGER {trigger.name}"))
        else:
            if have is not None:
                conn.execute(text(f"DROP TRIGGER {trigger.name} ON {have.table}"))
            conn.execute(text(trigger.ddl()))
        restored.append(f"trigger {trigger.name}")
    wanted = {t.name for t in expected_triggers()}
    for name, have in sorted(stored.items()):
        if name not in wanted and have.table in schema.metadata.tables:
            quoted = postgres_ddl.quote_identifier(name)
            conn.execute(text(f"DROP TRIGGER {quoted} ON {have.table}"))
            restored.append(f"removed trigger {name}")
    return restored


def missing_indexes(conn: Connection) -> list[Index]:
    """The named indexes this version creates that the store lacks."""
    have = _indexes(conn)
    return [index for index in _expected_indexes() if str(index.name) not in have]


def guard_holder_notes(conn: Connection) -> list[str]:
    """Who, among those this connection speaks as, could switch the guards off unseen: a
    superuser or a table's owner. Said as a note, since the chain still catches any edit
    they make; a harness role set up by `store init` gets none."""
    row = conn.execute(
        text(
            "SELECT current_user, r.rolsuper, (SELECT string_agg(c.relname, ', ' ORDER BY "
            "c.relname) FROM pg_class c WHERE c.relowner = r.oid AND c.relkind = 'r' AND "
            "c.relnamespace = current_schema()::regnamespace) FROM pg_roles r "
            "WHERE r.rolname = current_user"
        )
    ).one()
    user, superuser, owned = row
    if superuser:
        return [f"connected as {user}, a superuser, who can switch every guard off "
                "(the chain is what this verification rests on)"]
    if owned:
        return [f"connected as {user}, who owns the tables and can disable their triggers "
                "(the chain is what this verification rests on)"]
    return []
