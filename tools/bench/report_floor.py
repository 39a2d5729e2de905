"""The floor `make bench-report` holds `agent-assay report` to: the least a fresh process
must do to say what the report says about a run with a checkpoint.

    python tools/bench/report_floor.py DB QUERIES.json

Run as a script (not `-m`), so it imports nothing of agent_assay, SQLAlchemy or SciPy:
only sqlite3, hashlib, json, itertools and NumPy. It

0. runs SQLite's `PRAGMA quick_check(1)` on DB, as the report does before it reads a
   store (so a damaged file is refused rather than half read): the same guarantee, at
   the least it can cost;
1. opens DB read-only with Python's sqlite3 and reads the run's ledger; finds its first
   checkpoint block and the `through` and `stream` its detail records;
2. reads the rows the report's integrity check reads, with the very SELECTs it runs
   (QUERIES.json, compiled by the benchmark from `store.evidence.checkpoint`: each chained
   table's rows of the run, small columns as the driver gives them, long text as its
   SQLite type and its bytes, a score set's "is its trajectory the run's" flag, then the
   later attempts), fetched in batches of 2000 from the driver's cursor;
3. hashes the same bytes the same way as the checkpoint's stream (SHA-256 over the
   ledger entries through the checkpoint, then each table, 1000 rows at a time: one
   compact JSON array of the small columns and the long columns' lengths, then the long
   columns' bytes), and says whether the digest equals the one the checkpoint records;
4. computes the means the report's figures show, per metric: the mean over items of each
   item's mean across repetitions, from the score sets' packed float64 values (NaN, no
   value, left out), decoding the bytes it already read (the report reads them again).

Like the report (`agent_assay.collector`), it runs with Python's cyclic garbage collector
off: its passes over the rows held would cost the floor a twelfth of its CPU at a million
scores and free nothing.

It does not check the blocks after the checkpoint, the schema, the slots, the suite or
the config, nor compute an interval or render anything, and trusts that every score set
names the same scorers: everything else the report does is overhead over this floor.
Prints one JSON line: the digest, whether it matches, rows read and the means (which
`make bench-report` holds to the means `report --json` shows).
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import json
import sqlite3
import sys
from typing import Any

import numpy as np

CHUNK = 1000
BATCH = 2000


def _blob(value: object) -> list[str]:
    if isinstance(value, bytes | bytearray | memoryview):
        return ["b", bytes(value).hex()]
    raise TypeError(type(value).__name__)


ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False,
                          default=_blob).encode


def rows_of(con: sqlite3.Connection, sql: str, params: list[Any]) -> Any:
    cursor = con.execute(sql, params)
    while batch := cursor.fetchmany(BATCH):
        yield from batch


def hash_rows(hasher: Any, rows: Any, n_bytes: int) -> Any:
    for chunk in itertools.batched(rows, CHUNK):
        columns = list(zip(*chunk, strict=True))
        split = len(columns) - n_bytes
        lengths = [list(map(len, column)) for column in columns[split:]]
        hasher.update(ENCODE([columns[:split], lengths]).encode("utf-8", "surrogatepass"))
        for column in columns[split:]:
            hasher.update(b"".join(column))
        yield columns


def params_of(raw: list[Any]) -> list[Any]:
    return [bytes.fromhex(p["hex"]) if isinstance(p, dict) else p for p in raw]


def main(db: str, queries_file: str) -> None:
    with open(queries_file, encoding="utf-8") as file:
        queries = json.load(file)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    if con.execute("PRAGMA quick_check(1)").fetchone() != ("ok",):
        sys.exit(f"{db}: SQLite's quick_check finds it damaged")
    sql, params = queries["ledger"]
    ledger = list(rows_of(con, sql, params_of(params)))
    at = next(i for i, row in enumerate(ledger) if row[1] == "checkpoint")
    claim = json.loads(ledger[at][6].decode("utf-8"))
    through = claim["through"]
    hasher = hashlib.sha256(f"{queries['stream']}\x1f{queries['run_id']}\x1f{through}"
                            "\x1eledger".encode())
    for _ in hash_rows(hasher, (r for r in ledger[:at] if r[0] <= through), 1):
        pass
    rows = 0
    packed: list[bytes] = []
    items: list[str] = []
    scorers: set[bytes] = set()
    for table in queries["tables"]:
        sql, params, n_bytes = table["sql"], table["params"], table["n_bytes"]
        hasher.update(f"\x1e{table['name']}".encode())
        for columns in hash_rows(hasher, rows_of(con, sql, params_of(params)), n_bytes):
            rows += len(columns[0])
            if table["name"] == "score_sets":
                items.extend(columns[0])
                scorers.update(columns[-3])
                packed.extend(columns[-2])
    for table in queries["attempts"]:
        found = list(rows_of(con, table["sql"], params_of(table["params"])))
        if found:
            hasher.update(f"\x1eattempts of {table['name']}".encode())
            for _ in hash_rows(hasher, found, 0):
                pass
    digest = hasher.hexdigest()
    names = [s[0] for s in json.loads(next(iter(scorers)))] if scorers else []
    flat = np.frombuffer(bytes.fromhex(b"".join(packed).decode("ascii")), dtype="<f8")
    values = flat.reshape(len(packed), len(names)) if names else flat.reshape(0, 0)
    # rows come in slot order (item, repetition): each item's rows are contiguous
    keys, starts = np.unique(np.asarray(items, dtype=object), return_index=True)
    starts.sort()
    ends = np.append(starts[1:], len(items))
    means: dict[str, float | None] = {}
    for j, name in enumerate(names):
        column = values[:, j]
        item_means = [m for a, b in zip(starts, ends, strict=True)
                      if (m := _nanmean(column[a:b])) is not None]
        means[name] = float(np.mean(item_means)) if item_means else None
    print(json.dumps({"digest": digest, "matches": digest == claim["stream"], "rows": rows,
                      "items": len(keys), "means": means}))


def _nanmean(values: Any) -> float | None:
    present = values[~np.isnan(values)]
    return float(present.mean()) if present.size else None


if __name__ == "__main__":
    gc.disable()
    main(sys.argv[1], sys.argv[2])
