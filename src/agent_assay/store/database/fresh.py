"""A store a failed command created is taken away again.

Commands that write create their SQLite file when it does not exist, and some of what
they check (the items a selection names, a setting's type, a config) can only be checked
once the system has built its suite into the store. A command refused at that point has
written nothing anyone asked for, and must not leave a store behind that looks like a
place where something ran. Only a file that did not exist when the command started, is
an agent-assay store, and holds no run is removed; anything else is left as it is.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_assay.errors import AssayError
from agent_assay.store.database.engine import sqlite_uri, store_path
from agent_assay.store.database.postgres import is_server_url

SIDE_FILES = ("-wal", "-shm", "-journal")


def absent_store_file(db: str) -> Path | None:
    """The SQLite file `--db` names when it does not exist yet, else None (a PostgreSQL
    database is never created by a command, and a bad --db is refused elsewhere)."""
    if is_server_url(db):
        return None
    try:
        path = store_path(db)
    except AssayError:
        return None
    return None if path.exists() else path


def discard_if_unused(path: Path) -> bool:
    """Remove the store at `path` with its side files when it holds no run; True if it did.
    Called only for a file `absent_store_file` said did not exist before the command."""
    if not path.is_file():
        return False
    try:
        con = sqlite3.connect(sqlite_uri(path, "ro"), uri=True)
        try:
            runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:  # not a store (yet): not ours to judge
        return False
    if runs:
        return False
    for name in (str(path), *(f"{path}{suffix}" for suffix in SIDE_FILES)):
        Path(name).unlink(missing_ok=True)
    return True
