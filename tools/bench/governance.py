"""Benchmark govsim's cost per world: generation and the oracle, over the eval suite.

Writes reports/bench/governance.json. For each of the 64 default eval worlds (seed 0,
medium) it times, in milliseconds:
1. `generation`: ``generate_one`` for that world (what ``generate_worlds`` does per
   index), checked to give the same task id as the whole-suite call;
2. `oracle`: ``solve`` (the dynamic-programming minimum and one optimal path, verified
   by the validator's evaluator).
Each world is timed TRIALS times and keeps its fastest trial (the least disturbed by
the machine); the report gives the median and the max of those over worlds. Beside
them: one whole-suite ``generate_worlds`` call and the adapter's uncached ``build_items``
(which also solves, replays and validates every oracle path), each the median of TRIALS
runs.

Usage: python -m tools.bench.governance [--out reports/bench/governance.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

from agent_assay_bundled.governance import DEFAULT_SPEC, build_items
from govsim import generate_worlds, solve
from govsim.generator import generate_one

TRIALS = 5


def _ms(action: Callable[[], object]) -> float:
    started = perf_counter()
    action()
    return (perf_counter() - started) * 1000.0


def _fastest(action: Callable[[], object]) -> float:
    return min(_ms(action) for _ in range(TRIALS))


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(values), 4),
        "max_ms": round(max(values), 4),
        "min_ms": round(min(values), 4),
    }


def measure() -> dict[str, Any]:
    spec = DEFAULT_SPEC
    tasks = generate_worlds(spec.seed, spec.split, spec.n, spec.difficulty)
    generation, oracle = [], []
    for index, task in enumerate(tasks):
        again = generate_one(spec.seed, spec.split, index, spec.difficulty, task.template_id)
        if again.task_id != task.task_id:
            raise SystemExit(f"world {index} regenerates as {again.task_id}, not {task.task_id}")
        generation.append(
            _fastest(
                lambda i=index, t=task.template_id: generate_one(
                    spec.seed, spec.split, i, spec.difficulty, t
                )
            )
        )
        oracle.append(_fastest(lambda t=task: solve(t)))

    whole = [
        _ms(lambda: generate_worlds(spec.seed, spec.split, spec.n, spec.difficulty))
        for _ in range(TRIALS)
    ]
    builds = [_ms(lambda: build_items(spec)) for _ in range(TRIALS)]
    return {
        "command": "python -m tools.bench.governance",
        "suite": {
            "seed": spec.seed,
            "split": spec.split,
            "worlds": spec.n,
            "difficulty": spec.difficulty,
        },
        "trials_per_world": TRIALS,
        "per_world": {
            "generation": _spread(generation),
            "oracle_solve": _spread(oracle),
        },
        "whole_suite": {
            "generate_worlds_ms_median": round(statistics.median(whole), 2),
            "adapter_build_items_ms_median": round(statistics.median(builds), 2),
        },
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.machine(),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("reports/bench/governance.json"))
    args = parser.parse_args()
    report = measure()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, sort_keys=True, indent=2) + "\n")
    print(json.dumps(report, sort_keys=True, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
