"""`make bench-where`: where the write path's CPU goes, by the part of the code that spends it.

    python -m tools.bench.where [--trajectories 10000] [--out reports/bench/where.json]

A no-op run (tools.bench.core.NoopAdapter: the agent hands back a prepared trajectory) is
written by the real runner under cProfile, timed in CPU seconds of this process (the agent
process's own CPU is not the write path's), and each function's own time is charged to the
part of the code it belongs to, by the file it is defined in. A built-in (a C function:
SQLite's execute, the JSON encoder, SHA-256) has no file of its own, and the vocabulary
every part uses (`model.py`: a trajectory decoded from the agent's answer, say) and the
standard library's JSON belong to none, so their time is charged to their callers' parts
(through shared callers to theirs), in proportion to what each caller spent in them. The
profiler slows every call alike, so the shares are what the figure means, not the
seconds; the total without the profiler is the harness's figure in
reports/bench/floor.json.
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
    ("scoring", ("agent_assay/scoring/", "agent_assay/statepaths.py")),
    ("checkpoint", ("agent_assay/store/evidence/", "agent_assay/store/facade/written.py")),
    ("row encoding and digests", ("agent_assay/store/encoding/", "agent_assay/hashing.py",
                                  "hashlib")),
    ("statements and commits", ("agent_assay/store/facade/", "agent_assay/store/database/",
                                "sqlalchemy/", "sqlite3")),
    ("runner", ("agent_assay/runner.py", "agent_assay/run_context.py",
                "agent_assay/executors/")),
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


SHARED = ("agent_assay/model.py", "/json/", "/dataclasses.py", "/random.py")
"""Files whose functions are charged to their callers' parts, as built-ins are: the
vocabulary, and the standard library's that every part calls (JSON: the writer's
encoding, the agent's answer decoded, the checkpoint's stream; a dataclass pickled to the
agent process; the schedule's shuffle)."""


def charged(stats: dict[Any, Any]) -> Counter[str]:
    """Each function's own time by part; a built-in's that no part names, and a shared
    function's (`SHARED`), split among its callers' parts."""
    parts: Counter[str] = Counter()
    found: dict[Any, dict[str, float]] = {}
    for func, (_, _, own, _, _) in stats.items():
        for part, share in _parts_of(func, stats, found, frozenset()).items():
            parts[part] += own * share
    return parts


def _parts_of(func: Any, stats: dict[Any, Any], found: dict[Any, dict[str, float]],
              seen: frozenset[Any]) -> dict[str, float]:
    """The parts `func`'s time is charged to, each with its share (they sum to 1)."""
    if func in found:
        return found[func]
    named = part_of(_where(func))
    callers = stats[func][4] if func in stats else {}
    shared = (func[0] == "~" and named == "other") or any(m in func[0] for m in SHARED)
    if not shared or not callers or func in seen:
        return {named: 1.0}
    # a caller's time in a built-in is its own there; in a shared function, the whole call
    at = 2 if func[0] == "~" else 3
    total = sum(figures[at] for figures in callers.values()) or 1.0
    shares: Counter[str] = Counter()
    for caller, figures in callers.items():
        for part, share in _parts_of(caller, stats, found, seen | {func}).items():
            shares[part] += share * figures[at] / total
    found[func] = dict(shares)
    return found[func]


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
