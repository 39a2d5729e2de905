"""Edit a copy of a store the way a dishonest editor would, so the docs can show what is caught.

Usage: python -m tools.cases.tamper_demo SOURCE_DB RUN TARGET_DB

Copies SOURCE_DB to TARGET_DB, then turns one failing trajectory.exact score of
RUN into a pass with plain SQL: the append-only trigger is dropped for the
UPDATE and put back afterwards, so the schema looks untouched. Prints the row
it changed. The original store is never opened for writing.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import struct
import sys
from pathlib import Path


def failing_exact(con: sqlite3.Connection, run_id: str) -> tuple[int, str, int, int] | None:
    """The first score set (by item, repetition) whose trajectory.exact is 0: its row id,
    slot, and the position of that value among the set's packed values."""
    rows = con.execute(
        "SELECT id, item_id, repetition, scorers, packed_values FROM score_sets "
        "WHERE run_id = ? ORDER BY item_id, repetition", (run_id,))
    for row_id, item_id, repetition, scorers, packed in rows:
        names = [entry[0] for entry in json.loads(scorers)]
        if "trajectory.exact" not in names:
            continue
        at = names.index("trajectory.exact")
        (value,) = struct.unpack("<d", bytes.fromhex(packed[at * 16:(at + 1) * 16]))
        if value == 0.0:
            return row_id, item_id, repetition, at
    return None


def main(source: Path, run_id: str, target: Path) -> int:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    found = failing_exact(con, run_id)
    if found is None:
        print(f"error: run {run_id} has no failing trajectory.exact score", file=sys.stderr)
        return 2
    row_id, item_id, repetition, at = found
    (trigger_sql,) = con.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'score_sets_no_update'"
    ).fetchone()
    one = struct.pack("<d", 1.0).hex()
    with con:
        con.execute("DROP TRIGGER score_sets_no_update")
        con.execute(
            "UPDATE score_sets SET packed_values = substr(packed_values, 1, ?) || ? || "
            "substr(packed_values, ?) WHERE id = ?", (at * 16, one, (at + 1) * 16 + 1, row_id))
        con.execute(trigger_sql)
    con.close()
    print(
        f"score set {row_id} ({item_id}/{repetition}) trajectory.exact set from 0.0 to 1.0 "
        "with the append-only trigger dropped, then put back"
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])))
