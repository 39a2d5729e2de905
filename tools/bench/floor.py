"""`make bench-floor`: the harness's CPU per trajectory beside the floor of storing its rows.

    python -m tools.bench.floor [--trajectories 10000] [--rounds 3] [--out reports/bench/floor.json]

The harness: a no-op run (tools.bench.core.NoopAdapter) through the real runner, sequentially:
the agent returns a prepared trajectory, so what is timed is scoring (13 scorers), the
evidence chain and the store. The floor: a minimal script that appends exactly the rows
that run left (each trajectory's ledger block, trajectory row and score set, read back
from the harness's database) into a fresh store made by the same migrations, so the
same tables, indexes and triggers, with the same pragmas, one transaction per
trajectory. The floor hashes, scores and encodes nothing: its rows are ready before its
clock starts. Rounds alternate harness and floor, so a neighbour process slows both;
the medians of CPU milliseconds per trajectory and their ratio are reported.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agent_assay import api
from agent_assay.model import Run
from agent_assay.runner import execute_run
from agent_assay.store import Store, open_store
from agent_assay.store.encoding import chain
from tools.bench.core import N_ITEMS, NoopAdapter
from tools.bench.output import machine, paired, write_figures

ROOT = Path(__file__).resolve().parents[2]

TARGET_RATIO = 2.0


def new_run(db: Path, repeats: int) -> tuple[Store, Run]:
    adapter = NoopAdapter()
    store = open_store(str(db))
    run = api.start(adapter, "noop", store=store, repeats=repeats, seed=0)
    return store, run


def harness_round(db: Path, repeats: int) -> float:
    """CPU ms per trajectory of the runner writing the no-op run into `db`."""
    store, run = new_run(db, repeats)
    started = time.process_time()
    result = execute_run(store, NoopAdapter(), run, progress=False)
    spent = time.process_time() - started
    store.close()
    return spent * 1000 / result.written


def _rows(db: Path, run_id: str, table: str, columns: tuple[str, ...], order: str
          ) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as con:
        return con.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE run_id = ? "
                           f"ORDER BY {order}", (run_id,)).fetchall()


LEDGER = ("run_id", "seq", "kind", "detail", "prev_digest", "digest", "at")
TRAJECTORY = (*chain.CONTENT_COLUMNS["trajectories"], "block", "digest")
SCORE_SET = (*chain.CONTENT_COLUMNS["score_sets"], "block", "digest")


def floor_round(template: Path, template_run: str, db: Path, repeats: int) -> float:
    """CPU ms per trajectory of appending the template run's trajectory blocks, as they
    are, to a fresh run in `db`: the least any harness must spend to store them."""
    store, run = new_run(db, repeats)
    store.close()
    blocks = [r for r in _rows(template, template_run, "ledger", LEDGER, "seq")
              if r[2] == "trajectory"]
    trajectories = {r[-2]: r for r in _rows(template, template_run, "trajectories",
                                            TRAJECTORY, "id")}
    sets = {r[-2]: r for r in _rows(template, template_run, "score_sets", SCORE_SET, "id")}
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA synchronous = NORMAL")
    con.execute("PRAGMA foreign_keys = ON")
    last_seq, last_digest = con.execute(
        "SELECT seq, digest FROM ledger WHERE run_id = ? ORDER BY seq DESC LIMIT 1",
        (run.run_id,)).fetchone()
    work = []
    for position, block in enumerate(blocks):  # renumbered to follow the new run's block 1
        seq = last_seq + 1 + position
        prev = last_digest if position == 0 else blocks[position - 1][5]
        ledger = (run.run_id, seq, block[2], block[3], prev, block[5], block[6])
        old = block[1]
        trajectory = (run.run_id, *trajectories[old][1:-2], seq, trajectories[old][-1])
        score_set = (run.run_id, *sets[old][1:-2], seq, sets[old][-1])
        work.append((ledger, trajectory, score_set))
    insert_ledger = f"INSERT INTO ledger ({', '.join(LEDGER)}) VALUES ({', '.join('?' * 7)})"
    insert_trajectory = (f"INSERT INTO trajectories ({', '.join(TRAJECTORY)}) VALUES "
                         f"({', '.join('?' * len(TRAJECTORY))}) RETURNING id")
    insert_set = (f"INSERT INTO score_sets (trajectory_id, {', '.join(SCORE_SET)}) VALUES "
                  f"({', '.join('?' * (len(SCORE_SET) + 1))})")
    started = time.process_time()
    for ledger, trajectory, score_set in work:
        con.execute("BEGIN")
        con.execute(insert_ledger, ledger)
        trajectory_id = con.execute(insert_trajectory, trajectory).fetchone()[0]
        con.execute(insert_set, (trajectory_id, *score_set))
        con.execute("COMMIT")
    spent = time.process_time() - started
    con.close()
    return spent * 1000 / len(work)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/floor.json")
    args = parser.parse_args()
    repeats = max(1, args.trajectories // N_ITEMS)
    harness: list[float] = []
    floor: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            template = Path(tmp) / f"harness{i}.db"
            harness.append(harness_round(template, repeats))
            with sqlite3.connect(template) as con:
                (template_run,) = con.execute("SELECT run_id FROM runs").fetchone()
            floor.append(floor_round(template, template_run, Path(tmp) / f"floor{i}.db",
                                     repeats))
            print(f"round {i + 1}: harness {harness[-1]:.4f} ms, floor {floor[-1]:.4f} ms "
                  "CPU per trajectory", flush=True)
    figures = paired({"harness": harness, "floor": floor}, 4)
    write_figures(args.out, {
        "command": "make bench-floor",
        "machine": machine(),
        "trajectories": repeats * N_ITEMS,
        **figures,
        "targets": {"ratio_max": TARGET_RATIO},
        "meets_targets": {"ratio": figures["ratio"] <= TARGET_RATIO},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
