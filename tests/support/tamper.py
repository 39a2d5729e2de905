"""Edit stored scores the way someone with the database file could: drop the trigger that
forbids it, then UPDATE. What every "a tampered store shows no number" test starts from."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def tampered_copy(db: Path, copy: Path, *, set_value: str = "1", where: str = "value = 0",
                  params: tuple[object, ...] = ()) -> Path:
    """`copy` of `db` with `UPDATE scores SET value = <set_value> WHERE <where>` applied
    behind the append-only trigger; the chain no longer matches the rows. The copy is made
    through SQLite, so what a write-ahead log still holds is in it too."""
    source = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        with sqlite3.connect(copy) as target:
            source.backup(target)
        target.close()
    finally:
        source.close()
    con = sqlite3.connect(copy)
    try:
        with con:
            con.execute("DROP TRIGGER scores_no_update")
            con.execute(f"UPDATE scores SET value = {set_value} WHERE {where}", params)
    finally:
        con.close()
    return copy


def behind_triggers(db: Path, *statements: str) -> None:
    """Run `statements` on `db` as someone with the file would to leave no trace: save every
    trigger's SQL, drop them all, make the edit, then create them again exactly as they were
    (so the schema check finds every trigger in place)."""
    con = sqlite3.connect(db)
    try:
        with con:
            triggers = con.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
            for name, _ in triggers:
                con.execute(f"DROP TRIGGER {name}")
            for statement in statements:
                con.execute(statement)
            for _, sql in triggers:
                con.execute(sql)
    finally:
        con.close()


def sql(db: Path, *statements: str, params: tuple[object, ...] = ()) -> None:
    """Run `statements` on `db` in one transaction, as someone holding the file would
    (`params` go to the statements that take them)."""
    con = sqlite3.connect(db)
    try:
        with con:
            for statement in statements:
                con.execute(statement, params if "?" in statement else ())
    finally:
        con.close()
