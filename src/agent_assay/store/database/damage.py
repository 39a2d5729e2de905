"""Say in one line what is wrong with a store the database engine itself cannot read.

Run only after a read failed. Each table and index is read on its own, so
the damaged one can be named; when they all read, SQLite's integrity_check is
asked, and the b-tree it names by root page is mapped back to its table.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from agent_assay.errors import AssayError, TamperedEvidence
from agent_assay.store.database.engine import read_only_sqlite, store_path
from agent_assay.store.database.postgres import is_server_url, masked

_TREE = re.compile(r"\bTree (\d+)\b")
ERROR_CHARS = 160
_DAMAGE = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def disk_full(error: str) -> bool:
    """SQLite's SQLITE_FULL ("database or disk is full") or the system's ENOSPC."""
    text = error.lower()
    return "disk is full" in text or "no space left" in text


def short(text: str) -> str:
    """A database error message in one line of bounded length (it can quote a whole row)."""
    text = " ".join(text.split())
    return text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS] + "..."


def _unreadable_objects(con: sqlite3.Connection) -> list[str]:
    """Tables and indexes that cannot be read through, each tried on its own."""
    found: list[str] = []
    objects = con.execute(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index') "
        "AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    for kind, name, table in objects:
        query = (
            f'SELECT * FROM "{name}"'
            if kind == "table"
            else f'SELECT count(*) FROM "{table}" INDEXED BY "{name}"'
        )
        try:
            for _ in con.execute(query):
                pass
        except sqlite3.Error as exc:
            found.append(f"{kind} {name} ({short(str(exc))})")
    return found


def _named(con: sqlite3.Connection, checked: list[str]) -> list[str]:
    """SQLite's check lines with each b-tree it names by root page ("Tree 23") named as the
    table or index it is, when sqlite_master can still be read."""
    try:
        names = {int(page): name for name, page in con.execute(
            "SELECT name, rootpage FROM sqlite_master WHERE rootpage > 0")}
    except sqlite3.Error:
        return checked
    return [_TREE.sub(lambda m: names.get(int(m.group(1)), m.group(0)), c) for c in checked]


def damage_report(path: Path) -> list[str]:
    """What is damaged in the SQLite file at `path`, one line each; [] when nothing is.

    integrity_check reads everything once; only when it fails (or cannot finish) is each
    table and index read on its own, to name the damaged ones.
    """
    try:
        with read_only_sqlite(path) as con:
            return _damage(con)
    except sqlite3.Error as exc:
        return [short(str(exc))]


def quick_check(db: str) -> None:
    """Refuse, in one line naming the damage, an SQLite store whose b-trees SQLite's own
    quick_check finds damaged: a command that reads only some pages would otherwise print
    figures from a file it cannot vouch for, exit 0. The check reads every page once and
    stops at the first problem (integrity_check, which `verify` runs, also compares each
    index with its table); naming the damaged table or index is only done on damage."""
    path = store_path(db)
    try:
        with read_only_sqlite(path) as con:
            con.text_factory = _tolerant
            found = [line for (line,) in con.execute("PRAGMA quick_check(1)")]
            if found != ["ok"]:
                found = _unreadable_objects(con) or _named(con, found)
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in _DAMAGE:  # busy, cannot open
            raise AssayError(f"the store at {db} cannot be read: {short(str(exc))}") from exc
        found = [str(exc)]
    if found != ["ok"]:
        said = " ".join(found).replace("*** in database main ***", "")
        raise TamperedEvidence(f"the store at {db} is damaged: {short(said)} (SQLite's "
                               f"quick_check; `agent-assay verify --db {db}` lists what it can)")


def _tolerant(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _damage(con: sqlite3.Connection) -> list[str]:
    con.text_factory = _tolerant
    try:
        try:
            checked = [line for (line,) in con.execute("PRAGMA integrity_check(20)")]
        except sqlite3.Error as exc:
            return _unreadable_objects(con) or [short(str(exc))]
        if checked == ["ok"]:
            return []
        return _unreadable_objects(con) or _named(con, checked)
    except sqlite3.Error as exc:
        return [short(str(exc))]


def damage_error(db: str, error: str) -> AssayError:
    """One line: the store, its first damaged table or index (or integrity problem), how many.
    A damaged file exits TAMPERED (its evidence cannot be checked); a store that could not
    be reached, read or written exits ERROR."""
    try:
        path: Path | None = store_path(db)
    except AssayError:
        path = None
    problems = damage_report(path) if path is not None and path.is_file() else []
    if path is None and is_server_url(db):
        return AssayError(f"the store at {masked(db)} returned an error: {short(error)}")
    if disk_full(error):
        return AssayError(f"the store at {db} cannot be written: the disk is full "
                          f"({short(error)})")
    if not problems:
        return AssayError(f"the store at {db} cannot be read: {short(error)}")
    more = f"; {len(problems) - 1} more" if len(problems) > 1 else ""
    return TamperedEvidence(
        f"the store at {db} is damaged: {short(problems[0])}{more} "
        f"(`agent-assay verify --db {db}` lists what it can)"
    )
