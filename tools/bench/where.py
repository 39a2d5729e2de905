"""`make bench-where`: where the write path's CPU goes, by the part of the code that spends it.

    python -m tools.bench.where [--trajectories 10000] [--out reports/bench/where.json]

A no-op run (tools.bench.core.NoopAdapter: the agent hands back a prepared trajectory) is
written by the real runner under cProfile, timed in CPU seconds of this process (the agent
process's own CPU is not the write path's), and each function's own time is charged to the
part of the code it belongs to, by the file it is defined in. A built-in (a C function:
SQLite's execute, the JSON encoder, SHA-256) has no file of its own, so its time is
charged to its callers, in proportion to what each caller spent in it. The profiler slows
every call alike, so the shares are what the figure means, not the seconds; the total
without the profiler is the harness's figure in reports/bench/floor.json.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tools.bench.output import machine, write_figures

ROOT = Path(__file__).resolve().parents[2]

PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("scoring", ("agent_assay/scoring/",)),
    ("checkpoint", ("agent_assay/store/evidence/", "agent_assay/store/facade/written.py")),
    ("row encoding and digests", ("agent_assay/store/encoding/", "agent_assay/hashing.py",
                                  "agent_assay/statepaths.py", "json/", "hashlib")),
    ("statements and commits", ("agent_assay/store/facade/", "agent_assay/store/database/",
                                "sqlalchemy/", "sqlite3")),
    ("runner", ("agent_assay/runner.py", "agent_assay/run_context.py",
                "agent_assay/executors/", "agent_assay/model.py")),
    ("talking to the agent process", ("agent_assay/hosting/", "pickle", "posix.read",
                                      "posix.write", "epoll")),
)
"""Each part of the code and the paths (or built-in module names) that belong to it, in the
order they are tried; anything else is `other`."""


def part_of(where: str) -> str:
    for part, marks in PARTS:
        if any(mark in where for mark in marks):
            return part
    return "other"


def _where(func: tuple[str, int, str]) -> str:
    filename, _, name = func
    return name if filename == "~" else filename


def charged(stats: dict[Any, Any]) -> Counter[str]:
    """Each function's own time by part; a built-in's is split among its callers."""
    parts: Counter[str] = Counter()
    for func, (_, _, own, _, callers) in stats.items():
        if func[0] != "~" or not callers:
            parts[part_of(_where(func))] += own
            continue
        by_caller = {caller: figures[2] for caller, figures in callers.items()}
        total = sum(by_caller.values()) or 1.0
        named = part_of(_where(func))
        for caller, spent in by_caller.items():
            part = named if named != "other" else part_of(_where(caller))
            parts[part] += own * spent / total
    return parts


def profiled_run(trajectories: int) -> tuple[Counter[str], int]:
    from agent_assay import api
    from agent_assay.runner import execute_run
    from agent_assay.store import open_store
    from tools.bench.core import N_ITEMS, NoopAdapter

    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "assay.db"))
        adapter = NoopAdapter()
        run = api.start(adapter, "noop", store=store, repeats=max(1, trajectories // N_ITEMS),
                        seed=0)
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        result = execute_run(store, adapter, run, progress=False)
        profile.disable()
        store.close()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return charged(stats), result.written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/where.json")
    args = parser.parse_args()
    parts, written = profiled_run(args.trajectories)
    total = sum(parts.values())
    write_figures(args.out, {
        "command": "make bench-where",
        "machine": machine(),
        "trajectories": written,
        "share": {part: round(spent / total, 4) for part, spent in parts.most_common()},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
