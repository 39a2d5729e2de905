"""`make bench-floor`: the writer's CPU per trajectory beside a like-for-like floor.

    python -m tools.bench.floor [--trajectories 10000] [--rounds 5] [--out reports/bench/floor.json]

The harness: a no-op run (tools.bench.core.NoopAdapter) through the real runner
(`execute_run`), sequentially: the agent process hands over a prepared trajectory, so what
is timed (the writer process's CPU, `time.process_time`) is setting the run up, scoring
(13 scorers), encoding, the evidence chain, the store and the end-of-run checkpoint. The
groups of trajectories the runner commits together are recorded as it writes.

The floor, measured in the same process right after each harness round, against that
round's own database (the template):

- does: append exactly the rows that harness round left after the run's first block
  (each trajectory's ledger block, trajectory row and score set row, any base state
  blob, the `complete` event block and the checkpoint block), with the same bytes, into a
  fresh store made by the same migrations (so the same tables, indexes and triggers) with
  the same pragmas, in transactions of the same sizes as the harness's groups, one
  INSERT per row, reading each inserted trajectory's id back as the harness does; and
  compute, inside its timed region, every digest the harness computes while writing,
  over the same bytes with the same functions: each row's digest (`chain.row_digest`),
  each block's (`chain.block_digest`, linking the blocks), each trajectory's path digest
  (SHA-256 of its path's canonical JSON, which is prepared before the clock starts),
  each base state blob's digest, and one SHA-256 over the covered rows' values and
  digests and the ledger entries (the content the checkpoint's stream digest covers, in
  the floor's own encoding, taken from memory instead of read back from the database).
- does not: score, serialise JSON (payloads, score details, block details and the
  checkpoint's claim are the template's, ready before its clock starts), choose or diff
  base states, read the store back, walk or verify the chain, check the run's scorer set,
  look up the stored slots, or talk to an agent process.

Rounds alternate harness and floor, so a neighbour process slows both; the medians of
CPU milliseconds per trajectory and their ratio are reported.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_assay import api
from agent_assay.hashing import PATH, STATE, canonical_hash, canonical_json
from agent_assay.model import Run
from agent_assay.runner import execute_run
from agent_assay.store import Store, open_store
from agent_assay.store.encoding import chain
from tools.bench.core import N_ITEMS, NoopAdapter
from tools.bench.output import machine, paired, write_figures

ROOT = Path(__file__).resolve().parents[2]

TARGET_RATIO = 3.0


def new_run(db: Path, repeats: int) -> tuple[Store, Run]:
    adapter = NoopAdapter()
    store = open_store(str(db))
    run = api.start(adapter, "noop", store=store, repeats=repeats, seed=0)
    return store, run


def harness_round(db: Path, repeats: int) -> tuple[float, list[int]]:
    """CPU ms per trajectory of the runner writing the no-op run into `db`, and the sizes
    of the groups it committed, in order."""
    store, run = new_run(db, repeats)
    groups: list[int] = []
    write = store.write_prepared_group

    def recorded(run_id: str, group: Sequence[Any], attempts: Any = None) -> list[int]:
        groups.append(len(group))
        return write(run_id, group, attempts)

    store.write_prepared_group = recorded  # type: ignore[method-assign]
    started = time.process_time()
    result = execute_run(store, NoopAdapter(), run, progress=False)
    spent = time.process_time() - started
    store.close()
    return spent * 1000 / result.written, groups


def _rows(con: sqlite3.Connection, run_id: str, table: str, columns: tuple[str, ...],
          order: str) -> list[tuple[Any, ...]]:
    return con.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE run_id = ? "
                       f"ORDER BY {order}", (run_id,)).fetchall()


LEDGER = ("run_id", "seq", "kind", "detail", "prev_digest", "digest", "at")
TRAJECTORY = (*chain.CONTENT_COLUMNS["trajectories"], "block", "digest", "attempt")
SCORE_SET = (*chain.CONTENT_COLUMNS["score_sets"], "block", "digest", "attempt")
EVENT = (*chain.CONTENT_COLUMNS["run_events"], "block", "digest")


def _insert(table: str, columns: Sequence[str], returning: str = "") -> str:
    return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
            f"({', '.join('?' * len(columns))}){returning}")


def _path_text(payload: str) -> str:
    """The canonical JSON the harness hashes for a trajectory's path (`path_digest`)."""
    return canonical_json([step["call"] for step in json.loads(payload)["steps"]])


def _renamed(values: tuple[Any, ...], run_id: str) -> tuple[Any, ...]:
    return (run_id, *values[1:])


def floor_round(template: Path, groups: list[int], db: Path, repeats: int) -> float:
    """CPU ms per trajectory of appending the template run's blocks after its first, as
    they are, to a fresh run in `db`, hashing what the harness hashes (see the module)."""
    store, run = new_run(db, repeats)
    store.close()
    run_id = run.run_id
    with sqlite3.connect(template) as old:
        (old_run,) = old.execute("SELECT run_id FROM runs").fetchone()
        blocks = [b for b in _rows(old, old_run, "ledger", LEDGER, "seq") if b[1] > 1]
        trajectories = {r[-3]: r for r in _rows(old, old_run, "trajectories", TRAJECTORY, "id")}
        sets = {r[-3]: r for r in _rows(old, old_run, "score_sets", SCORE_SET, "id")}
        events = {r[-2]: r for r in _rows(old, old_run, "run_events", EVENT, "id")}
        blobs = old.execute("SELECT digest, payload FROM state_blobs").fetchall()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA synchronous = NORMAL")
    con.execute("PRAGMA foreign_keys = ON")
    last_seq, last_digest = con.execute(
        "SELECT seq, digest FROM ledger WHERE run_id = ? ORDER BY seq DESC LIMIT 1",
        (run_id,)).fetchone()
    work = []  # per block: its entry less its digests, its rows' content, attempt, path
    for position, (_, old_seq, kind, detail, _, _, at) in enumerate(blocks):
        seq = last_seq + 1 + position
        rows: list[tuple[str, tuple[Any, ...], int]] = []
        path = None
        if old_seq in trajectories:
            t = trajectories[old_seq]
            rows.append(("trajectories", _renamed(t[:6], run_id), t[-1]))
            path = _path_text(t[4]).encode()
            if old_seq in sets:
                s = sets[old_seq]
                rows.append(("score_sets", _renamed(s[:7], run_id), s[-1]))
        if old_seq in events:
            rows.append(("run_events", _renamed(events[old_seq][:4], run_id), 1))
        work.append((seq, kind, detail, at, rows, path))
    blob_texts = {digest: payload for digest, payload in blobs}
    statements = {
        "trajectories": _insert("trajectories", TRAJECTORY, " RETURNING id"),
        "score_sets": _insert("score_sets", ("trajectory_id", *SCORE_SET)),
        "run_events": _insert("run_events", EVENT),
    }
    insert_ledger = _insert("ledger", LEDGER)
    insert_blob = _insert("state_blobs", ("digest", "payload"), " ON CONFLICT DO NOTHING")
    # the last group (a lone checkpoint, the complete event) commit after the trajectories
    sizes = [*groups, *([1] * (len(work) - sum(groups)))]

    started = time.process_time()
    stream = hashlib.sha256()
    prev = last_digest
    for blob_digest, text in blob_texts.items():
        if canonical_hash(STATE, text) != blob_digest:
            raise SystemExit("a base state does not hash to its name")
    at_block = 0
    for size in sizes:
        con.execute("BEGIN")
        for seq, kind, detail, at, rows, path in work[at_block:at_block + size]:
            if path is not None:
                hashlib.sha256(PATH.encode() + b"\n" + path).hexdigest()
            digests = [chain.row_digest(table, content) for table, content, _ in rows]
            digest = chain.block_digest(run_id, seq, kind, prev, detail, digests)
            con.execute(insert_ledger, (run_id, seq, kind, detail, prev, digest, at))
            stream.update(f"{seq}\x1f{kind}\x1f{prev}\x1f{digest}\x1f{at}".encode())
            stream.update(detail.encode())
            trajectory_id = None
            for (table, content, attempt), row in zip(rows, digests, strict=True):
                if table == "trajectories":
                    values = (*content, seq, row, attempt)
                    trajectory_id = con.execute(statements[table], values).fetchone()[0]
                elif table == "score_sets":
                    values = (trajectory_id, *content, seq, row, attempt)
                    con.execute(statements[table], values)
                else:
                    con.execute(statements[table], (*content, seq, row))
                stream.update(repr(content[1:-1]).encode() + content[-1].encode()
                              if table == "trajectories" else repr(content[1:]).encode())
                stream.update(row.encode())
            prev = digest
        if at_block == 0:
            for blob in blob_texts.items():
                con.execute(insert_blob, blob)
        con.execute("COMMIT")
        at_block += size
    stream.hexdigest()
    spent = time.process_time() - started
    con.close()
    n = sum(1 for *_, path in work if path is not None)
    return spent * 1000 / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/floor.json")
    args = parser.parse_args()
    repeats = max(1, args.trajectories // N_ITEMS)
    harness: list[float] = []
    floor: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            template = Path(tmp) / f"harness{i}.db"
            spent, groups = harness_round(template, repeats)
            harness.append(spent)
            floor.append(floor_round(template, groups, Path(tmp) / f"floor{i}.db", repeats))
            print(f"round {i + 1}: harness {harness[-1]:.4f} ms, floor {floor[-1]:.4f} ms "
                  f"CPU per trajectory ({len(groups)} groups)", flush=True)
    figures = paired({"harness": harness, "floor": floor}, 4)
    write_figures(args.out, {
        "command": "make bench-floor",
        "machine": machine(),
        "trajectories": repeats * N_ITEMS,
        **figures,
        "harness_ms_per_trajectory": figures["median"]["harness"],
        "floor_ms_per_trajectory": figures["median"]["floor"],
        "floor": "like-for-like: the harness round's rows and bytes, its transaction "
                 "sizes, every digest it computes while writing (see tools/bench/floor.py)",
        "targets": {"ratio_max": TARGET_RATIO},
        "meets_targets": {"ratio": figures["ratio"] <= TARGET_RATIO},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
