"""Edit a copy of a store the way a dishonest editor would, so the docs can show what is caught.

Usage: python tools/tamper_demo.py SOURCE_DB RUN TARGET_DB

Copies SOURCE_DB to TARGET_DB, then turns one failing trajectory.exact score of
RUN into a pass with plain SQL: the append-only trigger is dropped for the
UPDATE and put back afterwards, so the schema looks untouched. Prints the row
it changed. The original store is never opened for writing.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path


def main(source: Path, run_id: str, target: Path) -> int:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    row = con.execute(
        "SELECT id, item_id, repetition FROM scores WHERE run_id = ? AND scorer = "
        "'trajectory.exact' AND value = 0 ORDER BY item_id, repetition LIMIT 1",
        (run_id,),
    ).fetchone()
    if row is None:
        print(f"error: run {run_id} has no failing trajectory.exact score", file=sys.stderr)
        return 2
    (trigger_sql,) = con.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'scores_no_update'"
    ).fetchone()
    with con:
        con.execute("DROP TRIGGER scores_no_update")
        con.execute("UPDATE scores SET value = 1.0 WHERE id = ?", (row[0],))
        con.execute(trigger_sql)
    con.close()
    print(
        f"scores row {row[0]} ({row[1]}/{row[2]} trajectory.exact) set from 0.0 to 1.0 "
        "with the append-only trigger dropped, then put back"
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])))
